import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { WEBHOOK_URL_REFUSED, type Alert, type Event } from '@domain-index/contract';
import { sql } from '@domain-index/db';
import { createTestDatabase, postgresTestEngine, testEngines, type TestDatabase } from '@domain-index/db/testing';
import type { SourceConfig } from '@domain-index/indexer';
import { simpleParser } from 'mailparser';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertContext } from '@domain-index/alerts/alert-deps';
import { deliveryTask } from '@domain-index/worker/alerts/delivery-worker';
import { createAccount } from '@domain-index/accounts/account-store';
import { createKey } from '@domain-index/accounts/key-store';
import { systemClock } from '@domain-index/runtime/clock';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { createLogger, type Logger } from '@domain-index/runtime/logger';
import { loadConfig } from '@domain-index/config/config';
import { Mailer } from '@domain-index/mail/mailer';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { parseAllowedHosts, type AllowList } from '@domain-index/webhooks/address-rules';
import type { Resolver } from '@domain-index/webhooks/safe-request';
import { jsonlFeed } from '@domain-index/test-support/feeds';
import { startCommand } from './support/processes';
import { until } from '@domain-index/test-support/waiting';
import { startSmtpSink } from '@domain-index/test-support/smtp-sink-process';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';
import { startWebhookReceiver, type WebhookReceiver } from '@domain-index/test-support/webhook-receiver';

type Created = Alert & { webhook_secret: string };
interface Payload {
  type: 'events' | 'test';
  alert_id: string;
  events: Event[];
}

