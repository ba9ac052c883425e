import type { Results, ShapeResult } from './report';

/** The API's own work at concurrency 1, ms: its p50 less the floor's and the ceiling's. */
const ownMs = (s: ShapeResult) =>
  s.ceiling === undefined ? NaN : Math.max(0, s.api.p50 - s.floor.p50 - s.ceiling.p50);
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const us = (s: ShapeResult) => Math.round(s.cpuPerRequestUs?.api ?? NaN);
/** The `status=all` sorts: PostgreSQL finds their page in about 1 ms, so the API's share is largest. */
const isFast = (s: ShapeResult) => s.kind === 'search' && s.name.startsWith('status=all');

/**
 * Issue 20's before and after: the same benchmark run against an earlier commit's API
 * (results-before.json, BENCH_API_CLI) and against this one (results.json), shape by shape,
 * with the issue's targets: own work <= 0.5 ms at p50 on every shape, API CPU <= 600 us per
 * request on the fast shapes, lookups >= 5,000 req/s at concurrency 32 with p99 <= 20 ms, a
 * first load of 1M rows >= 35,000 rows/s.
 */
export function beforeAfterSection(before: Results, after: Results, beforeLabel: string): string {
  const byName = new Map(
    [
      ...before.shapes,
      before.deepPaging.page200,
      before.lookup.existing,
      before.lookup.missing,
    ].map((s) => [s.name, s]),
  );
  const rows = [
    ...after.shapes,
    after.deepPaging.page200,
    after.lookup.existing,
    after.lookup.missing,
  ].map((a) => {
    const b = byName.get(a.name);
    if (b === undefined)
      return `| ${a.name} | - | ${fixed(ownMs(a))} | - | ${us(a)} | - | ${a.apiRps} | - |`;
    const cpuTarget = isFast(a) ? (us(a) <= 600 ? 'yes' : '**no**') : '-';
    return `| ${a.name} | ${fixed(ownMs(b))} | ${fixed(ownMs(a))} ${ownMs(a) <= 0.5 ? '' : '(**no**)'} | ${us(b)} | ${us(a)} | ${cpuTarget} | ${b.apiRps} | ${a.apiRps} |`;
  });
  const lookupMet =
    after.lookup.existing.apiRps >= 5000 && after.lookup.existing.apiP99Loaded <= 20;
  const loadMet = after.import.large.rowsPerSecond >= 35000;
  return `## Before and after: the API's own cost (issue 20)

The same benchmark, one run each, on the same dataset, back to back: first against
${beforeLabel}, with \`BENCH_API_CLI=<that checkout>/apps/cli/bin/domain-index.js
BENCH_RESULTS_FILE=results-before.json\` (raw figures in
[bench/results/results-before.json](bench/results/results-before.json)), then against this
commit (results.json, the tables above). Own work is the API's p50 less the floor's and the
ceiling's at concurrency 1, on uncompressed bodies; CPU is the API's per request under the
concurrency-32 load. Fast shapes: the 14 \`status=all\` sorts, whose page PostgreSQL finds in
about 1 ms.

| shape | own ms before | own ms after (<= 0.5) | API CPU us before | after | fast shape <= 600 us | req/s before | after |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

- Lookup at concurrency 32: ${before.lookup.existing.apiRps} req/s (p99 ${before.lookup.existing.apiP99Loaded} ms) before, **${after.lookup.existing.apiRps} req/s (p99 ${after.lookup.existing.apiP99Loaded} ms)** after; target >= 5,000 req/s with p99 <= 20 ms: ${lookupMet ? 'met' : '**not met**'}.
- First load of 1,000,000 rows: ${before.import.large.rowsPerSecond.toLocaleString('en-US')} rows/s before, **${after.import.large.rowsPerSecond.toLocaleString('en-US')} rows/s** after; target >= 35,000: ${loadMet ? 'met' : '**not met**'}. The same rows again: ${before.import.again.rowsPerSecond.toLocaleString('en-US')} and ${after.import.again.rowsPerSecond.toLocaleString('en-US')} rows/s.
`;
}
