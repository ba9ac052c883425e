// A search's exact count and page with and without PostgreSQL's parallel workers, side by side
// (issue 43: the count runs before the page of every search with terms, inside a budget of
// 100 ms). For each benchmark shape whose estimate the API would count (at most
// EXACT_COUNT_CEILING), the count and then the page statement the API sends (its strategy
// picked as the API picks it), each once as the planner would plan it and once with
// plan_without_workers() (packages/db/src/plan-without-workers.ts), alternating, the median
// client-side time of each. The API sends counts without workers, and pages without workers
// when the search has terms.
//   BENCH_DATABASE_URL=... pnpm --filter @domain-index/bench count-parallelism [runs]
// Writes bench/results/count-parallelism-<millions>m.json (COUNT_PARALLELISM_RESULTS_FILE to override).
import { writeFileSync } from 'node:fs';
import { searchQuerySchema } from '@domain-index/contract';
import { listings, withoutWorkers, sql, type SQL } from '@domain-index/db';
import { plannedConditions, searchConditions } from '@domain-index/listings/filters';
import { EXACT_COUNT_CEILING, plannedCount } from '@domain-index/api/search/count';
import { resolveOrdering } from '@domain-index/api/search/ordering';
import { pageQuery } from '@domain-index/api/search/page-query';
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

type Statement = { sql: string; params: unknown[] };
/** Median time of a statement with parallel workers and without, alternating; null when a run passed LIMIT_MS. */
async function withEachSetting(statements: Record<Setting, Statement>): Promise<Record<Setting, number | null>> {
  const times: Record<Setting, (number | null)[]> = { parallel: [], serial: [] };
  for (let i = 0; i <= RUNS; i += 1)
    for (const setting of ['parallel', 'serial'] as const)
      await client
        .begin(async (tx) => {
          await tx.unsafe(`set local statement_timeout = ${LIMIT_MS}`);
          const ms = await timed(tx, statements[setting]).catch(() => null);
          // the first run of each warms the cache
          if (i > 0) times[setting].push(ms);
        })
        .catch(() => undefined);
  const summary = (list: (number | null)[]) => (list.some((ms) => ms === null) ? null : median(list as number[]));
  return { parallel: summary(times.parallel), serial: summary(times.serial) };
}
const text = (ms: number | null) => (ms === null ? `over ${LIMIT_MS}` : ms.toFixed(1));
/** The same filters as planned freely, and without workers. */
const bothWays = (where: SQL): Record<Setting, SQL> => ({ parallel: where, serial: withoutWorkers(where) });
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
  const planned = await plannedCount(database, plannedConditions(searchQuerySchema.parse(query), now) ?? where);
  const row: Row = { shape: name, planned };
  rows.push(row);
  if (planned > EXACT_COUNT_CEILING) {
    console.log(`| ${name} | ${planned} | not counted (over ${EXACT_COUNT_CEILING}) | | | |`);
    continue;
  }
  const conditions = bothWays(where);
  const countOf = (setting: Setting) => database.root.db.select({ n: sql<number>`count(*)::int` }).from(listings).where(conditions[setting]).toSQL();
  row.ms = await withEachSetting({ parallel: countOf('parallel'), serial: countOf('serial') });
  // the page the API then sends, for the same filters, by the strategy the API picks
  const { strategy } = await pageStatement(database, query);
  const parsed = searchQuerySchema.parse(query);
  const pageOf = (setting: Setting) => pageQuery(database, conditions[setting], resolveOrdering(parsed), undefined, parsed.limit, now, strategy).toSQL();
  row.pageMs = await withEachSetting({ parallel: pageOf('parallel'), serial: pageOf('serial') });
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
