// What the names' histogram of 10,000 entries (migration 0026) costs, side by side in one run:
// - the worker's statistics refresh with and without the object, alternating (dropped and made
//   again between rounds; the run ends with it in place and fresh);
// - the planner's estimate of each term shape, asked of the column (the search's own
//   conditions, as before 0026) and of the expression (plannedConditions), alternating, median
//   client-side time of each.
// Its accuracy is planned-accuracy's (the estimate of both forms from the same statistics).
//   BENCH_DATABASE_URL=... pnpm --filter @domain-index/bench term-statistics [rounds] [runs]
import { searchQuerySchema } from '@domain-index/contract';
import { openDatabase, sql } from '@domain-index/db';
import { plannedCount } from '@domain-index/api/search/count';
import { plannedConditions, searchConditions } from '@domain-index/listings/filters';
import { refreshStatistics } from '@domain-index/worker/indexing/refresh-statistics';
import { BENCH } from './settings';
import { median } from './statements';

const ROUNDS = Number(process.argv[2] ?? 3);
const RUNS = Number(process.argv[3] ?? 300);
const TERMS = ['shop', 'zyg', 'shop zyg'];
const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });

// The object as the database's migrations made it (0026), to be made again exactly so.
const [made] = await database.rows<{ definition: string; target: number }>(sql`
  select pg_get_statisticsobjdef(oid) as definition, stxstattarget::int as target
  from pg_statistic_ext where stxname = 'listings_name_terms_stx'`);
if (made === undefined) throw new Error('listings_name_terms_stx is missing: run domain-index migrate first');

async function withObject(present: boolean): Promise<void> {
  await database.db.execute(sql`drop statistics if exists listings_name_terms_stx`);
  if (!present) return;
  await database.db.execute(sql.raw(made!.definition));
  await database.db.execute(sql.raw(`alter statistics listings_name_terms_stx set statistics ${made!.target}`));
}

async function secondsOf(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

const [size] = await database.rows<{ rows: string; heap: string }>(
  sql`select reltuples::bigint::text as rows, pg_relation_size('listings')::text as heap from pg_class where oid = 'listings'::regclass`,
);
const rows = Number(size!.rows);
const rowBytes = Number(size!.heap) / Math.max(rows, 1);

const without: number[] = [];
const withIt: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  await withObject(false);
  without.push(await secondsOf(() => refreshStatistics(database)));
  await withObject(true);
  withIt.push(await secondsOf(() => refreshStatistics(database)));
  process.stderr.write(`round ${round + 1}/${ROUNDS}: refresh ${without.at(-1)!.toFixed(1)} s without, ${withIt.at(-1)!.toFixed(1)} s with\n`);
}
const sampled = (target: number) => Math.min(rows, 300 * target);
console.log(`${rows} listings, ${ROUNDS} rounds\n`);
console.log('| refresh | without the object | with it | ratio |\n|---|---|---|---|');
const [a, b] = [median(without), median(withIt)];
console.log(`| seconds (median; each: ${without.map((s) => s.toFixed(1)).join(', ')} / ${withIt.map((s) => s.toFixed(1)).join(', ')}) | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} |`);
console.log(
  `| rows domain_name's ANALYZE samples (held in memory, about ${Math.round(rowBytes)} bytes each) | ${sampled(1000)} (~${Math.round((sampled(1000) * rowBytes) / 2 ** 20)} MiB) | ${sampled(10000)} (~${Math.round((sampled(10000) * rowBytes) / 2 ** 20)} MiB) | ${(sampled(10000) / sampled(1000)).toFixed(1)} |\n`,
);

console.log(`| estimate (EXPLAIN, median of ${RUNS}) | column, ms | expression, ms | ratio |\n|---|---|---|---|`);
const now = new Date();
for (const search of TERMS) {
  const query = searchQuerySchema.parse({ search });
  const own = searchConditions(query, now);
  const planned = plannedConditions(query, now);
  if (planned === undefined) throw new Error(`no planned conditions for ${search}`);
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < RUNS + 10; i += 1) {
    const column = await secondsOf(async () => {
      await plannedCount(database, own);
    });
    const expression = await secondsOf(async () => {
      await plannedCount(database, planned);
    });
    // the first ten of each warm the connection's caches
    if (i >= 10) {
      times[0].push(column * 1000);
      times[1].push(expression * 1000);
    }
  }
  const [c, e] = [median(times[0]), median(times[1])];
  console.log(`| search=${search} | ${c.toFixed(2)} | ${e.toFixed(2)} | ${(e / c).toFixed(2)} |`);
}
await database.close();
