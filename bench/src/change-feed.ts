// The change feed's cost and speed, written to bench/results/change-feed[-<N>m].json:
//
// 1. What the event log costs a sync: `BEFORE_CLI=<checkout before the feed>/apps/cli/bin/domain-index.js`
//    and this checkout's CLI take turns importing a 1,000,000-row source with 5% of its rows changed, in
//    one database holding BENCH_ROWS other listings (5M by default; BENCH_ROWS=20000000 for 20M). Each
//    turn undoes the other's 5% (feed A, then B, then A ...), so every import switches the same amount,
//    end to end (process start to exit), in alternating order.
// 2. GET /api/v1/events with filters over 14 days of events at the 20M index's change rate (EVENTS_PER_DAY,
//    1,000,000 by default: 5% of 20M listings changed a day), generated straight into the events table of
//    a database of its own, read through the real `serve` one request at a time: p50/p90/p99 per filter,
//    each request from a position drawn at random over the 14 days.
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, sql } from '@domain-index/db';
import { DEFAULT_SOURCES } from '@domain-index/indexer';
import { EventCursorCodec } from '@domain-index/events/event-cursor';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { CLI, ensureDatabaseExists, ensureDataset, runCli } from './dataset';
import { measureImport, writeFeed, type ImportResult } from './import-bench';
import { percentiles, type Latency } from './measure';
import { EVENT_DAYS, ensureEvents, withDatabase } from './history';
import { benchKey, startApi } from './servers';
import { BENCH } from './settings';
import { FEED_FILTERS } from './shapes';

