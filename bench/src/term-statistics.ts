// What a statistics object for the planned total of a term costs, side by side in one run:
// the names' histogram of 10,000 entries (migration 0026, listings_name_terms_stx, the default)
// or the names' pieces (0027, STATISTICS_OBJECT=listings_name_grams_stx):
// - the worker's statistics refresh with and without the object, alternating (dropped and made
//   again between rounds; the run ends with it in place and fresh), and the most memory the
//   database backend held outside shared memory while it ran (read from /proc, so only for a
//   server on this machine);
// - the planner's estimate of each term shape (TERMS, comma-separated), asked of the column
//   (the search's own conditions, as before 0026) and as the API asks it (plannedConditions),
//   alternating, median client-side time of each.
// Its accuracy is planned-accuracy's (the estimate of both forms from the same statistics).
// STATISTICS_REFRESH=whole-table measures an ANALYZE of the whole table instead of the worker's
// refresh: what PostgreSQL's autovacuum runs once a tenth of the table changed, and a first load
// after its rows (every statistics object is built by it, from one sample of 3,000,000 rows).
//   BENCH_DATABASE_URL=... [STATISTICS_OBJECT=listings_name_trigrams_stx CARRIER_COLUMN=has_hyphens] \
//     pnpm --filter @domain-index/bench term-statistics [rounds] [runs]
import { readFileSync } from 'node:fs';
import { searchQuerySchema } from '@domain-index/contract';
import { openDatabase, sql } from '@domain-index/db';
import { plannedCount } from '@domain-index/api/search/count';
import { plannedConditions, searchConditions } from '@domain-index/listings/filters';
import { refreshStatistics } from '@domain-index/worker/indexing/refresh-statistics';
import { BENCH } from './settings';
import { median } from './statements';
import { histogramConditions } from './term-estimates';

const ROUNDS = Number(process.argv[2] ?? 3);
const RUNS = Number(process.argv[3] ?? 300);
const OBJECT = process.env.STATISTICS_OBJECT ?? 'listings_name_terms_stx';
const TERMS = (process.env.TERMS ?? 'shop,zyg,shop zyg').split(',');
const WHOLE_TABLE = process.env.STATISTICS_REFRESH === 'whole-table';
// A column whose statistics target the object's migration raised with it, so that the refresh
// builds the object in a group of its own (0028: has_hyphens), set back to the default without it.
const CARRIER = process.env.CARRIER_COLUMN;
const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });

// The object as the database's migrations made it, to be made again exactly so.
const [made] = await database.rows<{ definition: string; target: number }>(sql`
  select pg_get_statisticsobjdef(oid) as definition, stxstattarget::int as target
  from pg_statistic_ext where stxname = ${OBJECT}`);
if (made === undefined) throw new Error(`${OBJECT} is missing: run domain-index migrate first`);

async function withObject(present: boolean): Promise<void> {
  await database.db.execute(sql.raw(`drop statistics if exists ${OBJECT}`));
  if (CARRIER !== undefined) {
    await database.db.execute(sql.raw(`alter table listings alter column ${CARRIER} set statistics ${present ? made!.target : -1}`));
  }
  if (!present) return;
  await database.db.execute(sql.raw(made!.definition));
  await database.db.execute(sql.raw(`alter statistics ${OBJECT} set statistics ${made!.target}`));
}

// The backend that runs the refresh (the pool holds one connection).
const [backend] = await database.rows<{ pid: number }>(sql`select pg_backend_pid() as pid`);

/** The backend's private resident memory now, MiB; undefined when its /proc entry is not readable. */
function backendMiB(): number | undefined {
  try {
    const kib = /RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${backend!.pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}

/** The refresh's seconds and the most memory the backend held while it ran (sampled every 50 ms). */
async function refreshMeasured(): Promise<{ seconds: number; peakMiB: number | undefined }> {
  let peak = backendMiB();
  const sampler = setInterval(() => {
    const now = backendMiB();
    if (now !== undefined) peak = Math.max(peak ?? 0, now);
  }, 50);
  try {
    const refresh = WHOLE_TABLE
      ? async () => {
          await database.db.execute(sql`analyze listings`);
        }
      : () => refreshStatistics(database);
    return { seconds: await secondsOf(refresh), peakMiB: peak };
  } finally {
    clearInterval(sampler);
  }
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
const peaks: [number[], number[]] = [[], []];
for (let round = 0; round < ROUNDS; round += 1) {
  for (const present of [false, true]) {
    await withObject(present);
    const { seconds, peakMiB } = await refreshMeasured();
    (present ? withIt : without).push(seconds);
    if (peakMiB !== undefined) peaks[present ? 1 : 0].push(peakMiB);
  }
  process.stderr.write(`round ${round + 1}/${ROUNDS}: refresh ${without.at(-1)!.toFixed(1)} s without, ${withIt.at(-1)!.toFixed(1)} s with\n`);
}
console.log(`${rows} listings, ${ROUNDS} rounds, ${OBJECT} (${made.definition}, target ${made.target})\n`);
console.log(`| ${WHOLE_TABLE ? 'ANALYZE of the whole table' : 'refresh'} | without the object | with it | ratio |\n|---|---|---|---|`);
const [a, b] = [median(without), median(withIt)];
console.log(`| seconds (median; each: ${without.map((s) => s.toFixed(1)).join(', ')} / ${withIt.map((s) => s.toFixed(1)).join(', ')}) | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} |`);
if (peaks[0].length > 0 && peaks[1].length > 0) {
  const [p, q] = [Math.max(...peaks[0]), Math.max(...peaks[1])];
  console.log(`| the backend's most private memory (RssAnon), MiB | ${p.toFixed(0)} | ${q.toFixed(0)} | ${(q / p).toFixed(2)} |`);
}
console.log(`| heap bytes per row | ${Math.round(rowBytes)} | | |\n`);

console.log(`| estimate (EXPLAIN, median of ${RUNS}) | column, ms | as the API asks it, ms | ratio | names' histogram (before 0028), ms |\n|---|---|---|---|---|`);
const now = new Date();
for (const search of TERMS) {
  const query = searchQuerySchema.parse({ search });
  const own = searchConditions(query, now);
  const planned = plannedConditions(query, now);
  if (planned === undefined) throw new Error(`no planned conditions for ${search}`);
  // a term of one trigram: the form the API asked before 0028, in the same rounds
  const before = histogramConditions(query, now);
  const forms = before === undefined ? [own, planned] : [own, planned, before];
  const times: number[][] = forms.map(() => []);
  for (let i = 0; i < RUNS + 10; i += 1) {
    for (const [f, form] of forms.entries()) {
      const seconds = await secondsOf(async () => {
        await plannedCount(database, form);
      });
      // the first ten of each warm the connection's caches
      if (i >= 10) times[f]!.push(seconds * 1000);
    }
  }
  const [c, e, h] = times.map(median) as [number, number, number | undefined];
  console.log(`| search=${search} | ${c.toFixed(2)} | ${e.toFixed(2)} | ${(e / c).toFixed(2)} | ${h === undefined ? '' : h.toFixed(2)} |`);
}
await database.close();
