// `pnpm --filter @domain-index/bench driver-pool`: does a connection pool's per-query cost stay
// flat the longer it serves? A burst opens every connection of the pool, then three callers
// query it steadily, as an API instance does between peaks. It prints the driver's cost per
// query in each round of 30,000 queries and the last round against the first, side by side in
// one run. Before patches/postgres@3.4.9.patch the cost grew with every query served (see
// BENCHMARKS.md); it writes no results.
import { openDatabase } from '@domain-index/db';
import { BENCH } from './settings';

const ROUNDS = 8;
const CALLERS = 3;
const QUERIES_PER_CALLER = 10_000;
const POOL = 10;

const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: POOL });
const statement = { sql: 'select 1', params: [], prepare: true };
const caller = async (queries: number) => {
  for (let i = 0; i < queries; i += 1) await database.values(statement);
};

try {
  // More callers than connections: the pool opens all of them. Then one uncounted round warms up.
  await Promise.all(Array.from({ length: POOL * 3 }, () => caller(10)));
  await Promise.all(Array.from({ length: CALLERS }, () => caller(QUERIES_PER_CALLER)));
  const perQuery: number[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const started = performance.now();
    await Promise.all(Array.from({ length: CALLERS }, () => caller(QUERIES_PER_CALLER)));
    const us = ((performance.now() - started) * 1000) / (CALLERS * QUERIES_PER_CALLER);
    perQuery.push(us);
    process.stdout.write(`round ${round}: ${us.toFixed(1)} us/query after ${((round + 1) * CALLERS * QUERIES_PER_CALLER).toLocaleString('en')} queries\n`);
  }
  process.stdout.write(`last round / first round: ${(perQuery.at(-1)! / perQuery[0]!).toFixed(2)}x\n`);
} finally {
  await database.close();
}
