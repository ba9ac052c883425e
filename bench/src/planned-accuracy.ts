// How far the planned totals are from the true counts: for every search shape, the planner's
// estimate (what a search answers as `total.accuracy: planned` when the exact count misses its
// budget) against count(*), after each of several fresh ANALYZEs, since every ANALYZE draws a
// new sample and the estimates move with it. Beside it, from the same statistics, the estimate
// of the shape's own conditions (searchConditions), which the API asked before plannedConditions
// rewrote a shape for the planner: before and after in one run, on one sample.
// A shape with a term of three letters or digits also gets the estimate as the API asked it
// before migration 0028 (the names' histogram of 0026 instead of their trigrams), from the same
// statistics. PLANNED_TERMS (comma-separated searches) adds term searches beside the shapes.
//   BENCH_DATABASE_URL=... PLANNED_ROUNDS=5 pnpm --filter @domain-index/bench planned-accuracy
// Writes bench/results/planned-accuracy-<millions>m.json (PLANNED_RESULTS_FILE to override).
import { writeFileSync } from 'node:fs';
import { searchQuerySchema } from '@domain-index/contract';
import { openDatabase, sql } from '@domain-index/db';
import { plannedCount } from '@domain-index/api/search/count';
import { plannedConditions, searchConditions } from '@domain-index/listings/filters';
import { refreshStatistics } from '@domain-index/worker/indexing/refresh-statistics';
import { resultsFileFor } from './results-file';
import { BENCH } from './settings';
import { SEARCH_SHAPES, type Shape } from './shapes';
import { histogramConditions } from './term-estimates';

const rounds = Number(process.env.PLANNED_ROUNDS ?? 5);
const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
const [{ n: listings } = { n: '0' }] = await database.rows<{ n: string }>(
  sql`select count(*)::text as n from listings`,
);
const now = new Date();

/** One shape's true count and its planned totals, one per ANALYZE. */
interface ShapeAccuracy {
  name: string;
  trueCount: number;
  planned: number[];
  /** Signed errors of the planned totals against the true count, percent. */
  errors: number[];
  /** The estimates of the shape's own conditions, from the same statistics, and their errors. */
  ownPlanned: number[];
  ownErrors: number[];
  /** For a term of one trigram: the estimate from the names' histogram (before 0028), and its errors. */
  histogramPlanned?: number[];
  histogramErrors?: number[];
}

const extraTerms = (process.env.PLANNED_TERMS ?? '').split(',').filter((term) => term !== '');
const shapes: Shape[] = [
  ...SEARCH_SHAPES.filter((shape) => shape.kind === 'search'),
  ...extraTerms.map((search): Shape => ({ name: `search=${search}`, query: { search }, kind: 'search' })),
];

const results: ShapeAccuracy[] = [];
for (const shape of shapes) {
  const where = searchConditions(searchQuerySchema.parse(shape.query ?? {}), now);
  const [row] = await database.rows<{ n: string }>(
    sql`select count(*)::text as n from listings where ${where}`,
  );
  results.push({ name: shape.name, trueCount: Number(row?.n), planned: [], errors: [], ownPlanned: [], ownErrors: [] });
}
const analyzeSeconds: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  // The statistics the worker gives the planner after every batch, drawn afresh.
  const started = performance.now();
  await refreshStatistics(database);
  analyzeSeconds.push((performance.now() - started) / 1000);
  for (const [i, shape] of shapes.entries()) {
    // as the API asks it: of the same rows written for the planner
    const query = searchQuerySchema.parse(shape.query ?? {});
    const planned = await plannedCount(database, plannedConditions(query, now) ?? searchConditions(query, now));
    const own = await plannedCount(database, searchConditions(query, now));
    const result = results[i]!;
    const error = (estimate: number) => (result.trueCount === 0 ? 0 : (estimate / result.trueCount - 1) * 100);
    result.planned.push(planned);
    result.errors.push(error(planned));
    result.ownPlanned.push(own);
    result.ownErrors.push(error(own));
    const before = histogramConditions(query, now);
    if (before !== undefined) {
      const histogram = await plannedCount(database, before);
      (result.histogramPlanned ??= []).push(histogram);
      (result.histogramErrors ??= []).push(error(histogram));
    }
  }
  process.stderr.write(
    `round ${round + 1}/${rounds}: statistics refreshed in ${analyzeSeconds.at(-1)!.toFixed(1)} s\n`,
  );
}
await database.close();

const percent = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(0)}%`;
const worst = (errors: number[]) => errors.reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a), 0);
console.log(
  `${listings} listings, ${rounds} ANALYZEs (${analyzeSeconds.map((s) => s.toFixed(1)).join(', ')} s)\n`,
);
const range = (errors: number[]) => `${percent(Math.min(...errors))} to ${percent(Math.max(...errors))}`;
console.log('| shape | true count | planned, per ANALYZE | error range | worst | own conditions: error range |');
console.log('|---|---|---|---|---|---|');
for (const r of results) {
  console.log(
    `| ${r.name} | ${r.trueCount} | ${r.planned.join(', ')} | ${range(r.errors)} | ${percent(worst(r.errors))} | ${range(r.ownErrors)} |`,
  );
}
const compared = results.filter((r) => r.histogramErrors !== undefined);
if (compared.length > 0) {
  console.log('\n| term shape | true count | from the trigrams (0028): error range | from the names\' histogram (0026): planned | error range |');
  console.log('|---|---|---|---|---|');
  for (const r of compared) {
    console.log(`| ${r.name} | ${r.trueCount} | ${range(r.errors)} | ${r.histogramPlanned!.join(', ')} | ${range(r.histogramErrors!)} |`);
  }
}
const file = resultsFileFor('planned-accuracy', Number(listings), 'PLANNED_RESULTS_FILE');
writeFileSync(
  file,
  `${JSON.stringify({ listings: Number(listings), rounds, analyzeSeconds, measuredAt: now.toISOString(), shapes: results }, null, 2)}\n`,
);
