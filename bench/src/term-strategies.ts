// What a search with substring terms costs PostgreSQL, strategy by strategy (issue 43: the
// three-term floor): for each term query, its true count and the exact count's time, then its
// first page found by walking the sort order and by collecting the matches (page-strategy.ts),
// alternating, the median client-side time of each. The API collects when the count is at most
// COLLECT_AT_MOST and walks otherwise; this shows where the two meet at the dataset's size.
//   BENCH_DATABASE_URL=... pnpm --filter @domain-index/bench term-strategies [runs]
// Writes bench/results/term-strategies-<millions>m.json (TERM_STRATEGIES_RESULTS_FILE to override).
import { writeFileSync } from 'node:fs';
import { searchQuerySchema } from '@domain-index/contract';
import { renderQuery } from '@domain-index/db';
import { countStatement } from '@domain-index/api/search/count';
import { searchConditions } from '@domain-index/listings/filters';
import { resolveOrdering } from '@domain-index/api/search/ordering';
import { pageConditions, pageQuery } from '@domain-index/api/search/page-query';
import { COLLECT_AT_MOST, pageStrategy, type PageStrategy } from '@domain-index/api/search/page-strategy';
import { resultsFileFor } from './results-file';
import { median, openBenchPostgres, timed } from './statements';

const RUNS = Number(process.argv[2] ?? 20);
/** A count that takes longer is not timed (the API's own budget is 100 ms). */
const COUNT_LIMIT_MS = Number(process.env.TERM_COUNT_LIMIT_MS ?? 2_000);
/** Term queries from rare to common: one, two and three terms, of two and three characters. */
const TERMS = ['zyg', 'qz', 'xq', 'an re st', 'co de', 'shop', 'an', 'net', 'ab', 'er in on'];

const { database, client, listings: total } = await openBenchPostgres();


interface Row {
  search: string;
  /** null: not counted within COUNT_LIMIT_MS. */
  matches: number | null;
  countMs: number | null;
  /** The strategy the API picks with an exact count. */
  picked: PageStrategy;
  pageMs: Partial<Record<PageStrategy, number>>;
}
const rows: Row[] = [];
console.log('| search | matches | exact count, ms | walk, ms | collect, ms | the API picks |\n|---|---|---|---|---|---|');
for (const search of TERMS) {
  const query = searchQuerySchema.parse({ search });
  const ordering = resolveOrdering(query);
  const now = new Date();
  const where = searchConditions(query, now);
  // the count as the API sends it
  const count = renderQuery(countStatement(where));
  // A count over COUNT_LIMIT_MS is one the API never finishes (its budget is 100 ms): such a
  // query is only ever walked, so only the walk is timed.
  const counted = await client
    .begin(async (tx) => {
      await tx.unsafe(`set local statement_timeout = ${COUNT_LIMIT_MS}`);
      const [row] = await tx.unsafe<Record<string, number>[]>(count.sql, count.params as never[]);
      return Object.values(row!)[0]!;
    })
    .catch(() => undefined);
  const matches = counted ?? null;
  const picked = pageStrategy(query, ordering, counted === undefined ? undefined : { value: counted, accuracy: 'exact' });
  // the walk is what the API does above COLLECT_AT_MOST (ids-first for the live set by score)
  const walk = pageStrategy(query, ordering, { value: COLLECT_AT_MOST + 1, accuracy: 'exact' });
  const strategies: PageStrategy[] = counted === undefined ? [walk] : [walk, 'collect'];
  const statements = strategies.map((strategy) => pageQuery(database, pageConditions(query, now), ordering, undefined, query.limit, now, strategy).toSQL());
  const times: number[][] = strategies.map(() => []);
  const countTimes: number[] = [];
  const timedCount = counted === undefined ? [] : [count];
  for (const statement of [...timedCount, ...statements]) await timed(client, statement);
  for (let i = 0; i < RUNS; i += 1) {
    for (const statement of timedCount) countTimes.push(await timed(client, statement));
    for (const [at, statement] of statements.entries()) times[at]!.push(await timed(client, statement));
  }
  const row: Row = {
    search,
    matches,
    countMs: counted === undefined ? null : median(countTimes),
    picked,
    pageMs: Object.fromEntries(strategies.map((strategy, at) => [strategy, median(times[at]!)])),
  };
  rows.push(row);
  const ms = (value: number | null | undefined) => (value === null || value === undefined ? '-' : value.toFixed(1));
  console.log(
    `| ${search} | ${matches ?? `over ${COUNT_LIMIT_MS} ms to count`} | ${ms(row.countMs)} | ${ms(row.pageMs[walk])} (${walk}) | ${ms(row.pageMs.collect)} | ${picked} |`,
  );
}
await database.close();
console.log(`\n${total} listings; ${RUNS} runs of each, alternating; COLLECT_AT_MOST = ${COLLECT_AT_MOST}`);
writeFileSync(
  resultsFileFor('term-strategies', total, 'TERM_STRATEGIES_RESULTS_FILE'),
  `${JSON.stringify({ listings: total, runs: RUNS, collectAtMost: COLLECT_AT_MOST, measuredAt: new Date().toISOString(), terms: rows }, null, 2)}\n`,
);
