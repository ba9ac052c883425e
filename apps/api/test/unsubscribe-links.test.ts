import { createHmac } from 'node:crypto';
import { alerts, eq } from '@domain-index/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@domain-index/accounts/account-store';
import { unsubscribeToken } from '@domain-index/alerts/unsubscribe-token';
import { createKey } from '@domain-index/accounts/key-store';
import type { Clock } from '@domain-index/runtime/clock';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { startApi, type RunningApi } from './support/start-api';

const DAY = 86_400_000;

describe('unsubscribe links (PGlite)', () => {
  let api: RunningApi;
  let secret: Buffer;
  let alertId: string;
  let offset = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offset) };
  const digestOf = async () => (await api.test.database.db.select({ digest: alerts.emailDigest }).from(alerts).where(eq(alerts.id, alertId)))[0]?.digest;

  beforeAll(async () => {
    api = await startApi('pglite', { clock, overrides: { alerts: { digestsAvailable: true } } });
    secret = await loadCursorSecret(api.test.database);
    const account = await createAccount(api.test.database, { email: 'links@example.com', planId: 'pro', at: new Date() });
    const { key } = await createKey(api.test.database, { planId: 'pro', environment: 'live', accountId: account.id });
    const created = await api.raw('/api/v1/alerts', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Links', query: 'type=listing.added', email_digest: 'daily' }),
    });
    expect(created.status).toBe(201);
    alertId = ((await created.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await api.close();
  });

  it('works for 90 days; an older link is a page saying what to do, and changes nothing', async () => {
    const token = unsubscribeToken(secret, alertId, new Date(Date.now() - 89 * DAY));
    const fresh = await api.raw(`/alerts/unsubscribe/${alertId}/${token}`);
    expect(fresh.status).toBe(200);
    expect(await fresh.text()).toContain('Stop the daily digest of the alert <b>Links</b>?');

    const old = unsubscribeToken(secret, alertId, new Date(Date.now() - 91 * DAY));
    for (const method of ['GET', 'POST']) {
      const expired = await api.raw(`/alerts/unsubscribe/${alertId}/${old}`, { method });
      expect(expired.status, method).toBe(410);
      const page = await expired.text();
      expect(page).toContain('<title>This link has expired');
      expect(page).toContain('Unsubscribe links work for 90 days after the digest that carried them, and this one is older. Nothing was changed.');
      expect(page).toContain('use the link in the latest digest you received, or sign in to the dashboard, open the alert (Alerts, then the alert) and set its email digest to none.');
    }
    expect(await digestOf()).toBe('daily');

    // the same link ages on the service's clock
    offset = 2 * DAY;
    expect((await api.raw(`/alerts/unsubscribe/${alertId}/${token}`)).status).toBe(410);
    offset = 0;
  });

  it('counts a link of the first form (no time in it) as expired, and a made-up one as not valid', async () => {
    const legacy = createHmac('sha256', secret).update(`unsubscribe:${alertId}`).digest().subarray(0, 18).toString('base64url');
    expect((await api.raw(`/alerts/unsubscribe/${alertId}/${legacy}`, { method: 'POST' })).status).toBe(410);
    const forged = await api.raw(`/alerts/unsubscribe/${alertId}/${unsubscribeToken(Buffer.alloc(32, 1), alertId, new Date())}`, { method: 'POST' });
    expect(forged.status).toBe(404);
    expect(await forged.text()).toContain('This unsubscribe link is not valid.');
    expect(await digestOf()).toBe('daily');
  });

  it('never writes a link token in a log line: the access log has [redacted] in its place', async () => {
    const token = unsubscribeToken(secret, alertId, new Date());
    const before = api.logLines.length;
    const page = await api.raw(`/alerts/unsubscribe/${alertId}/${token}`, { headers: { 'x-request-id': 'unsubscribe-log-check' } });
    expect(page.status).toBe(200);
    const lines = api.logLines.slice(before).filter((line) => line.includes('unsubscribe-log-check'));
    expect(lines).toHaveLength(1);
    expect((JSON.parse(lines[0]!) as { req: { url: string } }).req.url).toBe(`/alerts/unsubscribe/${alertId}/[redacted]`);
    const tokens = [token, ...api.logLines.flatMap((line) => [...line.matchAll(/unsubscribe\/alt_[\w-]+\/([^"/?\s]+)/g)].map((match) => match[1]))];
    expect(tokens.slice(1).every((logged) => logged === '[redacted]')).toBe(true);
    expect(api.logLines.join('\n')).not.toContain(token.split('.')[1]);
  });
});
