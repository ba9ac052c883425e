import { Writable } from 'node:stream';
import type { Alert } from '@domain-index/contract';
import { accounts, alerts, apiKeys, asc, eq, sql, webhookDeliveries } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import type { SourceConfig } from '@domain-index/indexer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, disableAccount, enableAccount } from '@domain-index/accounts/account-store';
import { AlertContext } from '@domain-index/alerts/alert-deps';
import { deliveryTask, type DeliveryWorkerOptions } from '@domain-index/worker/alerts/delivery-worker';
import { sendDueDigests } from '@domain-index/worker/alerts/digests';
import { fillOutbox } from '@domain-index/alerts/outbox';
import { operatorSetPaused } from '@domain-index/alerts/operator-alerts';
import { DeliveryPool } from '@domain-index/worker/alerts/delivery-pool';
import { createKey, revokeKey } from '@domain-index/accounts/key-store';
import { systemClock, type Clock } from '@domain-index/runtime/clock';
import { loadConfig } from '@domain-index/config/config';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { createLogger } from '@domain-index/runtime/logger';
import { Mailer } from '@domain-index/mail/mailer';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { parseAllowedHosts } from '@domain-index/webhooks/address-rules';
import { jsonlFeed } from '@domain-index/test-support/feeds';
import { startSmtpSink, type SmtpSink } from '@domain-index/test-support/smtp-sink-process';
import { confirmDigestAddress } from './support/digest-addresses';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';
import { startWebhookReceiver, type WebhookReceiver } from '@domain-index/test-support/webhook-receiver';

const SOURCE: SourceConfig = { id: 'alpha', name: 'alpha', everyMinutes: 60, feed: 'alpha.jsonl', format: 'jsonl' };
const listing = (name: string) => ({ domain_name: name, status: 'auction', current_bid: 10, auction_end_time: '2099-01-01T00:00:00.000Z' });
const silent = createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() }));
const parsed = parseAllowedHosts('127.0.0.1');
if (!parsed.ok) throw new Error(parsed.reason);
const loopback = parsed.allowList;

