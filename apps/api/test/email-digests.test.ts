import { Writable } from 'node:stream';
import type { Alert } from '@domain-index/contract';
import { alerts, eq, sql } from '@domain-index/db';
import { createTestDatabase, type TestDatabase } from '@domain-index/db/testing';
import type { SourceConfig } from '@domain-index/indexer';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../src/accounts/account-store';
import { sendDueDigests } from '../src/alerts/digests';
import { createKey } from '../src/auth/key-store';
import { systemClock, type Clock } from '../src/clock';
import { importBatch } from '../src/indexing/import-batch';
import { createLogger } from '../src/logger';
import { loadConfig } from '../src/config';
import { Mailer } from '../src/mail/mailer';
import { loadCursorSecret } from '../src/search/cursor-secret';
import { jsonlFeed } from './support/feeds';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink-process';
import { startApi, type RunningApi } from './support/start-api';

const SOURCE: SourceConfig = { id: 'alpha', name: 'alpha', everyMinutes: 60, feed: 'alpha.jsonl', format: 'jsonl' };
const listing = (name: string, price: number) => ({ domain_name: name, status: 'auction', current_bid: price, auction_end_time: '2099-01-01T00:00:00.000Z', marketplace_url: `https://alpha.example/l/${name}` });
const silent = createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() }));

describe('email digests through a real SMTP server on loopback (PGlite)', () => {
  let test: TestDatabase;
  let api: RunningApi;
  let sink: SmtpSink;
  let mailer: Mailer;
  let key: string;
  let secret: Buffer;

  beforeAll(async () => {
    test = await createTestDatabase('pglite');
    api = await startApi('pglite', { test, sources: [SOURCE], overrides: { alerts: { digestsAvailable: true } } });
    sink = await startSmtpSink({ user: 'digest', password: 'p@ss word' });
    const { mail } = loadConfig({ SMTP_URL: `smtp://digest:${encodeURIComponent('p@ss word')}@127.0.0.1:${sink.port}`, SMTP_FROM: 'Domain Index <alerts@example.com>' });
    if (mail === undefined) throw new Error('no mailer');
    mailer = new Mailer({ ...mail, logger: silent });
    const account = await createAccount(test.database, { email: 'investor@example.com', planId: 'pro', at: new Date() });
    key = (await createKey(test.database, { planId: 'pro', environment: 'live', accountId: account.id })).key;
    secret = await loadCursorSecret(test.database);
    await importBatch({ database: test.database, source: SOURCE, clock: systemClock, input: jsonlFeed([listing('first.com', 1)]) });
  });
  afterAll(async () => {
    mailer.close();
    await sink.stop();
    await api.close();
    await test.dispose();
  });

  it('mails one digest per period with the matches, nothing when nothing matched, and its unsubscribe link works without signing in', async () => {
    const response = await api.raw('/api/v1/alerts', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Under $100', query: 'type=listing.added&max_price=100', email_digest: 'hourly' }),
    });
    expect(response.status).toBe(201);
    const alert = (await response.json()) as Alert & { webhook_secret: null };
    expect(alert).toMatchObject({ email_digest: 'hourly', webhook_url: null, webhook_state: 'none', webhook_secret: null });
    await importBatch({
      database: test.database,
      source: SOURCE,
      clock: systemClock,
      input: jsonlFeed([listing('first.com', 1), listing('cheap-one.com', 40), listing('cheap-two.com', 90), listing('too-dear.com', 5000)]),
    });
    const [row] = await test.database.db.select({ due: alerts.digestDueAt }).from(alerts).where(eq(alerts.id, alert.id));
    const atDue: Clock = { now: () => new Date(row!.due!.getTime() + 1_000) };
    const settings = { mailer, clock: atDue, logger: silent, publicUrl: api.baseUrl, secret };
    // before the period ends: nothing
    expect(await sendDueDigests(test.database, { ...settings, clock: systemClock })).toBe(0);
    expect(await sendDueDigests(test.database, settings)).toBe(1);
    await sink.waitForMessages(1);
    // the same period again: already sent
    expect(await sendDueDigests(test.database, settings)).toBe(0);
    const mail = await simpleParser(sink.messages[0]!.raw);
    expect(sink.messages[0]!.to).toEqual(['investor@example.com']);
    expect(mail.subject).toBe('2 matches for "Under $100" this hour');
    expect(mail.text).toContain('cheap-one.com (added) $40 on alpha');
    expect(mail.text).toContain('cheap-two.com (added) $90 on alpha');
    expect(mail.text).not.toContain('too-dear.com');
    expect(mail.html).toContain('<a href="https://alpha.example/l/cheap-one.com">cheap-one.com</a>');
    const unsubscribe = /Stop these emails: (\S+)/.exec(mail.text ?? '')?.[1] ?? '';
    expect(unsubscribe).toMatch(new RegExp(`^${api.baseUrl}/alerts/unsubscribe/${alert.id}/[0-9a-z]+\\.[\\w-]+$`));
    // the same link, for one-click unsubscribe by the mail client (RFC 8058)
    expect(sink.messages[0]!.raw.toString().replace(/\r\n[ \t]+/g, ' ')).toContain(`List-Unsubscribe: <${unsubscribe}>`);
    expect(sink.messages[0]!.raw.toString()).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');

    // the next period: nothing new matched, no mail
    const next: Clock = { now: () => new Date(row!.due!.getTime() + 3_601_000) };
    expect(await sendDueDigests(test.database, { ...settings, clock: next })).toBe(0);
    expect(sink.messages).toHaveLength(1);

    // the link: a page with a button (GET changes nothing), then the POST turns the digest off
    const page = await fetch(unsubscribe);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Stop the hourly digest of the alert <b>Under $100</b>?');
    expect(await test.database.rows<{ email_digest: string }>(sql`select email_digest from alerts where id = ${alert.id}`)).toEqual([{ email_digest: 'hourly' }]);
    const done = await fetch(unsubscribe, { method: 'POST' });
    expect(await done.text()).toContain('You will receive no more digests of the alert <b>Under $100</b>.');
    expect(await test.database.rows<{ email_digest: string | null }>(sql`select email_digest from alerts where id = ${alert.id}`)).toEqual([{ email_digest: null }]);
    // a made-up token is refused, and says nothing of the alert
    const forged = await fetch(`${api.baseUrl}/alerts/unsubscribe/${alert.id}/forged-token`, { method: 'POST' });
    expect(forged.status).toBe(404);
  });
});
