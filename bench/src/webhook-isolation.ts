// Webhook deliveries per second beside receivers that never answer, written to
// bench/results/webhook-isolation.json. In one run, side by side: 20 healthy endpoints (loopback
// receivers answering 200 at once, an alert each with 600 messages queued) beside 0, 10, 100 and
// 300 hanging endpoints (loopback receivers that accept and never answer, an alert each with 5
// messages queued ahead of the healthy ones), sent by the real DeliveryPool with its defaults
// (128 in flight, a quarter kept for endpoints that answer, 3 s connect, 10 s to the headers,
// 15 s in all), for WINDOW_S seconds each; then 100 hanging again with WEBHOOK_CONCURRENCY=32,
// the default before. Loopback only; each scenario is bounded by its window and the pool's stop
// (at most one response timeout). The 300 runs three windows long.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { alerts, migrateDatabase, openDatabase, sql, webhookDeliveries, type Database } from '@domain-index/db';
import { DeliveryPool } from '@domain-index/worker/alerts/delivery-pool';
import { DEFAULT_CONCURRENCY } from '@domain-index/alerts/endpoints';
import { newAlertId } from '@domain-index/alerts/alert-store';
import { parseAlertQuery } from '@domain-index/alerts/alert-query';
import { createKey } from '@domain-index/accounts/key-store';
import { systemClock } from '@domain-index/runtime/clock';
import { createLogger } from '@domain-index/runtime/logger';
import { parseAllowedHosts } from '@domain-index/webhooks/address-rules';
import { loadWebhookSecretKey, type SecretBox } from '@domain-index/webhooks/secret-box';
import { generateWebhookId, generateWebhookSecret } from '@domain-index/webhooks/signing';
import { BENCH } from './settings';

const WINDOW_S = Number(process.env.WEBHOOK_BENCH_SECONDS ?? 20);
const HEALTHY = 20;
const HEALTHY_MESSAGES = 600;
const HANGING_MESSAGES = 5;
const log = (line: string) => process.stderr.write(`${line}\n`);
const silent = createLogger(
  process.env.LOG_LEVEL === 'error' ? 'error' : 'silent',
  new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      process.stderr.write(chunk);
      done();
    },
  }),
);
const allowed = parseAllowedHosts('127.0.0.1');
if (!allowed.ok) throw new Error(allowed.reason);
const { allowList } = allowed;
const url = new URL(BENCH.databaseUrl);
url.pathname = '/di_bench_webhooks';

async function freshDatabase(): Promise<Database> {
  const adminUrl = new URL(BENCH.databaseUrl);
  adminUrl.pathname = '/postgres';
  const admin = await openDatabase({ databaseUrl: adminUrl.toString(), maxConnections: 1 });
  await admin.rows(sql.raw('drop database if exists di_bench_webhooks with (force)'));
  await admin.rows(sql.raw('create database di_bench_webhooks'));
  await admin.close();
  const database = await openDatabase({ databaseUrl: url.toString() });
  await migrateDatabase(database);
  return database;
}

/** A loopback receiver: `hang` accepts and never answers, else 200 at once; counts what it got. */
async function receiver(hang: boolean): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    requests += 1;
    req.resume();
    if (hang) held.push(res);
    else req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An alert on `webhookUrl` with `messages` messages due now, queued at `at`. */
async function alertWithMessages(database: Database, box: SecretBox, keyId: string, webhookUrl: string, messages: number, at: Date): Promise<string> {
  const id = newAlertId();
  const parsed = parseAlertQuery('type=listing.added');
  await database.db.insert(alerts).values({ id, keyId, name: 'bench', query: parsed.params, queryString: parsed.queryString, webhookUrl, webhookSecret: box.seal(generateWebhookSecret(), id), webhookPosition: 0, digestPosition: 0 });
  const rows = Array.from({ length: messages }, () => ({ id: generateWebhookId(), alertId: id, kind: 'events', eventIds: [], status: 'pending', nextAttemptAt: at, createdAt: at }));
  for (let i = 0; i < rows.length; i += 500) await database.db.insert(webhookDeliveries).values(rows.slice(i, i + 500));
  return id;
}

