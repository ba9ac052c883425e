// A search's exact count with and without PostgreSQL's parallel workers, side by side (issue 43:
// the count runs before the page of every search with terms, inside a budget of 100 ms). For
// each benchmark shape whose estimate the API would count (at most EXACT_COUNT_CEILING), the
// count and then the page statement as the API sends them, alternating between the two
// settings, the median client-side time of each.
//   BENCH_DATABASE_URL=... pnpm --filter @domain-index/bench count-parallelism [runs]
// Writes bench/results/count-parallelism-<millions>m.json (COUNT_PARALLELISM_RESULTS_FILE to override).
import { writeFileSync } from 'node:fs';
import { searchQuerySchema } from '@domain-index/contract';
import { listings, sql } from '@domain-index/db';
import { searchConditions } from '@domain-index/listings/filters';
import { EXACT_COUNT_CEILING, plannedCount } from '@domain-index/api/search/count';
import { pageStatement } from './page-statement';
import { resultsFileFor } from './results-file';
import { median, openBenchPostgres, timed } from './statements';
import { SEARCH_SHAPES } from './shapes';

const RUNS = Number(process.argv[2] ?? 15);
/** A count slower than this is reported as over it: ten times the API's budget. */
const LIMIT_MS = 1_000;
const QUERIES = [
  ...SEARCH_SHAPES.map((shape) => ({ name: shape.name, query: shape.query ?? {} })),
  { name: 'another 2-character term (xq)', query: { search: 'xq' } },
  { name: 'three common 2-character terms (er in on)', query: { search: 'er in on' } },
];
type Setting = 'parallel' | 'serial';

const { database, client, listings: total } = await openBenchPostgres();
interface Row {
  shape: string;
  planned: number;
  /** Median ms, or null when a run passed LIMIT_MS; absent when the API would not count. */
  ms?: Record<Setting, number | null>;
  /** The same for the page statement the API sends (page-statement.ts). */
  pageMs?: Record<Setting, number | null>;
}
const rows: Row[] = [];

/** Median time of a statement with parallel workers and without, alternating; null when a run passed LIMIT_MS. */
async function withEachSetting(statement: { sql: string; params: unknown[] }): Promise<Record<Setting, number | null>> {
  const times: Record<Setting, (number | null)[]> = { parallel: [], serial: [] };
  for (let i = 0; i <= RUNS; i += 1)
    for (const setting of ['parallel', 'serial'] as const)
      await client
        .begin(async (tx) => {
          await tx.unsafe(`set local statement_timeout = ${LIMIT_MS}`);
          if (setting === 'serial') await tx.unsafe('set local max_parallel_workers_per_gather = 0');
          const ms = await timed(tx, statement).catch(() => null);
          // the first run of each warms the cache
          if (i > 0) times[setting].push(ms);
        })
        .catch(() => undefined);
  const summary = (list: (number | null)[]) => (list.some((ms) => ms === null) ? null : median(list as number[]));
  return { parallel: summary(times.parallel), serial: summary(times.serial) };
}
const text = (ms: number | null) => (ms === null ? `over ${LIMIT_MS}` : ms.toFixed(1));
const counted = new Set<string>();
// one instant for every shape, so that shapes with the same filters render the same count
const now = new Date();
console.log(
  '| shape | planned | count with parallel workers, ms | without, ms | page with, ms | without, ms |\n|---|---|---|---|---|---|',
);
for (const { name, query } of QUERIES) {
  const where = searchConditions(searchQuerySchema.parse(query), now);
  const count = database.root.db.select({ n: sql<number>`count(*)::int` }).from(listings).where(where).toSQL();
  const key = count.sql + JSON.stringify(count.params);
  // the 14 status=all orders count the same rows
  if (counted.has(key)) continue;
  counted.add(key);
  const planned = await plannedCount(database, where);
  const row: Row = { shape: name, planned };
  rows.push(row);
  if (planned > EXACT_COUNT_CEILING) {
    console.log(`| ${name} | ${planned} | not counted (over ${EXACT_COUNT_CEILING}) | | | |`);
    continue;
  }
  row.ms = await withEachSetting(count);
  // the page the API then sends, for the same filters (the page statements run as the planner chooses)
  row.pageMs = await withEachSetting(await pageStatement(database, query));
  console.log(
    `| ${name} | ${planned} | ${text(row.ms.parallel)} | ${text(row.ms.serial)} | ${text(row.pageMs.parallel)} | ${text(row.pageMs.serial)} |`,
  );
}
await database.close();
console.log(`\n${total} listings; ${RUNS} runs with each setting, alternating`);
writeFileSync(
  resultsFileFor('count-parallelism', total, 'COUNT_PARALLELISM_RESULTS_FILE'),
  `${JSON.stringify({ listings: total, runs: RUNS, limitMs: LIMIT_MS, measuredAt: new Date().toISOString(), shapes: rows }, null, 2)}\n`,
);