const SOURCE: SourceConfig = { id: 'alpha', name: 'alpha', everyMinutes: 60, feed: 'alpha.jsonl', format: 'jsonl' };
const listing = (name: string, price: number) => ({ domain_name: name, status: 'auction', current_bid: price, auction_end_time: '2099-01-01T00:00:00.000Z' });
const allow = (value: string): AllowList => {
  const parsed = parseAllowedHosts(value);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.allowList;
};
const silent = createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() }));

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`webhook delivery on ${engine}`, () => {
    let test: TestDatabase;
    let api: RunningApi;
    let key: string;
    let receiver: WebhookReceiver;
    const loopback = allow('127.0.0.1');
    let names = 0;

    /** The delivery as the worker runs it, with a short retry schedule and disable window. */
    async function deliveries(options: { schedule?: number[]; disableAfterMs?: number; allowList?: AllowList; resolve?: Resolver; mailer?: Mailer; logger?: Logger } = {}) {
      const context = new AlertContext(test.database, { allowList: options.allowList ?? loopback });
      return deliveryTask({
        database: test.database,
        clock: systemClock,
        logger: options.logger ?? silent,
        publicUrl: 'http://127.0.0.1',
        secret: await loadCursorSecret(test.database),
        secretBox: () => context.secretBox(),
        allowList: options.allowList ?? loopback,
        schedule: options.schedule ?? [0, 1, 1],
        disableAfterMs: options.disableAfterMs ?? 3_600_000,
        ...(options.resolve !== undefined && { resolve: options.resolve }),
        ...(options.mailer !== undefined && { mailer: options.mailer }),
      });
    }
    const create = async (body: Record<string, unknown>) => {
      const response = await api.raw('/api/v1/alerts', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(response.status).toBe(201);
      return (await response.json()) as Created;
    };
    const get = async (id: string) => (await (await api.raw(`/api/v1/alerts/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as Alert;
    /** A batch that adds `count` new listings to the index: `count` listing.added events. */
    const addListings = async (count: number, price = 10) => {
      const existing = await test.database.rows<{ domain_name: string }>(sql`select domain_name from listings where source = 'alpha'`);
      const added = Array.from({ length: count }, () => listing(`wh${(names += 1)}.com`, price));
      const summary = await importBatch({ database: test.database, source: SOURCE, clock: systemClock, input: jsonlFeed([...existing.map((row) => listing(row.domain_name, price)), ...added]) });
      expect(summary.outcome).toBe('applied');
      return added.map((record) => record.domain_name);
    };

    beforeAll(async () => {
      test = await createTestDatabase(engine);
      api = await startApi(engine, { test, sources: [SOURCE], overrides: { alerts: { allowList: loopback } } });
      const account = await createAccount(test.database, { email: 'hooks@example.com', planId: 'pro', at: new Date() });
      key = (await createKey(test.database, { planId: 'pro', environment: 'live', accountId: account.id })).key;
      // the source's first batch: a source.loaded, which these alerts do not ask for
      await importBatch({ database: test.database, source: SOURCE, clock: systemClock, input: jsonlFeed([listing('first.com', 1)]) });
      receiver = await startWebhookReceiver();
    });
    afterAll(async () => {
      await receiver.close();
      await api.close();
      await test.dispose();
    });

    it('delivers 250 matches as 3 signed messages in commit order, each verified by the standardwebhooks package', async () => {
      receiver.received.length = 0;
      receiver.answerWith(() => ({ status: 200, body: '{"ok":true}' }));
      const alert = await create({ name: 'new names', query: 'type=listing.added&max_price=50', webhook_url: receiver.url });
      const added = await addListings(250);
      const task = await deliveries();
      await until('three messages arrived', async () => {
        await task.run();
        return receiver.received.length >= 3;
      });
      const verifier = new Webhook(alert.webhook_secret);
      const payloads = receiver.received.map((request) => verifier.verify(request.body, request.headers as Record<string, string>) as Payload);
      expect(payloads.map((payload) => payload.events.length)).toEqual([100, 100, 50]);
      expect(payloads.every((payload) => payload.type === 'events' && payload.alert_id === alert.id)).toBe(true);
      const delivered = payloads.flatMap((payload) => payload.events);
      expect(delivered.map((event) => event.data.object!.domain_name).sort()).toEqual([...added].sort());
      const ids = delivered.map((event) => Number(event.id.slice(4)));
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      // what a receiver must refuse
      const [first] = receiver.received;
      const headers = first!.headers as Record<string, string>;
      expect(() => verifier.verify(first!.body.replace('"listing.added"', '"listing.removed"'), headers)).toThrow();
      expect(() => verifier.verify(first!.body, { ...headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 600) })).toThrow();
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(first!.body, headers)).toThrow();
      expect((await get(alert.id)).last_delivery).toMatchObject({ status: 'delivered', attempts: 1 });
      await api.raw(`/api/v1/alerts/${alert.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    });

    it('still delivers, with Basic authentication, to a URL stored with credentials before they were refused, and never shows them', async () => {
      receiver.received.length = 0;
      receiver.answerWith(() => ({ status: 200 }));
      const alert = await create({ name: 'legacy credentials', query: 'type=listing.added', webhook_url: receiver.url });
      const withCredentials = receiver.url.replace('http://', 'http://legacy:hunter2@');
      await test.database.db.execute(sql`update alerts set webhook_url = ${withCredentials} where id = ${alert.id}`);
      await addListings(1);
      const task = await deliveries();
      await until('the message arrived', async () => {
        await task.run();
        return receiver.received.length >= 1;
      });
      expect(receiver.received[0]!.headers.authorization).toBe(`Basic ${Buffer.from('legacy:hunter2').toString('base64')}`);
      const shown = await (await api.raw(`/api/v1/alerts/${alert.id}`, { headers: { authorization: `Bearer ${key}` } })).text();
      expect(shown).toContain('http://***:***@127.0.0.1:');
      expect(shown).not.toContain('hunter2');
      await api.raw(`/api/v1/alerts/${alert.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    });

    it('sends a message again with the same webhook-id after 500, 500, then never after the 200', async () => {
      receiver.received.length = 0;
      receiver.answerWith((index) => (index < 2 ? { status: 500, body: 'busy' } : { status: 200 }));
      const alert = await create({ name: 'retried', query: 'type=listing.added', webhook_url: receiver.url });
      await addListings(1);
      const task = await deliveries({ schedule: [0, 1, 1, 1] });
      await until('the third attempt succeeded', async () => {
        await task.run();
        return receiver.received.length >= 3;
      });
      // the schedule would have allowed more attempts: none comes after the success
      const settled = Date.now() + 2_500;
      while (Date.now() < settled) await task.run();
      expect(receiver.received).toHaveLength(3);
      expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(1);
      const log = (await (await api.raw(`/api/v1/alerts/${alert.id}/deliveries`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { http_status: number; response: string }[] };
      expect(log.data.map((attempt) => attempt.http_status)).toEqual([200, 500, 500]);
      expect(log.data[1]!.response).toBe('busy');
      await api.raw(`/api/v1/alerts/${alert.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    });

    it('disables a webhook whose every attempt fails for the disable window, and one answered 410 at once; nothing is sent after', async () => {
      receiver.received.length = 0;
      receiver.answerWith(() => ({ status: 503, headers: { 'retry-after': '0' } }));
      const failing = await create({ name: 'down', query: 'type=listing.added', webhook_url: receiver.url });
      await addListings(1);
      // with SMTP configured, the owner is told by mail as well as in the dashboard
      const sink = await startSmtpSink({ user: 'hooks', password: 'notice' });
      const { mail } = loadConfig({ SMTP_URL: `smtp://hooks:notice@127.0.0.1:${sink.port}`, SMTP_FROM: 'Domain Index <alerts@example.com>' });
      const mailer = new Mailer({ ...mail!, logger: silent });
      const task = await deliveries({ schedule: [0, 1, 1, 1, 1, 1, 1], disableAfterMs: 1_500, mailer });
      await until('the webhook is disabled', async () => {
        await task.run();
        return (await get(failing.id)).webhook_state === 'disabled';
      });
      expect((await get(failing.id)).webhook_disabled_reason).toMatch(/^every attempt has failed since 20\d\d-/);
      await sink.waitForMessages(1);
      const notice = await simpleParser(sink.messages[0]!.raw);
      expect(sink.messages[0]!.to).toEqual(['hooks@example.com']);
      expect(notice.subject).toBe('Webhook turned off: alert "down"');
      expect(notice.text).toContain('is turned off: every attempt has failed since');
      expect(notice.text).toContain(`http://127.0.0.1/dashboard/alerts/${failing.id}`);
      const count = receiver.received.length;
      await addListings(1);
      for (let i = 0; i < 5; i += 1) await task.run();
      expect(receiver.received).toHaveLength(count);
      await api.raw(`/api/v1/alerts/${failing.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });

      receiver.answerWith(() => ({ status: 410 }));
      const gone = await create({ name: 'gone', query: 'type=listing.added', webhook_url: receiver.url });
      await addListings(1);
      await until('the 410 disabled it', async () => {
        await task.run();
        return (await get(gone.id)).webhook_state === 'disabled';
      });
      expect((await get(gone.id)).webhook_disabled_reason).toBe('the receiver answered 410 Gone');
      await sink.waitForMessages(2);
      expect((await simpleParser(sink.messages[1]!.raw)).text).toContain('is turned off: the receiver answered 410 Gone.');
      mailer.close();
      await sink.stop();
      await api.raw(`/api/v1/alerts/${gone.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    });

    it('refuses at send a name that resolved to an allowed address when saved and now resolves to a private one, without connecting, and logs for its owner only the generic refusal', async () => {
      receiver.received.length = 0;
      receiver.answerWith(() => ({ status: 200 }));
      const port = new URL(receiver.url).port;
      let answer = '127.0.0.1';
      const resolve: Resolver = (hostname) => Promise.resolve(hostname === 'hooks.test' ? [{ address: answer, family: 4 }] : []);
      const ranges = allow('127.0.0.0/8');
      const rebinding = await startApi(engine, { test, sources: [SOURCE], overrides: { alerts: { allowList: ranges, resolve } } });
      const response = await rebinding.raw('/api/v1/alerts', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'rebinding', query: 'type=listing.added', webhook_url: `http://hooks.test:${port}/hook` }),
      });
      expect(response.status).toBe(201);
      const alert = (await response.json()) as Created;
      answer = '10.0.0.1';
      await addListings(1);
      const lines: string[] = [];
      const logger = createLogger('warn', new Writable({
          write: (chunk: Buffer, _encoding, done) => {
            lines.push(chunk.toString('utf8'));
            done();
          },
        }));
      const task = await deliveries({ allowList: ranges, resolve, schedule: [0, 60], logger });
      await until('the attempt was recorded', async () => {
        await task.run();
        return (await get(alert.id)).last_delivery?.attempts === 1;
      });
      const log = (await (await rebinding.raw(`/api/v1/alerts/${alert.id}/deliveries`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { http_status: number | null; error: string | null }[] };
      expect(log.data[0]).toMatchObject({ http_status: null, error: WEBHOOK_URL_REFUSED });
      expect(JSON.stringify(log)).not.toContain('10.0.0.1');
      // the operator's log line says which address refused it
      expect(lines.join('')).toContain('hooks.test resolves to 10.0.0.1, a private address (10.0.0.0/8)');
      expect(receiver.received).toHaveLength(0);
      await rebinding.close();
      await api.raw(`/api/v1/alerts/${alert.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    });
  });
}

const postgres = postgresTestEngine();

describe.skipIf(postgres.skip)('webhook delivery across a killed sender, on PostgreSQL', () => {
  it('delivers every event at least once after the sending process is SIGKILLed mid-send, and a receiver that drops repeated webhook-ids sees each once', async () => {
    const test = await createTestDatabase('postgres');
    const dir = mkdtempSync(join(tmpdir(), 'di-webhook-kill-'));
    const receiver = await startWebhookReceiver();
    const sourcesFile = join(dir, 'sources.json');
    // a source the worker never finds due (its feed is not read): the process only delivers
    writeFileSync(sourcesFile, JSON.stringify([{ id: 'alpha', name: 'alpha', everyMinutes: 1440, format: 'jsonl', feed: join(dir, 'none.jsonl') }]));
    const env = { DATABASE_URL: test.url!, SOURCES_FILE: sourcesFile, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1,1,1,1', LOG_LEVEL: 'warn' };
    try {
      await test.database.rows(sql`insert into source_syncs (source, last_finished_at, last_outcome, consecutive_failures) values ('alpha', now(), 'applied', 0)`);
      const account = await createAccount(test.database, { email: 'kill@example.com', planId: 'pro', at: new Date() });
      const key = (await createKey(test.database, { planId: 'pro', environment: 'live', accountId: account.id })).key;
      await importBatch({ database: test.database, source: SOURCE, clock: systemClock, input: jsonlFeed([listing('first.com', 1)]) });
      const api = await startApi('postgres', { test, sources: [SOURCE], overrides: { alerts: { allowList: allow('127.0.0.1') } } });
      const created = await api.raw('/api/v1/alerts', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'kill', query: 'type=listing.added', webhook_url: receiver.url }),
      });
      const alert = (await created.json()) as Created;
      await api.close();
      const added = Array.from({ length: 350 }, (_, i) => listing(`kill${i}.com`, 5));
      await importBatch({ database: test.database, source: SOURCE, clock: systemClock, input: jsonlFeed([listing('first.com', 1), ...added]) });

      // the receiver hangs: the first message is in flight when the sender is killed
      receiver.answerWith(() => 'hang');
      const first = startCommand(['sync'], env);
      await until('a message is in flight', () => receiver.received.length >= 1, 60_000);
      first.child.kill('SIGKILL');
      await first.exited;
      receiver.releaseHanging();
      receiver.answerWith(() => ({ status: 200 }));
      const second = startCommand(['sync'], env);
      try {
        await until('every message was delivered', async () => {
          const [row] = await test.database.rows<{ pending: number }>(sql`select count(*)::int as pending from webhook_deliveries where status <> 'delivered'`);
          return row!.pending === 0 && receiver.received.length >= 4;
        }, 30_000);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
      const verifier = new Webhook(alert.webhook_secret);
      const seen = new Map<string, Payload>();
      for (const request of receiver.received) {
        const payload = verifier.verify(request.body, request.headers as Record<string, string>) as Payload;
        seen.set(String(request.headers['webhook-id']), payload);
      }
      // at least once: the killed message came again, with its webhook-id
      expect(receiver.received.length).toBeGreaterThan(seen.size);
      const names = [...seen.values()].flatMap((payload) => payload.events.map((event) => event.data.object!.domain_name));
      expect(names).toHaveLength(350);
      expect(new Set(names).size).toBe(350);
      expect(names.sort()).toEqual(added.map((record) => record.domain_name).sort());
    } finally {
      await receiver.close();
      await test.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

