// Issue 20's levers, each measured on its own, in this process, side by side in alternating
// rounds: `pnpm --filter @domain-index/bench levers`.
// 1. Serialising a real search page (50 and 200 rows): JSON.stringify against the serializer
//    compiled from the contract's response schema (apps/api/src/wire/compiled-json.ts).
// 2. The page statement of every search shape: built and rendered by Drizzle on each request,
//    against built with placeholders and filled into the shape's cached text (page-statements.ts).
// CPU time of this process per operation (process.cpuUsage), medians of the rounds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { searchQuerySchema, type ListEnvelope, type SearchQuery } from '@domain-index/contract';
import { openDatabase } from '@domain-index/db';
import { META } from '@domain-index/api/http/meta';
import { searchConditions } from '@domain-index/listings/filters';
import { resolveOrdering, type Ordering } from '@domain-index/api/search/ordering';
import { pageQuery, pageRows } from '@domain-index/api/search/page-query';
import { PageStatements } from '@domain-index/api/search/page-statements';
import { pageStrategy, type PageStrategy } from '@domain-index/api/search/page-strategy';
import { serializeListEnvelope } from '@domain-index/api/wire/compiled-json';
import { ensureDataset } from './dataset';
import { BENCH } from './settings';
import { SEARCH_SHAPES } from './shapes';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const log = (line: string) => process.stderr.write(`${line}\n`);

/** CPU microseconds per call of `once`, over `runs` calls after a warm-up. */
function cpuPerCall(runs: number, once: () => unknown): number {
  for (let i = 0; i < Math.min(200, runs); i += 1) once();
  const started = process.cpuUsage();
  for (let i = 0; i < runs; i += 1) once();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / runs;
}
/**
 * CPU microseconds per call of the old way and the new way, medians of ROUNDS rounds that
 * alternate which goes first.
 */
function sideBySide(runs: number, old: () => unknown, next: () => unknown): [number, number] {
  const olds: number[] = [];
  const nexts: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    if (round % 2 === 0) {
      olds.push(cpuPerCall(runs, old));
      nexts.push(cpuPerCall(runs, next));
    } else {
      nexts.push(cpuPerCall(runs, next));
      olds.push(cpuPerCall(runs, old));
    }
  }
  return [round1(median(olds)), round1(median(nexts))];
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round1 = (value: number) => Math.round(value * 10) / 10;

const dataset = await ensureDataset(BENCH.databaseUrl, BENCH.rows, BENCH.seed);
log(`dataset: ${dataset.listings} listings`);
const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 2 });
const now = new Date();

/** A first page's statement, built and rendered by Drizzle, as before the statement cache. */
const renderedPage = (q: SearchQuery, ordering: Ordering, strategy: PageStrategy) =>
  pageQuery(
    database,
    searchConditions(q, now),
    ordering,
    undefined,
    q.limit,
    now,
    strategy,
  ).toSQL();

// 1. Serialising real pages.
const serializing: {
  page: string;
  bytes: number;
  stringifyUs: number;
  compiledUs: number;
  ratio: number;
}[] = [];
for (const limit of [50, 200]) {
  const q = searchQuerySchema.parse({ status: 'all', limit: String(limit) });
  const ordering = resolveOrdering(q);
  const rows = await pageRows(database, renderedPage(q, ordering, pageStrategy(q, ordering)));
  const body: ListEnvelope = {
    object: 'list',
    data: rows.slice(0, limit).map((row) => row.domain),
    pagination: { page_size: limit, page_index: 0, next_cursor: 'x'.repeat(120), has_more: true },
    total: { value: dataset.listings, accuracy: 'planned' },
    meta: META,
  };
  if (serializeListEnvelope(body) !== JSON.stringify(body))
    throw new Error('the compiled serializer differs from JSON.stringify');
  const [stringifyUs, compiledUs] = sideBySide(
    limit === 50 ? 4000 : 1000,
    () => JSON.stringify(body),
    () => serializeListEnvelope(body),
  );
  const entry = {
    page: `${limit} rows`,
    bytes: Buffer.byteLength(JSON.stringify(body)),
    stringifyUs,
    compiledUs,
    ratio: Math.round((compiledUs / stringifyUs) * 100) / 100,
  };
  serializing.push(entry);
  log(`serialise ${entry.page}: ${entry.stringifyUs} us against ${entry.compiledUs} us`);
}

// 2. Page statements of every search shape.
const statements: { shape: string; renderedUs: number; cachedUs: number; ratio: number }[] = [];
for (const shape of SEARCH_SHAPES) {
  const q = searchQuerySchema.parse(shape.query ?? {});
  const ordering = resolveOrdering(q);
  const strategy = pageStrategy(q, ordering);
  const cache = new PageStatements();
  const rendered = () => renderedPage(q, ordering, strategy);
  const cached = () => cache.statement(database, q, ordering, undefined, now, strategy);
  const a = rendered();
  const b = cached();
  if (a.sql !== b.sql || JSON.stringify(a.params) !== JSON.stringify(b.params))
    throw new Error(`${shape.name}: the cached statement differs`);
  const [renderedUs, cachedUs] = sideBySide(2000, rendered, cached);
  const entry = {
    shape: shape.name,
    renderedUs,
    cachedUs,
    ratio: Math.round((cachedUs / renderedUs) * 100) / 100,
  };
  statements.push(entry);
  log(`statement ${shape.name}: ${entry.renderedUs} us against ${entry.cachedUs} us`);
}
await database.close();

const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
writeFileSync(
  `${resultsDir}levers.json`,
  `${JSON.stringify({ ranAt: new Date().toISOString(), rounds: ROUNDS, serializing, statements }, null, 2)}\n`,
);
const lines = [
  '| page | bytes | JSON.stringify, µs | compiled, µs | compiled/stringify |',
  '|---|---:|---:|---:|---:|',
  ...serializing.map(
    (s) => `| ${s.page} | ${s.bytes} | ${s.stringifyUs} | ${s.compiledUs} | ${s.ratio} |`,
  ),
  '',
  '| shape | rendered each time, µs | cached text, µs | cached/rendered |',
  '|---|---:|---:|---:|',
  ...statements.map((s) => `| ${s.shape} | ${s.renderedUs} | ${s.cachedUs} | ${s.ratio} |`),
];
process.stdout.write(
  `${lines.join('\n')}\n\nCPU of this process per call, medians of ${ROUNDS} alternating rounds.\n`,
);
