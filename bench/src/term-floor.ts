// Where a search with terms spends its database time, node by node (issue 43: three common
// two-character terms at 30M). For each search (TERMS, comma-separated; `an re st` by default),
// the count and the page statement the API sends (without parallel workers, as it sends them),
// each under EXPLAIN (ANALYZE, BUFFERS) `runs` times after one run that warms the cache: the
// statement's execution time, and the time and pages of its Bitmap Index Scans, the reading of
// the terms' posting lists, which every plan through the bigram index pays before it reads a
// row. Medians.
//   BENCH_DATABASE_URL=... [TERMS='an re st,qz'] pnpm --filter @domain-index/bench term-floor [runs]
// Writes bench/results/term-floor-<millions>m.json (TERM_FLOOR_RESULTS_FILE to override).
import { writeFileSync } from 'node:fs';
import { searchQuerySchema } from '@domain-index/contract';
import { listings, sql, withoutWorkers } from '@domain-index/db';
import { searchConditions } from '@domain-index/listings/filters';
import { resolveOrdering } from '@domain-index/api/search/ordering';
import { pageQuery } from '@domain-index/api/search/page-query';
import { pageStatement } from './page-statement';
import { resultsFileFor } from './results-file';
import { median, openBenchPostgres } from './statements';

const RUNS = Number(process.argv[2] ?? 15);
const TERMS = (process.env.TERMS ?? 'an re st').split(',');
const { database, client, listings: total } = await openBenchPostgres();

/** One node of a JSON plan, as far as this bench reads it. */
interface PlanNode {
  'Node Type': string;
  'Actual Total Time': number;
  'Actual Rows': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

/** Every node of a plan, depth first. */
function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

interface Measured {
  executionMs: number;
  indexScanMs: number;
  indexPages: number;
  candidates: number;
}

/** One EXPLAIN (ANALYZE, BUFFERS) of a statement: its time, and its Bitmap Index Scans' time, pages and rows. */
async function explained(statement: { sql: string; params: unknown[] }): Promise<Measured> {
  const [row] = await client.unsafe(`explain (analyze, buffers, format json) ${statement.sql}`, statement.params as never[]);
  const [result] = (row as Record<string, unknown>)['QUERY PLAN'] as [{ Plan: PlanNode; 'Execution Time': number }];
  const scans = nodesOf(result.Plan).filter((node) => node['Node Type'] === 'Bitmap Index Scan');
  return {
    executionMs: result['Execution Time'],
    indexScanMs: scans.reduce((sum, node) => sum + node['Actual Total Time'], 0),
    indexPages: scans.reduce((sum, node) => sum + node['Shared Hit Blocks'] + node['Shared Read Blocks'], 0),
    candidates: Math.max(0, ...scans.map((node) => node['Actual Rows'])),
  };
}

const summary = (runs: Measured[]) => ({
  executionMs: median(runs.map((run) => run.executionMs)),
  indexScanMs: median(runs.map((run) => run.indexScanMs)),
  indexPages: median(runs.map((run) => run.indexPages)),
  candidates: median(runs.map((run) => run.candidates)),
});

const now = new Date();
const results = [];
console.log('| search | statement | execution, ms | bitmap index scans, ms | their share | index pages | candidates |\n|---|---|---|---|---|---|---|');
for (const search of TERMS) {
  const query = searchQuerySchema.parse({ search });
  const where = withoutWorkers(searchConditions(query, now));
  const count = database.root.db.select({ n: sql<number>`count(*)::int` }).from(listings).where(where).toSQL();
  const { strategy } = await pageStatement(database, { search });
  const page = pageQuery(database, where, resolveOrdering(query), undefined, query.limit, now, strategy).toSQL();
  const runs: Record<'count' | 'page', Measured[]> = { count: [], page: [] };
  for (let i = 0; i <= RUNS; i += 1) {
    for (const [name, statement] of [['count', count], ['page', page]] as const) {
      const measured = await explained(statement);
      // the first run of each warms the cache
      if (i > 0) runs[name].push(measured);
    }
  }
  for (const name of ['count', 'page'] as const) {
    const s = summary(runs[name]);
    results.push({ search, statement: name, strategy: name === 'page' ? strategy : undefined, ...s });
    console.log(
      `| ${search} | ${name} | ${s.executionMs.toFixed(1)} | ${s.indexScanMs.toFixed(1)} | ${((s.indexScanMs / s.executionMs) * 100).toFixed(0)} % | ${s.indexPages} | ${s.candidates} |`,
    );
  }
}
await database.close();
console.log(`\n${total} listings; ${RUNS} runs of each, alternating; EXPLAIN's own timing included`);
writeFileSync(
  resultsFileFor('term-floor', total, 'TERM_FLOOR_RESULTS_FILE'),
  `${JSON.stringify({ listings: total, runs: RUNS, measuredAt: now.toISOString(), results }, null, 2)}\n`,
);