// Each owner here gets a webhook alert on a loopback receiver (and, with an account, a digest
// alert); a test stops the owner one way and checks that nothing more leaves for it.
for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`an owner's state governs its alerts on ${engine}`, () => {
    let test: TestDatabase;
    let api: RunningApi;
    let receiver: WebhookReceiver;
    let sink: SmtpSink;
    let mailer: Mailer;
    let worker: DeliveryWorkerOptions;
    let secret: Buffer;
    let names = 0;

    const send = (key: string, method: string, path: string, body?: unknown) =>
      api.raw(path, { method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const createAlert = async (key: string, body: Record<string, unknown>) => {
      const response = await send(key, 'POST', '/api/v1/alerts', { query: 'type=listing.added', ...body });
      expect(response.status).toBe(201);
      return (await response.json()) as Alert;
    };
    /** A batch adding `count` listings: `count` listing.added events, which every alert here matches. */
    const addListings = async (count = 1) => {
      const existing = await test.database.rows<{ domain_name: string }>(sql`select domain_name from listings where source = 'alpha'`);
      const added = Array.from({ length: count }, () => listing(`owner${(names += 1)}.com`));
      const summary = await importBatch({ database: test.database, source: SOURCE, clock: systemClock, input: jsonlFeed([...existing.map((row) => listing(row.domain_name)), ...added]) });
      expect(summary.outcome).toBe('applied');
    };
    const alertState = async (id: string) => {
      const [row] = await test.database.db.select({ paused: alerts.paused, reason: alerts.pausedReason }).from(alerts).where(eq(alerts.id, id));
      return row;
    };
    const messages = (alertId: string) =>
      test.database.db.select({ status: webhookDeliveries.status, reason: webhookDeliveries.cancelledReason }).from(webhookDeliveries).where(eq(webhookDeliveries.alertId, alertId)).orderBy(asc(webhookDeliveries.seq));
    /** Webhook requests the receiver got for this alert. */
    const arrived = (alertId: string) => receiver.received.filter((request) => request.body.includes(`"alert_id":"${alertId}"`)).length;
    /** Runs the delivery worker's turn as `sync` does, `times` over. */
    const deliverAll = async (times = 3) => {
      const task = deliveryTask(worker);
      for (let i = 0; i < times; i += 1) await task.run();
    };
    /** The digests at the end of the alert's current period. */
    const digestsAtDue = async (alertId: string) => {
      const [row] = await test.database.db.select({ due: alerts.digestDueAt }).from(alerts).where(eq(alerts.id, alertId));
      const atDue: Clock = { now: () => new Date(row!.due!.getTime() + 1_000) };
      return sendDueDigests(test.database, { mailer, clock: atDue, logger: silent, publicUrl: api.baseUrl, secret });
    };
    const newAccount = async (email: string) => {
      const account = await createAccount(test.database, { email, planId: 'pro', at: new Date() });
      const key = await createKey(test.database, { planId: 'pro', environment: 'live', accountId: account.id });
      // its address confirmed, as its owner would: these digests stop for the owner's state alone
      await confirmDigestAddress(test.database, email);
      return { id: account.id, key: key.key, keyId: key.id };
    };

    beforeAll(async () => {
      test = await createTestDatabase(engine);
      api = await startApi(engine, { test, sources: [SOURCE], overrides: { alerts: { allowList: loopback, digestsAvailable: true } } });
      receiver = await startWebhookReceiver();
      sink = await startSmtpSink({ user: 'owner', password: 'state' });
      const { mail } = loadConfig({ SMTP_URL: `smtp://owner:state@127.0.0.1:${sink.port}`, SMTP_FROM: 'Domain Index <alerts@example.com>' });
      mailer = new Mailer({ ...mail!, logger: silent });
      secret = await loadCursorSecret(test.database);
      const context = new AlertContext(test.database, { allowList: loopback });
      worker = { database: test.database, clock: systemClock, logger: silent, publicUrl: api.baseUrl, secret, secretBox: () => context.secretBox(), allowList: loopback, schedule: [0, 1, 1], disableAfterMs: 3_600_000 };
      await importBatch({ database: test.database, source: SOURCE, clock: systemClock, input: jsonlFeed([listing('first.com')]) });
    });
    afterAll(async () => {
      mailer.close();
      await sink.stop();
      await receiver.close();
      await api.close();
      await test.dispose();
    });

    it('disabling an account pauses its alerts and cancels their pending messages with the reason; nothing is sent or mailed after; enabling it resumes nothing', async () => {
      const owner = await newAccount('disabled@example.com');
      const hook = await createAlert(owner.key, { name: 'hook', webhook_url: receiver.url });
      const digest = await createAlert(owner.key, { name: 'digest', email_digest: 'hourly' });
      await addListings();
      expect(await fillOutbox(test.database, new Date())).toBe(1);
      expect(await messages(hook.id)).toEqual([{ status: 'pending', reason: null }]);

      expect(await disableAccount(test.database, owner.id, new Date())).toBe(true);
      expect((await send(owner.key, 'GET', '/api/v1/alerts')).status).toBe(401);
      expect(await alertState(hook.id)).toEqual({ paused: true, reason: 'owner disabled' });
      expect(await alertState(digest.id)).toEqual({ paused: true, reason: 'owner disabled' });
      expect(await messages(hook.id)).toEqual([{ status: 'cancelled', reason: 'owner disabled' }]);

      await addListings();
      await deliverAll();
      expect(arrived(hook.id)).toBe(0);
      expect(await messages(hook.id)).toEqual([{ status: 'cancelled', reason: 'owner disabled' }]);
      expect(await digestsAtDue(digest.id)).toBe(0);

      expect(await enableAccount(test.database, owner.id)).toBe(true);
      const listed = (await (await send(owner.key, 'GET', '/api/v1/alerts')).json()) as { data: Alert[] };
      expect(listed.data.map((alert) => [alert.name, alert.paused])).toEqual([
        ['digest', true],
        ['hook', true],
      ]);
      await addListings();
      await deliverAll();
      expect(arrived(hook.id)).toBe(0);
      expect(await digestsAtDue(digest.id)).toBe(0);
      expect(sink.messages).toHaveLength(0);

      // the owner resumes them: from then on, they deliver again (so the silence above was the state's)
      for (const alert of [hook, digest]) expect((await send(owner.key, 'PATCH', `/api/v1/alerts/${alert.id}`, { paused: false })).status).toBe(200);
      expect(await alertState(hook.id)).toEqual({ paused: false, reason: null });
      await addListings();
      await deliverAll();
      expect(arrived(hook.id)).toBe(1);
      expect(await digestsAtDue(digest.id)).toBe(1);
      await sink.waitForMessages(1);
      expect(sink.messages[0]!.to).toEqual(['disabled@example.com']);
    });

    it("pausing an alert, by its owner or an operator, cancels the matches already queued ('alert paused'); a test message still goes, and resuming sends only what comes after", async () => {
      const owner = await newAccount('pauses@example.com');
      const hook = await createAlert(owner.key, { name: 'paused hook', webhook_url: receiver.url });
      await addListings();
      await fillOutbox(test.database, new Date()); // other tests' alerts may queue theirs too
      expect(await messages(hook.id)).toEqual([{ status: 'pending', reason: null }]);

      expect((await send(owner.key, 'PATCH', `/api/v1/alerts/${hook.id}`, { paused: true })).status).toBe(200);
      expect(await messages(hook.id)).toEqual([{ status: 'cancelled', reason: 'alert paused' }]);
      expect((await send(owner.key, 'POST', `/api/v1/alerts/${hook.id}/test`)).status).toBe(202);
      await addListings();
      await deliverAll();
      // the test message only: the queued match was cancelled, and the pause's matches were never queued
      expect(receiver.received.filter((request) => request.body.includes(`"alert_id":"${hook.id}"`)).map((request) => (JSON.parse(request.body) as { type: string }).type)).toEqual(['test']);
      const listed = (await (await send(owner.key, 'GET', '/api/v1/alerts')).json()) as { data: Alert[] };
      expect(listed.data.find((alert) => alert.id === hook.id)?.last_delivery).toMatchObject({ status: 'delivered', cancelled_reason: null });

      expect((await send(owner.key, 'PATCH', `/api/v1/alerts/${hook.id}`, { paused: false })).status).toBe(200);
      await addListings();
      await deliverAll();
      expect(arrived(hook.id)).toBe(2);

      // an operator's pause does the same, with its own reason
      await addListings();
      await fillOutbox(test.database, new Date()); // other tests' alerts may queue theirs too
      expect((await operatorSetPaused(test.database, { alertId: hook.id }, true, new Date())).changed).toEqual([hook.id]);
      expect((await messages(hook.id)).at(-1)).toEqual({ status: 'cancelled', reason: 'paused by an operator' });
      const after = (await (await send(owner.key, 'GET', '/api/v1/alerts')).json()) as { data: Alert[] };
      expect(after.data.find((alert) => alert.id === hook.id)?.last_delivery).toMatchObject({ status: 'cancelled', cancelled_reason: 'paused by an operator' });
    });

    it("revoking a key without an account pauses the key's alerts and cancels their messages ('key revoked'); revoking an account's key leaves the account's alerts running", async () => {
      const keyOnly = await createKey(test.database, { planId: 'pro', environment: 'live' });
      const hook = await createAlert(keyOnly.key, { name: 'key hook', webhook_url: receiver.url });
      const owner = await newAccount('keeps-running@example.com');
      const accountHook = await createAlert(owner.key, { name: 'account hook', webhook_url: receiver.url });
      await addListings();
      await fillOutbox(test.database, new Date());

      expect(await revokeKey(test.database, keyOnly.id, 'revoked by an operator', new Date())).toBe(true);
      expect(await revokeKey(test.database, owner.keyId, 'revoked by an operator', new Date())).toBe(true);
      expect(await alertState(hook.id)).toEqual({ paused: true, reason: 'key revoked' });
      expect(await messages(hook.id)).toEqual([{ status: 'cancelled', reason: 'key revoked' }]);
      expect(await alertState(accountHook.id)).toEqual({ paused: false, reason: null });

      await addListings();
      await deliverAll();
      expect(arrived(hook.id)).toBe(0);
      expect(arrived(accountHook.id)).toBe(2);
    });

    it("a key sent in the URL as ?api_key= is revoked as leaked, and its alerts paused with their messages cancelled ('key revoked as leaked')", async () => {
      const keyOnly = await createKey(test.database, { planId: 'pro', environment: 'live' });
      const hook = await createAlert(keyOnly.key, { name: 'leaked hook', webhook_url: receiver.url });
      await addListings();
      await fillOutbox(test.database, new Date());

      const leaked = await api.raw(`/api/v1/stats?api_key=${keyOnly.key}`);
      expect(leaked.status).toBe(400);
      expect((await send(keyOnly.key, 'GET', '/api/v1/alerts')).status).toBe(401);
      expect(await alertState(hook.id)).toEqual({ paused: true, reason: 'key revoked as leaked' });
      expect(await messages(hook.id)).toEqual([{ status: 'cancelled', reason: 'key revoked as leaked' }]);
      await addListings();
      await deliverAll();
      expect(arrived(hook.id)).toBe(0);
    });

    it("an expired key's alerts send nothing: the claim skips its queued message, the fill queues no more, and the worker cancels it ('key expired')", async () => {
      const keyOnly = await createKey(test.database, { planId: 'pro', environment: 'live' });
      const hook = await createAlert(keyOnly.key, { name: 'expiring hook', webhook_url: receiver.url });
      await addListings();
      await fillOutbox(test.database, new Date());
      expect(await messages(hook.id)).toEqual([{ status: 'pending', reason: null }]);
      // the key reaches its expiry: no action, no transaction
      await test.database.db.update(apiKeys).set({ expiresAt: new Date(Date.now() - 1_000) }).where(eq(apiKeys.id, keyOnly.id));

      await new DeliveryPool(test.database, worker).drain();
      expect(arrived(hook.id)).toBe(0);
      expect(await messages(hook.id)).toEqual([{ status: 'pending', reason: null }]);
      await addListings();
      await fillOutbox(test.database, new Date());
      expect(await messages(hook.id)).toHaveLength(1);

      await deliverAll();
      expect(arrived(hook.id)).toBe(0);
      expect(await messages(hook.id)).toEqual([{ status: 'cancelled', reason: 'key expired' }]);
    });

    it('an account disabled by a path that forgets its alerts still has nothing sent or mailed: the fill, the claim and the digests read the owner', async () => {
      const owner = await newAccount('missed-path@example.com');
      const hook = await createAlert(owner.key, { name: 'hook', webhook_url: receiver.url });
      const digest = await createAlert(owner.key, { name: 'digest', email_digest: 'hourly' });
      await addListings();
      await fillOutbox(test.database, new Date());
      const mailed = sink.messages.length;
      await test.database.db.update(accounts).set({ disabledAt: new Date() }).where(eq(accounts.id, owner.id));

      await new DeliveryPool(test.database, worker).drain();
      expect(arrived(hook.id)).toBe(0);
      await addListings();
      await fillOutbox(test.database, new Date());
      expect(await messages(hook.id)).toEqual([{ status: 'pending', reason: null }]);
      expect(await digestsAtDue(digest.id)).toBe(0);
      expect(sink.messages).toHaveLength(mailed);

      await deliverAll();
      expect(arrived(hook.id)).toBe(0);
      expect(await messages(hook.id)).toEqual([{ status: 'cancelled', reason: 'owner disabled' }]);
    });
  });
}