const log = (line: string) => process.stderr.write(`${line}\n`);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SOURCE_ROWS = 1_000_000;
const EVENTS_PER_DAY = Number(process.env.EVENTS_PER_DAY ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const only = process.env.CHANGE_FEED_PART;
const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
const resultsFile = `${resultsDir}change-feed${BENCH.rows === 5_000_000 ? '' : `-${BENCH.rows / 1_000_000}m`}.json`;
const results: Record<string, unknown> = (() => {
  try {
    return JSON.parse(readFileSync(resultsFile, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
})();

/** The feed with 5% of its rows at another price: every 20th line's current_bid + 1 (streamed: the feed is over 512 MB). */
async function changedCopy(from: string, to: string): Promise<void> {
  const out = createWriteStream(to);
  let i = 0;
  for await (const line of createInterface({ input: createReadStream(from), crlfDelay: Infinity })) {
    let text = line;
    if (line !== '' && i % 20 === 0) {
      const record = JSON.parse(line) as { current_bid?: number | null };
      record.current_bid = (record.current_bid ?? 0) + 1;
      text = JSON.stringify(record);
    }
    i += 1;
    if (!out.write(`${text}\n`)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
}

async function syncOverhead(): Promise<void> {
  const before = process.env.BEFORE_CLI;
  if (before === undefined) throw new Error('BEFORE_CLI must name the domain-index.js of the checkout before the change feed');
  const dataset = await ensureDataset(BENCH.databaseUrl, BENCH.rows, BENCH.seed);
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? NaN;
  log(`index: ${dataset.listings} listings (${dataset.reused ? 'reused' : `seeded in ${Math.round(dataset.seedSeconds ?? 0)} s`})`);
  const scratch = mkdtempSync(join(tmpdir(), 'di-change-feed-'));
  try {
    const a = join(scratch, 'a.jsonl');
    const b = join(scratch, 'b.jsonl');
    await writeFeed(a, SOURCE_ROWS, 99, 'bidhaus2');
    await changedCopy(a, b);
    // a sixth marketplace beside the seeded five, holding exactly the feed's million
    const sourcesFile = join(scratch, 'sources.json');
    writeFileSync(sourcesFile, JSON.stringify([...DEFAULT_SOURCES, { id: 'bidhaus2', name: 'Bench', everyMinutes: 60, format: 'jsonl', feed: a }]));
    const env = { SOURCES_FILE: sourcesFile };
    const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
    await database.rows(sql`delete from listings where source = 'bidhaus2'`);
    await database.rows(sql`delete from source_batches where source = 'bidhaus2'`);
    await database.close();
    // the source's first batch (source.loaded), not measured
    await runCli(['import', '--source', 'bidhaus2', a], { DATABASE_URL: BENCH.databaseUrl, LOG_LEVEL: 'warn', ...env });
    const measured: Record<'before' | 'after', ImportResult[]> = { before: [], after: [] };
    let next = b;
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const side of round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)) {
        const result = await measureImport(BENCH.databaseUrl, BENCH.databaseUrl, next, SOURCE_ROWS, false, { source: 'bidhaus2', env, cli: side === 'before' ? before : CLI });
        log(`round ${round + 1} ${side}: ${result.seconds} s`);
        measured[side].push(result);
        next = next === b ? a : b;
      }
    }
    results.syncOverhead = {
      ranAt: new Date().toISOString(),
      listings: dataset.listings,
      sourceRows: SOURCE_ROWS,
      changedShare: 0.05,
      rounds: ROUNDS,
      before: measured.before.map((r) => r.seconds),
      after: measured.after.map((r) => r.seconds),
      medianRatio: Number((median(measured.after.map((r) => r.seconds)) / median(measured.before.map((r) => r.seconds))).toFixed(3)),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The events database: migrated, holding EVENT_DAYS days of events at EVENTS_PER_DAY (history.ts). */
async function generateEvents(url: string): Promise<void> {
  await ensureDatabaseExists(url);
  await runCli(['migrate'], { DATABASE_URL: url, LOG_LEVEL: 'warn' });
  await withDatabase(url, (database) => ensureEvents(database, EVENTS_PER_DAY));
}

async function feedLatency(): Promise<void> {
  const url = new URL(BENCH.databaseUrl);
  url.pathname = '/di_bench_events';
  await generateEvents(url.toString());
  const database = await openDatabase({ databaseUrl: url.toString(), maxConnections: 1 });
  const codec = new EventCursorCodec(await loadCursorSecret(database));
  const [range] = await database.rows<{ min: string; max: string; size: string }>(
    sql`select min(id)::text as min, max(id)::text as max, (select sum(pg_total_relation_size(inhrelid)) from pg_inherits where inhparent = 'listing_events'::regclass)::text as size from listing_events`,
  );
  await database.close();
  const key = await benchKey(url.toString());
  const api = await startApi({ DATABASE_URL: url.toString(), HOST: '127.0.0.1', WORKERS: '1' });
  const base = api.url;
  const perFilter: Record<string, Latency & { description: string; eventsPerPage: number }> = {};
  try {
    const min = Number(range!.min);
    const max = Number(range!.max);
    for (const [query, description] of Object.entries(FEED_FILTERS)) {
      const samples: number[] = [];
      let returned = 0;
      for (let i = 0; i < REQUESTS; i += 1) {
        const after = codec.encode(min + Math.floor(Math.random() * (max - min)));
        const started = performance.now();
        const response = await fetch(`${base}/api/v1/events?${query}&limit=50&after=${after}`, { headers: { authorization: `Bearer ${key}` } });
        const body = (await response.json()) as { data: unknown[] };
        samples.push(performance.now() - started);
        if (response.status !== 200) throw new Error(`${query}: ${response.status}`);
        returned += body.data.length;
      }
      perFilter[query] = { ...percentiles(samples), description, eventsPerPage: Number((returned / REQUESTS).toFixed(1)) };
      log(`${query}: p50 ${perFilter[query].p50.toFixed(1)} ms`);
    }
  } finally {
    await api.stop();
  }
  results.feedLatency = { ranAt: new Date().toISOString(), eventsPerDay: EVENTS_PER_DAY, days: EVENT_DAYS, events: EVENTS_PER_DAY * EVENT_DAYS, tableBytes: Number(range!.size), requestsPerFilter: REQUESTS, perFilter };
}

if (only === undefined || only === 'sync') await syncOverhead();
if (only === undefined || only === 'feed') await feedLatency();
mkdirSync(resultsDir, { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
