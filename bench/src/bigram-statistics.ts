// What the bigram index's statistics target (migration 0027: 1000 instead of the default 100)
// changes, side by side in one run. The index's target alternates between the two, each set
// followed by an ANALYZE of the whole table (the only one that builds an index's statistics,
// as PostgreSQL's autovacuum runs it; timed), and after each, for every query of two-character
// terms:
// - its planned total, asked as the API asks it, against its true count;
// - its page statement as the API sends it (the strategy found the way the API finds it), the
//   median client-side time of [runs] runs, the plan PostgreSQL chose for it, and the median
//   time PostgreSQL took to plan it (EXPLAIN's planning time, 100 runs): with the same plan,
//   planning is the only work the statistics can change, and it is measured apart from the
//   page's time, which moves with the page cache after each ANALYZE.
// The run ends with the target the migrations set, and fresh statistics.
//   BENCH_DATABASE_URL=... pnpm --filter @domain-index/bench bigram-statistics [rounds] [runs]
// Writes bench/results/bigram-statistics-<millions>m.json (BIGRAM_RESULTS_FILE to override).
import { writeFileSync } from 'node:fs';
import { searchQuerySchema } from '@domain-index/contract';
import { sql } from '@domain-index/db';
import { plannedCount } from '@domain-index/api/search/count';
import { plannedConditions, searchConditions } from '@domain-index/listings/filters';
import { pageStatement } from './page-statement';
import { resultsFileFor } from './results-file';
import { median, openBenchPostgres, timed } from './statements';

const ROUNDS = Number(process.argv[2] ?? 2);
const RUNS = Number(process.argv[3] ?? 30);
const INDEX = 'listings_domain_name_bigrams_idx';
/** Queries of two-character terms, rare to common (the shapes' and term-strategies'). */
const TERMS = ['qz', 'xq', 'an re st', 'co de', 'er in on', 'ab', 'an'];

const { database, client, listings } = await openBenchPostgres();
const [set] = await database.rows<{ target: number | null }>(sql`
  select attstattarget::int as target from pg_attribute where attrelid = ${INDEX}::regclass and attnum = 1`);
const migrated = set?.target ?? -1;
if (migrated < 0) throw new Error(`${INDEX} has the default target: run domain-index migrate first`);
const TARGETS = [100, migrated] as const;

/** The plan's nodes, without costs: whether two statistics gave a statement the same plan. */
function planShape(node: Record<string, unknown>): string {
  const name = [node['Node Type'], node['Index Name']].filter((part): part is string => typeof part === 'string').join(' ');
  const children = (node['Plans'] as Record<string, unknown>[] | undefined) ?? [];
  return children.length === 0 ? name : `${name} (${children.map(planShape).join(', ')})`;
}

interface Measured {
  planned: number;
  pageMs: number;
  planningMs: number;
  strategy: string;
  plan: string;
}
const now = new Date();
const truths = new Map<string, number>();
for (const search of TERMS) {
  const [row] = await database.rows<{ n: string }>(sql`select count(*)::text as n from listings where ${searchConditions(searchQuerySchema.parse({ search }), now)}`);
  truths.set(search, Number(row!.n));
}

const analyzeSeconds: Record<number, number[]> = { [TARGETS[0]]: [], [TARGETS[1]]: [] };
const measured: Record<number, Map<string, Measured[]>> = { [TARGETS[0]]: new Map(), [TARGETS[1]]: new Map() };
for (let round = 0; round < ROUNDS; round += 1) {
  for (const target of round % 2 === 0 ? TARGETS : [...TARGETS].reverse()) {
    await database.db.execute(sql.raw(`alter index ${INDEX} alter column 1 set statistics ${target}`));
    const started = performance.now();
    await database.db.execute(sql`analyze listings`);
    analyzeSeconds[target]!.push((performance.now() - started) / 1000);
    for (const search of TERMS) {
      const query = searchQuerySchema.parse({ search });
      const planned = await plannedCount(database, plannedConditions(query, now) ?? searchConditions(query, now));
      const statement = await pageStatement(database, { search });
      const [explained] = (await client.unsafe(`explain (format json) ${statement.sql}`, statement.params as never[])) as { 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }[];
      const times: number[] = [];
      for (let run = 0; run < RUNS + 3; run += 1) {
        const ms = await timed(client, statement);
        if (run >= 3) times.push(ms);
      }
      const planning: number[] = [];
      for (let run = 0; run < 103; run += 1) {
        const [summary] = (await client.unsafe(`explain (summary, format json) ${statement.sql}`, statement.params as never[])) as { 'QUERY PLAN': [{ 'Planning Time': number }] }[];
        if (run >= 3) planning.push(summary!['QUERY PLAN'][0]['Planning Time']);
      }
      const list = measured[target]!.get(search) ?? [];
      list.push({ planned, pageMs: median(times), planningMs: median(planning), strategy: statement.strategy, plan: planShape(explained!['QUERY PLAN'][0].Plan) });
      measured[target]!.set(search, list);
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS}, target ${target}: ANALYZE ${analyzeSeconds[target]!.at(-1)!.toFixed(1)} s\n`);
  }
}
// the target the migrations set, as the last round may have left the other
await database.db.execute(sql.raw(`alter index ${INDEX} alter column 1 set statistics ${migrated}`));
if (ROUNDS % 2 === 0) await database.db.execute(sql`analyze listings`);
await database.close();

const percent = (planned: number, truth: number) => {
  const error = truth === 0 ? 0 : (planned / truth - 1) * 100;
  return `${error >= 0 ? '+' : ''}${error.toFixed(0)}%`;
};
const [low, high] = TARGETS;
console.log(`${listings} listings, ${ROUNDS} rounds; ANALYZE of the whole table: ${analyzeSeconds[low]!.map((s) => s.toFixed(1)).join(', ')} s at ${low}, ${analyzeSeconds[high]!.map((s) => s.toFixed(1)).join(', ')} s at ${high}\n`);
console.log(`| search | true count | planned at ${low} | planned at ${high} | page ms at ${low} | page ms at ${high} | ratio | planning ms at ${low} | at ${high} | ratio | same plan |`);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
const rows = TERMS.map((search) => {
  const a = measured[low]!.get(search)!;
  const b = measured[high]!.get(search)!;
  const truth = truths.get(search)!;
  const pageA = median(a.map((m) => m.pageMs));
  const pageB = median(b.map((m) => m.pageMs));
  const planA = median(a.map((m) => m.planningMs));
  const planB = median(b.map((m) => m.planningMs));
  const samePlan = a.every((m) => m.plan === b[0]!.plan) && b.every((m) => m.plan === b[0]!.plan);
  console.log(
    `| ${search} | ${truth} | ${a.map((m) => percent(m.planned, truth)).join(', ')} | ${b.map((m) => percent(m.planned, truth)).join(', ')} | ${pageA.toFixed(1)} | ${pageB.toFixed(1)} | ${(pageB / pageA).toFixed(2)} | ${planA.toFixed(2)} | ${planB.toFixed(2)} | ${(planB / planA).toFixed(2)} | ${samePlan ? 'yes' : `no: ${a[0]!.plan} / ${b[0]!.plan}`} |`,
  );
  return { search, trueCount: truth, [`target${low}`]: a, [`target${high}`]: b };
});
const file = resultsFileFor('bigram-statistics', listings, 'BIGRAM_RESULTS_FILE');
writeFileSync(file, `${JSON.stringify({ listings, rounds: ROUNDS, runs: RUNS, measuredAt: now.toISOString(), analyzeSeconds, terms: rows }, null, 2)}\n`);
