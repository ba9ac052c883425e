// Alerts' delivery, written to bench/results/alert-delivery.json:
// 1. From a batch's COMMIT to its webhook received: a real `sync` process sends (every 500 ms), a
//    receiver on loopback records when each message arrives; 30 batches of one changed listing, each
//    timed from the moment importBatch returned (its COMMIT and the read-back are done).
// 2. 1,000 alerts over a 50,000-change batch: alerts with filters drawn from the feed's parameters,
//    then a batch adding 50,000 listings; the time fillOutbox takes until every alert's position is
//    past the batch (matched and queued, nothing sent).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alerts, openDatabase, sql, type Database } from '@domain-index/db';
import { seedRecords, type SourceConfig } from '@domain-index/indexer';
import { fillOutbox } from '@domain-index/alerts/outbox';
import { parseAlertQuery } from '@domain-index/alerts/alert-query';
import { newAlertId, newestEventPosition } from '@domain-index/alerts/alert-store';
import { loadWebhookSecretKey } from '@domain-index/webhooks/secret-box';
import { generateWebhookSecret } from '@domain-index/webhooks/signing';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { systemClock } from '@domain-index/runtime/clock';
import { CLI, runCli } from './dataset';
import { percentiles } from './measure';
import { BENCH } from './settings';
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';

const log = (line: string) => process.stderr.write(`${line}\n`);
const MIX = process.env.ALERT_MIX ?? 'realistic';
const url = new URL(BENCH.databaseUrl);
url.pathname = '/di_bench_alerts';
const SOURCE: SourceConfig = { id: 'bidhaus', name: 'BidHaus', everyMinutes: 1440, feed: 'unused.jsonl', format: 'jsonl' };

/** The feed of a batch: the seed's records for `rows`, each an auction ending far away. */
function records(rows: number, seed: number): Record<string, unknown>[] {
  return [...seedRecords({ rows, seed, sources: ['bidhaus'], now: new Date() })].map(({ record }) => ({ ...record, status: 'auction', auction_end_time: '2099-01-01T00:00:00.000Z' }));
}

function lines(batch: Record<string, unknown>[]): Readable {
  return Readable.from(batch.map((record) => `${JSON.stringify(record)}\n`));
}

