// The benchmark: `pnpm --filter @domain-index/bench bench` (see BENCHMARKS.md). It prepares 5M
// listings, starts the real API on PostgreSQL and Redis, and measures each workload shape side
// by side with its floor (the same SQL straight to PostgreSQL) and the HTTP ceiling.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { searchQuerySchema } from '@domain-index/contract';
import { openDatabase, sql, type RenderedStatement } from '@domain-index/db';
import { lookupStatement } from '@domain-index/api/listings/lookup-query';
import { statsQueries } from '@domain-index/api/routes/stats';
import { searchConditions } from '@domain-index/listings/filters';
import type { CursorPosition } from '@domain-index/api/search/cursor';
import { cpuDuring, type CpuSplit } from './cpu';
import { ensureDataset } from './dataset';
import { diskByRelation, ensureEvents, ensureNameHistory, EVENT_DAYS, watchedNames, withDatabase } from './history';
import { floorRunner } from './floor';
import { measureImport, writeFeed } from './import-bench';
import { httpLoad, saturate, sequential, type Latency } from './measure';
import { EventCursorCodec } from '@domain-index/events/event-cursor';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { writeReport, type LoadResult, type Results, type ShapeResult } from './report';
import { benchKey, startApi, startCeiling } from './servers';
import { pageStatement } from './page-statement';
import { BENCH } from './settings';
import { DEEP_PAGE, FEED_FILTERS, SEARCH_SHAPES, type Shape } from './shapes';

const log = (line: string) => process.stderr.write(`${line}\n`);
const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
const scratch = mkdtempSync(join(tmpdir(), 'di-bench-'));

log('dataset...');
const dataset = await ensureDataset(BENCH.databaseUrl, BENCH.rows, BENCH.seed);
log(`dataset: ${dataset.listings} listings (${dataset.reused ? 'reused' : `seeded in ${dataset.seedSeconds?.toFixed(0)} s`})`);
// What a production database holds beside the listings, in the same database (history.ts).
log(`events (${BENCH.eventsPerDay} a day for ${EVENT_DAYS} days) and a year of history for ${BENCH.watched} watched names...`);
const history = await withDatabase(BENCH.databaseUrl, async (db) => {
  const eventsSeconds = await ensureEvents(db, BENCH.eventsPerDay);
  const historySeconds = await ensureNameHistory(db, BENCH.watched, dataset.listings);
  const [counts] = await db.rows<{ events: string; history: string }>(sql`select (select count(*) from listing_events)::text as events, (select count(*) from name_history)::text as history`);
  return { eventsPerDay: BENCH.eventsPerDay, days: EVENT_DAYS, events: Number(counts!.events), watched: BENCH.watched, historyRows: Number(counts!.history), eventsSeconds, historySeconds, disk: await diskByRelation(db) };
});

const key = await benchKey(BENCH.databaseUrl);
// Uncompressed, as the ceiling answers: the API's own work is compared on the same bytes, and
// what compression costs is measured on its own (compression.ts).
const headers = { Authorization: `Bearer ${key}`, 'Accept-Encoding': 'identity' };
const api = await startApi({ DATABASE_URL: BENCH.databaseUrl, REDIS_URL: BENCH.redisUrl, WORKERS: String(BENCH.workers) });
const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 10 });
const floor = floorRunner(database);
const toStatement = (query: { toSQL(): { sql: string; params: unknown[] } }): RenderedStatement => query.toSQL();