async function scenario(database: Database, box: SecretBox, keyId: string, hangingCount: number, concurrency: number | undefined, windowS: number): Promise<Record<string, unknown>> {
  await database.rows(sql`truncate webhook_attempts, webhook_deliveries, alerts cascade`);
  const hanging = await Promise.all(Array.from({ length: hangingCount }, () => receiver(true)));
  const healthy = await Promise.all(Array.from({ length: HEALTHY }, () => receiver(false)));
  const at = new Date();
  // the hanging endpoints' messages first: every claim meets them before the healthy ones
  for (const target of hanging) await alertWithMessages(database, box, keyId, target.url, HANGING_MESSAGES, at);
  for (const target of healthy) await alertWithMessages(database, box, keyId, target.url, HEALTHY_MESSAGES, at);
  // fresh statistics, as autovacuum would soon have them: on the empty table's, the claim's plan scans every pending message for each
  await database.rows(sql`analyze webhook_deliveries, alerts`);
  let delivered = 0;
  let timedOut = 0;
  const perSecond: number[] = [];
  const pool = new DeliveryPool(database, {
    secretBox: () => Promise.resolve(box),
    allowList,
    schedule: [0, 5, 300, 1800],
    disableAfterMs: 5 * 86_400_000,
    clock: systemClock,
    logger: silent,
    ...(concurrency !== undefined && { concurrency }),
    onOutcome: (outcome) => {
      if (outcome === 'delivered') delivered += 1;
      else timedOut += 1;
    },
  });
  const started = performance.now();
  pool.start();
  let mostParked = 0;
  for (let second = 1; second <= windowS; second += 1) {
    const before = delivered;
    await new Promise((resolve) => setTimeout(resolve, started + second * 1000 - performance.now()));
    perSecond.push(delivered - before);
    mostParked = Math.max(mostParked, pool.state().parked);
  }
  const seconds = (performance.now() - started) / 1000;
  const inWindow = delivered;
  const failedInWindow = timedOut;
  // the hanging receivers close first: their requests fail at once and the pool stops without waiting out their timeouts
  await Promise.all(hanging.map((target) => target.close()));
  await pool.stop();
  await Promise.all(healthy.map((target) => target.close()));
  const sorted = [...perSecond].sort((a, b) => a - b);
  const result = {
    hangingEndpoints: hangingCount,
    concurrency: concurrency ?? DEFAULT_CONCURRENCY,
    windowSeconds: Number(seconds.toFixed(1)),
    delivered: inWindow,
    deliveriesPerSecond: Number((inWindow / seconds).toFixed(1)),
    medianPerSecond: sorted[Math.floor(sorted.length / 2)] ?? 0,
    secondsWithNoDelivery: perSecond.filter((count) => count === 0).length,
    firstDeliveryInSecond: perSecond.findIndex((count) => count > 0) + 1 || undefined,
    failedAttempts: failedInWindow,
    hangingRequests: hanging.reduce((sum, target) => sum + target.requests(), 0),
    mostParked,
    perSecond,
  };
  log(JSON.stringify({ ...result, perSecond: perSecond.join(' ') }));
  return result;
}

const database = await freshDatabase();
const box = await loadWebhookSecretKey(database);
const { id: keyId } = await createKey(database, { planId: 'pro', environment: 'live' });
const scenarios: Record<string, unknown>[] = [];
// 300 hanging, more than the slots: a longer window, to see when the healthy endpoints' turn comes
for (const [hanging, concurrency, windowS] of [[0, undefined, WINDOW_S], [10, undefined, WINDOW_S], [100, undefined, WINDOW_S], [300, undefined, 3 * WINDOW_S], [100, 32, WINDOW_S]] as const) {
  scenarios.push(await scenario(database, box, keyId, hanging, concurrency, windowS));
}
await database.close();
const results = { ranAt: new Date().toISOString(), healthyEndpoints: HEALTHY, healthyMessagesEach: HEALTHY_MESSAGES, hangingMessagesEach: HANGING_MESSAGES, scenarios };
const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
writeFileSync(`${resultsDir}webhook-isolation.json`, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exit(0);
