import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Alert } from '@domain-index/contract';
import { sql } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import type { SourceConfig } from '@domain-index/indexer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertContext } from '@domain-index/alerts/alert-deps';
import { deliveryTask, type Deliveries, type DeliveryWorkerOptions } from '@domain-index/worker/alerts/delivery-worker';
import { createAccount } from '@domain-index/accounts/account-store';
import { createKey } from '@domain-index/accounts/key-store';
import { systemClock } from '@domain-index/runtime/clock';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { createLogger } from '@domain-index/runtime/logger';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { parseAllowedHosts, type AllowList } from '@domain-index/webhooks/address-rules';
import { jsonlFeed } from '@domain-index/test-support/feeds';
import { until } from '@domain-index/test-support/waiting';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';
import { startWebhookReceiver } from '@domain-index/test-support/webhook-receiver';

// Every receiver listens on 127.0.0.1; the deliveries run as the worker runs them (their loops
// started), with the default concurrency and timeouts unless a test says otherwise.

const SOURCE: SourceConfig = { id: 'alpha', name: 'alpha', everyMinutes: 60, feed: 'alpha.jsonl', format: 'jsonl' };
const listing = (name: string) => ({ domain_name: name, status: 'auction', current_bid: 10, auction_end_time: '2099-01-01T00:00:00.000Z' });
const allow = (value: string): AllowList => {
  const parsed = parseAllowedHosts(value);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.allowList;
};
const silent = createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() }));