async function freshDatabase(): Promise<Database> {
  const adminUrl = new URL(BENCH.databaseUrl);
  adminUrl.pathname = '/postgres';
  const admin = await openDatabase({ databaseUrl: adminUrl.toString(), maxConnections: 1 });
  await admin.rows(sql.raw(`drop database if exists di_bench_alerts with (force)`));
  await admin.rows(sql.raw(`create database di_bench_alerts`));
  await admin.close();
  await runCli(['migrate'], { DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' });
  return openDatabase({ databaseUrl: url.toString(), maxConnections: 4 });
}

/** An alert owned by a key of its own, stored as the API stores one. */
async function insertAlert(database: Database, keyId: string, query: string, webhookUrl: string | null, box: Awaited<ReturnType<typeof loadWebhookSecretKey>>): Promise<void> {
  const id = newAlertId();
  const parsed = parseAlertQuery(query);
  const position = await newestEventPosition(database);
  await database.db.insert(alerts).values({
    id,
    keyId,
    name: query,
    query: parsed.params,
    queryString: parsed.queryString,
    webhookUrl,
    webhookSecret: webhookUrl === null ? null : box.seal(generateWebhookSecret(), id),
    webhookPosition: position,
    digestPosition: position,
  });
}

async function latency(): Promise<Record<string, unknown>> {
  const database = await freshDatabase();
  const box = await loadWebhookSecretKey(database);
  await runCli(['keys', 'create', '--plan', 'pro', '--name', 'bench'], { DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' });
  const [{ id: keyId } = { id: '' }] = await database.rows<{ id: string }>(sql`select id from api_keys order by created_at desc limit 1`);
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(performance.now());
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const base = records(1_000, 3);
  await importBatch({ database, source: SOURCE, clock: systemClock, input: lines(base) });
  await insertAlert(database, keyId, 'type=listing.updated', receiver, box);
  await database.rows(sql`insert into source_syncs (source, last_finished_at, last_outcome, consecutive_failures) values ('bidhaus', now(), 'applied', 0) on conflict (source) do update set last_finished_at = now()`);
  const scratch = mkdtempSync(join(tmpdir(), 'di-alert-bench-'));
  const sourcesFile = join(scratch, 'sources.json');
  writeFileSync(sourcesFile, JSON.stringify([SOURCE]));
  const sync = spawn(process.execPath, [CLI, 'sync'], { env: { ...process.env, DATABASE_URL: url.toString(), SOURCES_FILE: sourcesFile, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', LOG_LEVEL: 'warn' }, stdio: 'ignore' });
  const samples: number[] = [];
  try {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    for (let round = 0; round < 30; round += 1) {
      const batch = base.map((record, i) => (i === round ? { ...record, current_bid: Number(record.current_bid ?? 0) + 1 + round } : record));
      const before = arrivals.length;
      await importBatch({ database, source: SOURCE, clock: systemClock, input: lines(batch) });
      const committed = performance.now();
      while (arrivals.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
      samples.push(arrivals[before]! - committed);
      log(`round ${round + 1}: ${Math.round(samples.at(-1)!)} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 400));
    }
  } finally {
    sync.kill('SIGTERM');
    server.close();
    await database.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  return { batches: samples.length, ...percentiles(samples), max: Math.round(Math.max(...samples)) };
}

/**
 * Alert queries drawn from the feed's parameters. `realistic` (the default): each names a suffix
 * or a term, as "a .ai name under $500 without hyphens" does, and one or two more filters;
 * `broad` (ALERT_MIX=broad): a seventh of them filter on the event type alone, a stress case where
 * most alerts match most events.
 */
function alertQuery(i: number, mix: string): string {
  const parts: string[] = [];
  const tlds = ['com', 'net', 'io', 'ai', 'co.uk', 'org'];
  const terms = ['cloud', 'data', 'home', 'shop', 'an', 'er', 'solar', 'smart'];
  if (mix === 'realistic') parts.push(i % 2 === 0 ? `tld=${tlds[(i / 2) % tlds.length]!}` : `search=${terms[((i - 1) / 2) % terms.length]!}`);
  else if (i % 2 === 0) parts.push(`tld=${tlds[i % tlds.length]!}`);
  if (i % 3 === 0) parts.push(`max_price=${100 + (i % 50) * 20}`);
  if (mix !== 'realistic' && i % 4 === 0) parts.push(`search=${terms[i % terms.length]!}`);
  if (i % 5 === 0) parts.push('no_hyphens=true');
  if (i % 7 === 0) parts.push(`min_score=${20 + (i % 50)}`);
  if (i % 6 === 1) parts.push('type=listing.added');
  if (i % 11 === 0) parts.push(`min_dr=${i % 40}`);
  return parts.join('&');
}

async function throughput(): Promise<Record<string, unknown>> {
  const database = await freshDatabase();
  const box = await loadWebhookSecretKey(database);
  await runCli(['keys', 'create', '--plan', 'pro', '--name', 'bench'], { DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' });
  const [{ id: keyId } = { id: '' }] = await database.rows<{ id: string }>(sql`select id from api_keys order by created_at desc limit 1`);
  await importBatch({ database, source: SOURCE, clock: systemClock, input: lines(records(1_000, 5)) });
  for (let i = 0; i < 1_000; i += 1) await insertAlert(database, keyId, alertQuery(i, MIX), 'https://hooks.example.com/never-sent', box);
  const batch = [...records(1_000, 5), ...records(50_000, 6).map((record, i) => ({ ...record, domain_name: `n${i}-${String(record.domain_name)}` }))];
  const summary = await importBatch({ database, source: SOURCE, clock: systemClock, input: lines(batch) });
  log(`batch: ${summary.inserted} added, ${summary.updated} updated`);
  const head = await newestEventPosition(database);
  const started = performance.now();
  let queued = 0;
  for (;;) {
    queued += await fillOutbox(database, new Date(), 600_000);
    const [behind] = await database.rows<{ n: number }>(sql`select count(*)::int as n from alerts where webhook_position < ${head}`);
    if (behind!.n === 0) break;
  }
  const seconds = (performance.now() - started) / 1000;
  const [messages] = await database.rows<{ n: number; events: string }>(sql`select count(*)::int as n, coalesce(sum(cardinality(event_ids)), 0)::text as events from webhook_deliveries`);
  await database.close();
  return { alerts: 1_000, mix: MIX, changes: summary.inserted + summary.updated, seconds: Number(seconds.toFixed(2)), messagesQueued: queued, messages: messages!.n, matchedEvents: Number(messages!.events) };
}

const previous = (() => {
  try {
    return JSON.parse(readFileSync(`${fileURLToPath(new URL('../results/', import.meta.url))}alert-delivery.json`, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
})();
const results = {
  ...previous,
  ranAt: new Date().toISOString(),
  ...(process.env.ALERT_PART !== 'fill' && { commitToWebhookMs: await latency() }),
  [MIX === 'realistic' ? 'fillThroughput' : `fillThroughput_${MIX}`]: await throughput(),
};
const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
writeFileSync(`${resultsDir}alert-delivery.json`, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