async function get(path: string, expected = 200): Promise<string> {
  const response = await fetch(`${api.url}/api/v1${path}`, { headers });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${path}: HTTP ${response.status} ${text.slice(0, 200)}`);
  return text;
}

// Stats first, while this instance's stats cache is cold.
log('stats cold...');
const statsFloorStatements = Object.values(statsQueries(database.db, new Date())).map(toStatement);
let start = performance.now();
await get('/stats');
const statsColdApi = performance.now() - start;
start = performance.now();
await floor(statsFloorStatements);
const statsColdFloor = performance.now() - start;

/** CPU of a load per request, microseconds. */
const perRequest = (cpu: CpuSplit, requests: number): CpuSplit => ({
  api: (cpu.api * 1000) / requests,
  postgres: (cpu.postgres * 1000) / requests,
  redis: (cpu.redis * 1000) / requests,
  loadGenerator: (cpu.loadGenerator * 1000) / requests,
});

/** API and floor side by side for one shape. */
async function measureShape(shape: Shape, path: string, statements: RenderedStatement[], expected = 200, floorRuns = BENCH.sequentialRequests): Promise<ShapeResult> {
  log(`shape: ${shape.name}`);
  const body = await get(path, expected);
  const apiLatency = await sequential(BENCH.sequentialRequests, async () => {
    await get(path, expected);
  });
  const floorLatency = await sequential(floorRuns, () => floor(statements));
  const { result: load, cpu } = await cpuDuring(api.pid, () => httpLoad(`${api.url}/api/v1${path}`, headers, BENCH.loadSeconds, BENCH.concurrency));
  const floorRps = await saturate(BENCH.loadSeconds, BENCH.concurrency, () => floor(statements));
  const bodyFile = join(scratch, 'body.json');
  writeFileSync(bodyFile, body);
  const ceiling = await startCeiling(bodyFile);
  const ceilingLatency = await sequential(BENCH.sequentialRequests, async () => {
    await (await fetch(`${ceiling.url}/api/v1${path}`, { headers: { 'Accept-Encoding': 'identity' } })).text();
  });
  const ceilingLoad = await httpLoad(`${ceiling.url}/api/v1${path}`, {}, BENCH.loadSeconds, BENCH.concurrency);
  await ceiling.stop();
  let total: ShapeResult['total'];
  if (shape.kind === 'search') {
    const parsed = JSON.parse(body) as { total: { value: number; accuracy: 'exact' | 'planned' } };
    total = { ...parsed.total };
    if (parsed.total.accuracy === 'planned') {
      const q = searchQuerySchema.parse(shape.query);
      const [row] = await database.rows<{ n: string }>(sql`select count(*)::text as n from listings where ${searchConditions(q, new Date())}`);
      total.trueCount = Number(row?.n);
    }
  }
  return {
    name: shape.name,
    kind: shape.kind,
    path,
    bodyBytes: Buffer.byteLength(body),
    api: apiLatency,
    floor: floorLatency,
    ceiling: ceilingLatency,
    apiRps: load.rps,
    cpuPerRequestUs: perRequest(cpu, load.requests),
    apiP99Loaded: load.p99,
    apiErrors: load.errors + load.non2xx,
    floorRps,
    ceilingRps: ceilingLoad.rps,
    total,
  };
}

/** The page statement the API sends for a query (page-statement.ts). */
async function searchStatements(query: Record<string, string>, after?: CursorPosition): Promise<RenderedStatement[]> {
  const { sql: text, params } = await pageStatement(database, query, after);
  return [{ sql: text, params }];
}

const shapes: ShapeResult[] = [];
for (const shape of SEARCH_SHAPES) {
  const query = shape.query ?? {};
  shapes.push(await measureShape(shape, `/domains?${new URLSearchParams(query).toString()}`, await searchStatements(query)));
}

// Deep paging: follow the default list's cursor chain to page 200, then time page 1 and page 200.
log('deep paging...');
let cursor: string | null = null;
for (let page = 1; page < DEEP_PAGE; page += 1) {
  const body = JSON.parse(await get(`/domains${cursor === null ? '' : `?cursor=${cursor}`}`)) as { pagination: { next_cursor: string | null } };
  cursor = body.pagination.next_cursor;
  if (cursor === null) throw new Error(`the chain ended at page ${page}`);
}
const payload = JSON.parse(Buffer.from(cursor!.split('.')[0]!, 'base64url').toString()) as [string, number | null, string, number, number];
const after: CursorPosition = { key: payload[1], name: payload[2], id: payload[3] };
const page1 = await measureShape({ name: 'default list, page 1', kind: 'deep-paging' }, '/domains', await searchStatements({}));
const page200 = await measureShape({ name: `default list, page ${DEEP_PAGE}`, kind: 'deep-paging' }, `/domains?cursor=${cursor!}`, await searchStatements({}, after));

// Lookup of an existing and a missing name.
const existing = (JSON.parse(await get('/domains?limit=10')) as { data: { domain_name: string }[] }).data[0]!.domain_name;
const lookupExisting = await measureShape({ name: `lookup existing (${existing})`, kind: 'lookup' }, `/domains/${existing}`, [lookupStatement(database, existing, new Date())]);
const lookupMissing = await measureShape({ name: 'lookup missing', kind: 'lookup' }, '/domains/not-listed-anywhere-xyz.com', [lookupStatement(database, 'not-listed-anywhere-xyz.com', new Date())], 404);
// The floor of stats is the full set of counts (seconds at 5M rows): 10 runs say enough.
const statsWarm = await measureShape({ name: 'stats (warm cache)', kind: 'stats' }, '/stats', statsFloorStatements, 200, 10);

/**
 * A request whose path changes from one to the next (a position in the change feed, a watched
 * name): at concurrency 1, then under the concurrency-32 load, with the CPU it cost.
 */
async function measureSpread(name: string, kind: string, nextPath: () => string): Promise<LoadResult> {
  log(`${kind}: ${name}`);
  const apiLatency = await sequential(BENCH.sequentialRequests, async () => {
    await get(nextPath());
  });
  const { result: load, cpu } = await cpuDuring(api.pid, () => httpLoad(`${api.url}/api/v1/`, headers, BENCH.loadSeconds, BENCH.concurrency, () => `/api/v1${nextPath()}`));
  return { name, kind, api: apiLatency, apiRps: load.rps, apiP99Loaded: load.p99, apiErrors: load.errors + load.non2xx, cpuPerRequestUs: perRequest(cpu, load.requests) };
}
const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)]!;

// The change feed: each filter read from positions drawn over its 14 days.
const codec = new EventCursorCodec(await loadCursorSecret(database));
const [ids] = await database.rows<{ min: string; max: string }>(sql`select min(id)::text as min, max(id)::text as max from listing_events`);
const position = () => codec.encode(Number(ids!.min) + Math.floor(Math.random() * (Number(ids!.max) - Number(ids!.min))));
const feed: LoadResult[] = [];
for (const [query, description] of Object.entries(FEED_FILTERS)) feed.push(await measureSpread(`${description} (${query})`, 'change feed', () => `/events?${query}&limit=50&after=${position()}`));

// A watched name's page: its listings, registration and year of history.
const watched = await watchedNames(database);
const namePage = await measureSpread('GET /names/{domain}, a watched name at random', 'name page', () => `/names/${pick(watched)}`);
const apiPeakRss = api.peakRssMiB();
await api.stop();
await database.close();

// Import throughput and memory: the same command on feeds of two sizes.
log('import...');
const feedSmall = join(scratch, 'feed-250k.jsonl');
const feedLarge = join(scratch, 'feed-1m.jsonl');
await writeFeed(feedSmall, 250_000);
await writeFeed(feedLarge, 1_000_000);
const importSmall = await measureImport(BENCH.databaseUrl, BENCH.importDatabaseUrl, feedSmall, 250_000);
const importLarge = await measureImport(BENCH.databaseUrl, BENCH.importDatabaseUrl, feedLarge, 1_000_000);
// The steady state of a sync: the same source again, most rows unchanged.
const importAgain = await measureImport(BENCH.databaseUrl, BENCH.importDatabaseUrl, feedLarge, 1_000_000, false);

// The embedded default: a fresh data directory, demo data, every shape once more.
log('embedded (PGlite)...');
const dataDir = join(scratch, 'pglite');
const embedded = await startApi({ DATA_DIR: dataDir, DATABASE_URL: '' });
const embeddedKey = /(dix_(?:live|test)_\w+)/.exec(embedded.output())?.[1];
const pglite: { name: string; p50: number; p99: number }[] = [];
const embeddedGet = async (path: string) => {
  const response = await fetch(`${embedded.url}/api/v1${path}`, { headers: { Authorization: `Bearer ${embeddedKey ?? ''}` } });
  await response.arrayBuffer();
  if (response.status >= 500 || response.status === 400) throw new Error(`${path}: ${response.status}`);
};
for (const shape of [...SEARCH_SHAPES, { name: 'lookup missing', path: '/domains/not-listed-anywhere-xyz.com', kind: 'lookup' as const }, { name: 'stats', path: '/stats', kind: 'stats' as const }]) {
  const path = shape.path ?? `/domains?${new URLSearchParams(shape.query ?? {}).toString()}`;
  const latency: Latency = await sequential(30, () => embeddedGet(path));
  pglite.push({ name: shape.name, p50: latency.p50, p99: latency.p99 });
}
await embedded.stop();
rmSync(scratch, { recursive: true, force: true });

const results: Results = {
  ranAt: new Date().toISOString(),
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
  settings: { ...BENCH, databaseUrl: new URL(BENCH.databaseUrl).pathname, importDatabaseUrl: new URL(BENCH.importDatabaseUrl).pathname },
  dataset,
  shapes,
  deepPaging: { page1, page200, ratioP50: Math.round((page200.api.p50 / page1.api.p50) * 100) / 100 },
  lookup: { existing: lookupExisting, missing: lookupMissing },
  stats: { coldApiMs: Math.round(statsColdApi), coldFloorMs: Math.round(statsColdFloor), warm: statsWarm },
  history,
  feed,
  namePage,
  apiPeakRssMiB: Math.round(apiPeakRss),
  import: { small: importSmall, large: importLarge, again: importAgain },
  pglite,
};
writeFileSync(join(resultsDir, BENCH.resultsFile), `${JSON.stringify(results, null, 2)}\n`);
// A run against another commit (BENCH_RESULTS_FILE) is compared in BENCHMARKS.md, not reported on its own.
if (process.env.BENCH_RESULTS_FILE === undefined) writeReport(resultsDir);
log(`done: bench/results/${BENCH.resultsFile}, BENCHMARKS.md, bench/results/latency.svg`);