/** A receiver on its own port (its own endpoint) that accepts every request and never answers until closed. */
async function startHangingReceiver(): Promise<{ url: string; requests: number; close(): Promise<void> }> {
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    get requests() {
      return held.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A receiver on its own port that answers 200 `delayMs` after each request, counting the requests it holds at once. */
async function startSlowReceiver(delayMs: number) {
  const state = { inFlight: 0, most: 0, webhookIds: [] as string[], onRequest: (): void => undefined, url: '', close: () => Promise.resolve() };
  const server: Server = createServer((req, res) => {
    state.onRequest();
    state.inFlight += 1;
    state.most = Math.max(state.most, state.inFlight);
    state.webhookIds.push(String(req.headers['webhook-id']));
    req.resume();
    setTimeout(() => {
      state.inFlight -= 1;
      res.end('ok');
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`webhook delivery isolation on ${engine}`, () => {
    let test: TestDatabase;
    let api: RunningApi;
    let names = 0;
    const loopback = allow('127.0.0.1');

    async function deliveries(options: Partial<DeliveryWorkerOptions> = {}): Promise<Deliveries> {
      const context = new AlertContext(test.database, { allowList: loopback });
      return deliveryTask({
        database: test.database,
        clock: systemClock,
        logger: silent,
        publicUrl: 'http://127.0.0.1',
        secret: await loadCursorSecret(test.database),
        secretBox: () => context.secretBox(),
        allowList: loopback,
        schedule: [0, 1, 1],
        disableAfterMs: 3_600_000,
        ...options,
      });
    }
    /** A key of a new account on `plan`. */
    const newAccount = async (plan: string) => {
      const account = await createAccount(test.database, { email: `iso-${(names += 1)}@example.com`, planId: plan, at: new Date() });
      return (await createKey(test.database, { planId: plan, environment: 'live', accountId: account.id })).key;
    };
    const create = async (key: string, body: Record<string, unknown>) => {
      const response = await api.raw('/api/v1/alerts', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(response.status).toBe(201);
      return (await response.json()) as Alert;
    };
    /** A batch adding `count` listings: `count` listing.added events. */
    const addListings = async (count: number) => {
      const existing = await test.database.rows<{ domain_name: string }>(sql`select domain_name from listings where source = 'alpha'`);
      const added = Array.from({ length: count }, () => listing(`iso${(names += 1)}.com`));
      const summary = await importBatch({ database: test.database, source: SOURCE, clock: systemClock, input: jsonlFeed([...existing.map((row) => listing(row.domain_name)), ...added]) });
      expect(summary.outcome).toBe('applied');
    };
    /** Every alert's messages, delivered or not. */
    const statuses = async (alertIds: readonly string[]) =>
      test.database.rows<{ id: string; alert_id: string; status: string }>(
        sql`select id, alert_id, status from webhook_deliveries where alert_id in (${sql.join(alertIds.map((id) => sql`${id}`), sql`, `)}) order by seq`,
      );
    const remove = async (key: string, ids: readonly string[]) => {
      for (const id of ids) await api.raw(`/api/v1/alerts/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    };

    beforeAll(async () => {
      test = await createTestDatabase(engine);
      api = await startApi(engine, { test, sources: [SOURCE], overrides: { alerts: { allowList: loopback } } });
      await importBatch({ database: test.database, source: SOURCE, clock: systemClock, input: jsonlFeed([listing('first.com')]) });
    });
    afterAll(async () => {
      await api.close();
      await test.dispose();
    });

    it("delivers a healthy alert's test message and its matches within 2 s while 20 receivers of other accounts hang", async () => {
      const hanging = await Promise.all(Array.from({ length: 20 }, () => startHangingReceiver()));
      const healthy = await startWebhookReceiver();
      const owners: { key: string; id: string }[] = [];
      const running = await deliveries();
      try {
        for (const receiver of hanging) {
          const key = await newAccount('free');
          owners.push({ key, id: (await create(key, { name: 'hangs', query: 'type=listing.added', webhook_url: receiver.url })).id });
        }
        await addListings(1);
        running.start();
        await until('every hanging receiver holds a request', () => hanging.every((receiver) => receiver.requests === 1), 20_000);

        const key = await newAccount('free');
        const alert = await create(key, { name: 'healthy', query: 'type=listing.added', webhook_url: healthy.url });
        const asked = Date.now();
        expect((await api.raw(`/api/v1/alerts/${alert.id}/test`, { method: 'POST', headers: { authorization: `Bearer ${key}` } })).status).toBe(202);
        await until('the test message arrived', () => healthy.received.length === 1, 10_000);
        expect(healthy.received[0]!.at - asked).toBeLessThan(2_000);
        expect(JSON.parse(healthy.received[0]!.body)).toMatchObject({ type: 'test', alert_id: alert.id });

        await addListings(1);
        const committed = Date.now();
        await until('the match arrived', () => healthy.received.length === 2, 10_000);
        expect(healthy.received[1]!.at - committed).toBeLessThan(2_000);
        expect(JSON.parse(healthy.received[1]!.body)).toMatchObject({ type: 'events', alert_id: alert.id });
        // the hanging receivers still hold their one request each: nothing else was sent to them
        expect(hanging.map((receiver) => receiver.requests)).toEqual(hanging.map(() => 1));
        await remove(key, [alert.id]);
      } finally {
        // closed first, so that the requests they hold fail at once and the pool stops without waiting for their timeouts
        await Promise.all(hanging.map((receiver) => receiver.close()));
        await running.stop();
        await healthy.close();
        for (const owner of owners) await remove(owner.key, [owner.id]);
      }
    });

    it('sends one request at a time to an endpoint shared by alerts of several accounts, while another endpoint is sent to beside it', async () => {
      const shared = await startSlowReceiver(150);
      // answers slower than the shared endpoint, so the two never keep step: each of its requests
      // spans one of the shared endpoint's
      const other = await startSlowReceiver(400);
      // the two endpoints were sent to at once when either got a request while the other held one
      let overlapped = false;
      other.onRequest = () => {
        if (shared.inFlight > 0) overlapped = true;
      };
      shared.onRequest = () => {
        if (other.inFlight > 0) overlapped = true;
      };
      const keys = [await newAccount('pro'), await newAccount('pro')];
      const alerts: { key: string; id: string }[] = [];
      for (let i = 0; i < 6; i += 1) {
        const key = keys[i % 2]!;
        alerts.push({ key, id: (await create(key, { name: `shared ${i}`, query: 'type=listing.added', webhook_url: `${shared.url}/${i}` })).id });
      }
      for (let i = 0; i < 3; i += 1) alerts.push({ key: keys[0]!, id: (await create(keys[0]!, { name: `other ${i}`, query: 'type=listing.added', webhook_url: `${other.url}/${i}` })).id });
      const running = await deliveries();
      try {
        await addListings(1);
        running.start();
        await until('every message was delivered', async () => {
          const rows = await statuses(alerts.map((alert) => alert.id));
          return rows.length === 9 && rows.every((row) => row.status === 'delivered');
        }, 30_000);
        // a message for each of the 6 alerts at the shared endpoint, one at a time; the other endpoint's beside them
        expect(shared.webhookIds).toHaveLength(6);
        expect(new Set(shared.webhookIds).size).toBe(6);
        expect(shared.most).toBe(1);
        expect(other.most).toBe(1);
        expect(overlapped).toBe(true);
      } finally {
        await running.stop();
        await shared.close();
        await other.close();
        for (const alert of alerts) await remove(alert.key, [alert.id]);
      }
    });

    it('keeps a quarter of the slots for endpoints that answer: receivers that hang, as many as there are slots, never hold them all', async () => {
      // 4 slots, 4 endpoints that never answer and are tried again at once after each 8-s timeout
      // (their circuits never open here): without the kept slot they would hold all 4, turn after
      // turn, and a healthy alert's message would wait for the next timeout, about 8 s on.
      const timeoutMs = 8_000;
      const hanging = await Promise.all(Array.from({ length: 4 }, () => startHangingReceiver()));
      const healthy = await startWebhookReceiver();
      const key = await newAccount('pro');
      const alertIds: string[] = [];
      for (const receiver of hanging) alertIds.push((await create(key, { name: 'hangs', query: 'type=listing.added', webhook_url: receiver.url })).id);
      const running = await deliveries({ concurrency: 4, responseTimeoutMs: timeoutMs, circuit: { timeoutsToOpen: 1_000, openMs: 60_000, maxOpenMs: 60_000 }, schedule: Array.from({ length: 50 }, () => 0) });
      try {
        await addListings(1);
        running.start();
        // the second turn has just begun: each endpoint timed out once, and holds a request again
        await until('each hanging receiver got its second request', () => hanging.every((receiver) => receiver.requests >= 2), 20_000);
        expect(running.pool.state().inFlight).toBeLessThanOrEqual(3);
        const healthyAlert = (await create(key, { name: 'healthy', query: 'type=listing.added', webhook_url: healthy.url })).id;
        alertIds.push(healthyAlert);
        const asked = Date.now();
        expect((await api.raw(`/api/v1/alerts/${healthyAlert}/test`, { method: 'POST', headers: { authorization: `Bearer ${key}` } })).status).toBe(202);
        await until('the test message arrived', () => healthy.received.length === 1, 10_000);
        // at once, not at the next timeout: half of it is a loaded machine's margin
        expect(healthy.received[0]!.at - asked).toBeLessThan(timeoutMs / 2);
      } finally {
        await Promise.all(hanging.map((receiver) => receiver.close()));
        await running.stop();
        await healthy.close();
        await remove(key, alertIds);
      }
    });

    it("parks an endpoint that keeps timing out, leaves its messages unclaimed while others flow, and delivers every one once it answers", async () => {
      let down = true;
      const parkedReceiver = await startWebhookReceiver();
      parkedReceiver.answerWith(() => (down ? 'hang' : { status: 200 }));
      const healthy = await startWebhookReceiver();
      const key = await newAccount('pro');
      const parkedAlerts: string[] = [];
      for (let i = 0; i < 4; i += 1) parkedAlerts.push((await create(key, { name: `parked ${i}`, query: 'type=listing.added', webhook_url: `${parkedReceiver.url}/${i}` })).id);
      const healthyAlert = (await create(key, { name: 'healthy', query: 'type=listing.added', webhook_url: healthy.url })).id;
      // long enough that the healthy alert's two messages fit inside the park on a loaded machine
      const openMs = 5_000;
      const running = await deliveries({ responseTimeoutMs: 300, circuit: { timeoutsToOpen: 2, openMs, maxOpenMs: 4 * openMs }, schedule: Array.from({ length: 20 }, (_, i) => (i === 0 ? 0 : 1)) });
      try {
        await addListings(1);
        running.start();
        await until('the endpoint is parked', () => running.pool.state().parked === 1, 20_000);
        const parkedAt = Date.now();
        // two timeouts in a row, one request at a time
        expect(parkedReceiver.received).toHaveLength(2);
        parkedReceiver.releaseHanging();

        // while it is parked: new matches for every alert; the healthy one's arrive, the parked endpoint gets nothing
        await addListings(1);
        await until('the healthy alert got both its messages', () => healthy.received.length === 2, 10_000);
        expect(Date.now() - parkedAt).toBeLessThan(openMs);
        expect(parkedReceiver.received).toHaveLength(2);
        expect(running.pool.state().parked).toBe(1);

        down = false;
        await until('every message of the parked endpoint was delivered', async () => {
          const rows = await statuses(parkedAlerts);
          return rows.length === 8 && rows.every((row) => row.status === 'delivered');
        }, 30_000);
        const afterPark = parkedReceiver.received.slice(2);
        // tried again only once the park was over: it began when the second request timed out
        expect(afterPark[0]!.at - parkedReceiver.received[1]!.at).toBeGreaterThanOrEqual(openMs);
        expect(running.pool.state().parked).toBe(0);
        // nothing lost: each of the 8 messages (4 alerts, 2 batches) was answered 200 once it came
        const messages = await statuses(parkedAlerts);
        expect(messages).toHaveLength(8);
        const answered = new Set(afterPark.map((request) => request.headers['webhook-id']));
        expect([...answered].sort()).toEqual(messages.map((row) => row.id).sort());
      } finally {
        parkedReceiver.releaseHanging();
        await running.stop();
        await parkedReceiver.close();
        await healthy.close();
        await remove(key, [...parkedAlerts, healthyAlert]);
      }
    });
  });
}
