import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { beforeAfterSection } from './before-after';
import { fileURLToPath } from 'node:url';
import type { CpuSplit } from './cpu';
import type { Dataset } from './dataset';
import type { RelationDisk } from './history';
import type { ImportResult } from './import-bench';
import type { Latency } from './measure';

/** One shape measured side by side. */
export interface ShapeResult {
  name: string;
  kind: string;
  path: string;
  bodyBytes: number;
  api: Latency;
  floor: Latency;
  /** The HTTP ceiling at concurrency 1: the same client and body, no work behind it. */
  ceiling?: Latency;
  apiRps: number;
  /** CPU per API request under the concurrency-32 load, microseconds, by process. */
  cpuPerRequestUs?: CpuSplit;
  apiP99Loaded: number;
  apiErrors: number;
  floorRps: number;
  ceilingRps: number;
  total?: { value: number; accuracy: 'exact' | 'planned'; trueCount?: number } | undefined;
}

/** A request measured over spread paths (change-feed positions, watched names): API only. */
export interface LoadResult {
  name: string;
  kind: string;
  api: Latency;
  apiRps: number;
  apiP99Loaded: number;
  apiErrors: number;
  cpuPerRequestUs?: CpuSplit;
}

/** Everything one run measured; written to bench/results/results.json. */
export interface Results {
  ranAt: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string };
  settings: Record<string, unknown>;
  dataset: Dataset;
  shapes: ShapeResult[];
  deepPaging: { page1: ShapeResult; page200: ShapeResult; ratioP50: number };
  lookup: { existing: ShapeResult; missing: ShapeResult };
  stats: { coldApiMs: number; coldFloorMs: number; warm: ShapeResult };
  /** What the database held beside the listings, and disk by relation (runs since issue 43). */
  history?: { eventsPerDay: number; days: number; events: number; watched: number; historyRows: number; eventsSeconds: number; historySeconds: number; disk: RelationDisk[] };
  feed?: LoadResult[];
  namePage?: LoadResult;
  apiPeakRssMiB: number;
  import: { small: ImportResult; large: ImportResult; again: ImportResult };
  pglite: { name: string; p50: number; p99: number }[];
}

const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '-');
const ok = (pass: boolean) => (pass ? 'yes' : '**no**');

/** Whether a shape meets the issue's target for its kind; stats have none. */
function meetsTarget(s: ShapeResult): string {
  if (s.kind === 'stats') return '-';
  if (s.kind === 'lookup') return ok(s.apiRps >= 3000 && s.apiP99Loaded <= 25);
  return ok(s.api.p50 <= 25 && s.api.p99 <= 150 && s.api.p50 <= 1.3 * s.floor.p50);
}

function shapeRow(s: ShapeResult): string {
  const total = s.total === undefined ? '-' : `${s.total.accuracy} ${s.total.value}${s.total.trueCount === undefined ? '' : ` (true ${s.total.trueCount})`}`;
  return `| ${s.name} | ${s.api.p50} | ${s.api.p95} | ${s.api.p99} | ${s.floor.p50} | ${ratio(s.api.p50, s.floor.p50)} | ${s.apiRps} | ${s.floorRps} | ${s.ceilingRps} | ${ratio(s.apiRps, s.ceilingRps)} | ${total} | ${meetsTarget(s)} |`;
}

/** Cores of the machine the figures were taken on (results.machine.cpus). */
function costRow(s: ShapeResult, cores: number): string {
  const c = s.cpuPerRequestUs;
  const own = s.ceiling === undefined ? '-' : Math.max(0, s.api.p50 - s.floor.p50 - s.ceiling.p50).toFixed(2);
  const sum = c === undefined ? 0 : c.api + c.postgres + c.redis + c.loadGenerator;
  const cpu = c === undefined ? Array<string>(6).fill('-') : [c.api, c.postgres, c.redis, c.loadGenerator, sum, (cores * 1e6) / sum].map((v) => Math.round(v).toString());
  return `| ${s.name} | ${s.api.p50} | ${s.floor.p50} | ${s.ceiling?.p50 ?? '-'} | ${own} | ${cpu.join(' | ')} | ${s.apiRps} |`;
}

/** A horizontal bar chart of p50 latency per shape, API against floor. */
function latencyChart(shapes: ShapeResult[]): string {
  const rowHeight = 26;
  const left = 330;
  const width = 980;
  const max = Math.max(...shapes.flatMap((s) => [s.api.p50, s.floor.p50]), 1);
  const scale = (value: number) => ((width - left - 80) * value) / max;
  const rows = shapes
    .map((s, i) => {
      const y = 40 + i * rowHeight;
      const label = s.name.replace(/&/g, '&amp;').replace(/</g, '&lt;');
      return [
        `<text x="${left - 8}" y="${y + 15}" text-anchor="end">${label}</text>`,
        `<rect x="${left}" y="${y + 2}" width="${scale(s.api.p50).toFixed(1)}" height="10" fill="#2b6cb0"/>`,
        `<rect x="${left}" y="${y + 13}" width="${scale(s.floor.p50).toFixed(1)}" height="10" fill="#a0aec0"/>`,
        `<text x="${(left + scale(s.api.p50) + 4).toFixed(1)}" y="${y + 11}" class="v">${s.api.p50} ms</text>`,
        `<text x="${(left + scale(s.floor.p50) + 4).toFixed(1)}" y="${y + 22}" class="v">${s.floor.p50} ms</text>`,
      ].join('');
    })
    .join('\n');
  const height = 60 + shapes.length * rowHeight;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">
<style>.v{font-size:10px;fill:#333}</style>
<rect width="100%" height="100%" fill="white"/>
<text x="${left}" y="20" font-size="14">p50 latency at concurrency 1: API over HTTP (blue) and the same SQL straight to PostgreSQL (grey)</text>
${rows}
</svg>
`;
}

/** The error of a planned total against the true count, as a signed percentage. */
function plannedError(total: ShapeResult['total']): string {
  if (total === undefined) return '-';
  if (total.accuracy === 'exact') return 'exact';
  if (total.trueCount === undefined || total.trueCount === 0) return `planned ${total.value}`;
  const error = (total.value / total.trueCount - 1) * 100;
  return `planned, ${error >= 0 ? '+' : ''}${error.toFixed(0)}%`;
}

const mib = (value: number | undefined) => (value === undefined ? '?' : `${(value / 1024).toFixed(1)} GiB`);

/** 5M (results.json) and the larger runs (results-<N>m.json) side by side: the shapes and the whole. */
function scaleSection(small: Results, larges: Results[]): string {
  const runs = [small, ...larges];
  const largest = larges[larges.length - 1]!;
  const byName = runs.map((run) => new Map(run.shapes.map((shape) => [shape.name, shape])));
  const pg = (s: ShapeResult | undefined) => (s?.cpuPerRequestUs === undefined ? '-' : String(Math.round(s.cpuPerRequestUs.postgres)));
  const row = (name: string, pick: (r: Results, i: number) => ShapeResult | undefined, withTotals: boolean) => {
    const each = runs.map((run, i) => pick(run, i));
    const top = each[each.length - 1];
    const target = top === undefined ? '-' : withTotals ? ok(top.api.p50 <= 25 && top.api.p99 <= 150) : '-';
    const totals = runs.map((_, i) => (withTotals ? plannedError(each[i]?.total) : '-'));
    return `| ${name} | ${each.map((e) => e?.api.p50 ?? '-').join(' | ')} | ${each.map((e) => e?.api.p99 ?? '-').join(' | ')} | ${top?.apiRps ?? '-'} | ${top?.apiP99Loaded ?? '-'} | ${pg(top)} | ${totals.join(' | ')} | ${target} |`;
  };
  const n = (r: Results) => r.dataset.listings.toLocaleString('en-US');
  const m = (r: Results) => `${(r.dataset.rows / 1e6).toFixed(0)}M`;
  const sizes = (label: string) => runs.map((r) => `${label} ${m(r)}`).join(' | ');
  const figure = (label: string, value: (r: Results) => string) => `| ${label} | ${runs.map(value).join(' | ')} |`;
  const rate = (value: number | undefined) => Math.round(value ?? 0).toLocaleString('en-US');
  return `## ${runs.map(m).join(', ')} listings side by side

The same shapes, machine and settings at ${runs.map((r) => `${n(r)} listings (${r === small ? 'results.json' : `results-${r.dataset.rows / 1e6}m.json`}, ${r.ranAt.slice(0, 10)})`).join(', ')}.
Latency in ms at concurrency 1; at ${m(largest)} also the requests a second and the p99 under the
concurrency-32 load, and PostgreSQL's CPU per request in microseconds under it; the planned
totals against the true count, as each run found them on its date. Targets at the largest size:
p50 <= 25 ms and p99 <= 150 ms per search shape, planned totals within 25%. The planned totals
have been measured again since, with the statistics added after these runs, by
\`bench planned-accuracy\` at every size: from note 100 on below, and note 107 has every shape at each size.

| shape | ${sizes('p50')} | ${sizes('p99')} | req/s c=32 ${m(largest)} | p99 c=32 ${m(largest)} | PG CPU us ${m(largest)} | ${sizes('total')} | meets target ${m(largest)} |
|---|${runs.map(() => '---|').join('')}${runs.map(() => '---|').join('')}---|---|---|${runs.map(() => '---|').join('')}---|
${small.shapes.map((s) => row(s.name, (_r, i) => byName[i]!.get(s.name), true)).join('\n')}
${row(`default list, page ${DEEP_PAGE_LABEL}`, (r) => r.deepPaging.page200, false)}
${row('lookup existing', (r) => r.lookup.existing, false)}
${row('lookup missing', (r) => r.lookup.missing, false)}
${row('stats (warm cache)', (r) => r.stats.warm, false)}

| figure | ${runs.map(n).join(' | ')} |
|---|${runs.map(() => '---|').join('')}
${figure('seed through the import path (a first load of every source), rows/s', (r) => rate(r.dataset.seedRowsPerSecond))}
${figure('import of a 1,000,000-row feed into an empty database, rows/s', (r) => rate(r.import.large.rowsPerSecond))}
${figure('the same 1,000,000 rows again (nothing changed), rows/s', (r) => rate(r.import.again.rowsPerSecond))}
${figure('disk: database', (r) => mib(r.dataset.disk?.databaseMiB))}
${figure('disk: listings (heap and TOAST)', (r) => mib(r.dataset.disk?.listingsMiB))}
${figure("disk: listings' indexes", (r) => mib(r.dataset.disk?.indexesMiB))}
${figure('lookup req/s at concurrency 32', (r) => String(r.lookup.existing.apiRps))}
${figure('deep paging, page 200 against page 1 (p50)', (r) => `${r.deepPaging.ratioP50}x`)}
${figure('stats, cold cache, ms', (r) => String(r.stats.coldApiMs))}
${figure('API server peak RSS, MiB', (r) => String(r.apiPeakRssMiB))}
`;
}

/** The change feed, a name's page and disk by relation, from a run whose database held them. */
function historySection(r: Results): string {
  const h = r.history!;
  const n = (value: number) => value.toLocaleString('en-US');
  const loadRow = (l: LoadResult) =>
    `| ${l.name} | ${l.api.p50} | ${l.api.p99} | ${l.apiRps} | ${l.apiP99Loaded} | ${l.cpuPerRequestUs === undefined ? '-' : Math.round(l.cpuPerRequestUs.postgres)} | ${l.apiErrors} |`;
  const tables = [...new Set(h.disk.map((d) => d.table))];
  const diskRows = tables.flatMap((table) => {
    const of = h.disk.filter((d) => d.table === table);
    const sum = of.reduce((total, d) => total + d.mib, 0);
    return [...of.map((d) => `| ${table} | ${d.kind === 'table' ? 'heap (with TOAST)' : d.relation} | ${n(d.mib)} |`), `| **${table}** | **in all** | **${n(sum)}** |`];
  });
  const all = h.disk.reduce((total, d) => total + d.mib, 0);
  return `## At ${(r.dataset.rows / 1e6).toFixed(0)} million: the change feed, a name's page, disk by relation

The same run (results-${r.dataset.rows / 1e6}m.json, ${r.ranAt.slice(0, 10)}), on the same database, which also held
${n(h.events)} change-feed events (${n(h.eventsPerDay)} a day for ${h.days} days, in daily partitions) and, for
${n(h.watched)} watched names (watchlists of 1,000), their registrations and ${n(h.historyRows)} rows of a year's
history. Each request of these reads another position or name, drawn at random: at concurrency
1 (${String(r.settings.sequentialRequests)} requests), then for ${String(r.settings.loadSeconds)} s at concurrency ${String(r.settings.concurrency)}.

| request | p50 ms | p99 ms | req/s c=${String(r.settings.concurrency)} | p99 c=${String(r.settings.concurrency)} ms | PG CPU us/req | errors |
|---|---|---|---|---|---|---|
${[...(r.feed ?? []).map((l) => ({ ...l, name: `change feed: ${l.name}` })), ...(r.namePage === undefined ? [] : [r.namePage])].map(loadRow).join('\n')}

Disk by relation (MiB; a partitioned table's partitions and their indexes summed):

| table | relation | MiB |
|---|---|---|
${diskRows.join('\n')}
| **all of them** | | **${n(all)}** |
`;
}

const DEEP_PAGE_LABEL = 200;

/** The commit results-before.json measured: the API before issue 20's changes. */
const BEFORE_LABEL = 'cd24b34, the API before issue 20';

/**
 * Writes BENCHMARKS.md (repository root) and the chart from the JSON results: the standard run
 * (results.json), the larger ones beside it (results-<N>m.json) with the change feed, names and disk
 * by relation of the largest that has them, the same run
 * against an earlier commit when there is one (results-before.json), then the notes
 * written by hand (bench/notes/*.md, in the order of their numbers) and the analysis (bench/ANALYSIS.md).
 */
export function writeReport(resultsDir: string): void {
  const r = JSON.parse(readFileSync(`${resultsDir}results.json`, 'utf8')) as Results;
  // the larger runs, smallest first: results-20m.json, results-30m.json
  const larges = readdirSync(resultsDir)
    .filter((name) => /^results-\d+m\.json$/.test(name))
    .map((name) => JSON.parse(readFileSync(`${resultsDir}${name}`, 'utf8')) as Results)
    .sort((a, b) => a.dataset.rows - b.dataset.rows);
  const withHistory = [...larges].reverse().find((run) => run.history !== undefined);
  writeFileSync(`${resultsDir}latency.svg`, latencyChart([...r.shapes, r.deepPaging.page200, r.lookup.existing, r.lookup.missing, r.stats.warm]));
  const header =
    '| shape | API p50 | p95 | p99 | floor p50 | API/floor | API req/s (c=32) | floor req/s | ceiling req/s | API/ceiling | total | meets target |\n|---|---|---|---|---|---|---|---|---|---|---|---|';
  const md = `# Benchmarks

Generated by \`pnpm --filter @domain-index/bench bench\` on ${r.ranAt.slice(0, 10)}; raw figures in
[bench/results/results.json](bench/results/results.json). Run by hand, never in the test suite.

Machine: ${r.machine.cpus} cores (${r.machine.cpuModel}), ${r.machine.memoryGiB} GiB, Node ${r.machine.node}; PostgreSQL and Redis
on the same machine, the load generator (autocannon) and the floor in the benchmark process,
the API and the ceiling in processes of their own. Everything shares the same 2 cores.

## How it is measured

- **Data**: ${r.dataset.listings.toLocaleString('en-US')} listings made by \`domain-index seed --rows ${r.dataset.rows}\`
  (${r.dataset.reused ? 'reused from an earlier run: same row count and seed fingerprint' : 'seeded in this run'}; the seed took
  ${r.dataset.seedSeconds?.toFixed(0) ?? '?'} s, ${Math.round(r.dataset.seedRowsPerSecond ?? 0).toLocaleString('en-US')} rows/s).
- **API**: \`domain-index serve\` on PostgreSQL with the Redis rate limiter and
  \`WORKERS=${typeof r.settings.workers === 'number' ? r.settings.workers : 1}\` (one process per core), over HTTP with a key on an unmetered plan. Latency: ${String(r.settings.sequentialRequests)} requests one after another
  (concurrency 1) after a warm-up. Throughput: ${String(r.settings.loadSeconds)} s at concurrency ${String(r.settings.concurrency)}.
- **Floor**: the very same SQL text and parameters the API sends for the page (rendered by the
  API's own query builders), sent through postgres.js with no HTTP: concurrency 1 and 32.
  \`total\` is counted once per filter set and cached for 30 s, so in these loops the API's
  cost is the page query, as the floor's is.
- **Ceiling**: a bare Express 4 handler returning a fixed body of the same size as the API's
  answer, under the same load.
- Targets ("meets target"): every search shape p50 <= 25 ms and p99 <= 150 ms at
  concurrency 1, and API p50 within 1.3x of the floor; a lookup >= 3,000 req/s at concurrency
  32 with p99 <= 25 ms under that load.

## Search shapes

${header}
${r.shapes.map(shapeRow).join('\n')}

![p50 latency per shape, API against floor](bench/results/latency.svg)

## Where a request's time and CPU go

At concurrency 1, the API's p50 against the floor (the page's SQL alone) and the ceiling
(the same HTTP client fetching a body of the same size from a bare Express handler): what is
left is the API's own work per request (authentication, rate limit, validation, building the
statement, mapping and serialising the rows). Under the concurrency-32 load, the CPU each
request cost, by process, read from /proc: the sum, spread over ${r.machine.cpus} cores, is the most
requests per second this machine could serve with every core busy.

| shape | API p50 | floor p50 | ceiling p50 | API's own ms | CPU us/req: API | PostgreSQL | Redis | load generator | sum | machine-bound req/s | API req/s |
|---|---|---|---|---|---|---|---|---|---|---|---|
${[...r.shapes, r.deepPaging.page200, r.lookup.existing, r.lookup.missing].map((s) => costRow(s, r.machine.cpus)).join('\n')}

## Deep paging, lookup, stats

${header}
${[r.deepPaging.page1, r.deepPaging.page200, r.lookup.existing, r.lookup.missing, r.stats.warm].map(shapeRow).join('\n')}

- Page 200 along one cursor chain against page 1 (p50): **${r.deepPaging.ratioP50}x** (target <= 1.5x).
- Lookup at concurrency 32: **${r.lookup.existing.apiRps} req/s**, p99 ${r.lookup.existing.apiP99Loaded} ms under that load (target >= 3,000 req/s, p99 <= 25 ms).
- Stats, cold cache (the first call of a fresh instance): API ${r.stats.coldApiMs} ms, the five counts straight to PostgreSQL ${r.stats.coldFloorMs} ms. Warm: the table above.
- API server peak RSS over the whole run: ${r.apiPeakRssMiB} MiB.

## Import

| feed | rows | seconds | rows/s | peak RSS |
|---|---|---|---|---|
| 250,000-row JSONL file | ${r.import.small.rows.toLocaleString('en-US')} | ${r.import.small.seconds} | ${r.import.small.rowsPerSecond.toLocaleString('en-US')} | ${r.import.small.peakRssMiB} MiB |
| 1,000,000-row JSONL file | ${r.import.large.rows.toLocaleString('en-US')} | ${r.import.large.seconds} | ${r.import.large.rowsPerSecond.toLocaleString('en-US')} | ${r.import.large.peakRssMiB} MiB |
| the same 1,000,000 rows again (a sync where nothing changed) | ${r.import.again.rows.toLocaleString('en-US')} | ${r.import.again.seconds} | ${r.import.again.rowsPerSecond.toLocaleString('en-US')} | ${r.import.again.peakRssMiB} MiB |

End to end: \`domain-index import\` from process start to exit, into an empty, migrated
database for the first two rows and over that batch for the third (target >= 20,000 rows/s,
memory flat in the feed's size).

## Embedded default (PGlite, demo data)

| shape | p50 ms | p99 ms | p50 <= 50 ms |
|---|---|---|---|
${r.pglite.map((p) => `| ${p.name} | ${p.p50} | ${p.p99} | ${ok(p.p50 <= 50)} |`).join('\n')}
`;
  // Measurements of their own (compression, replicas during imports, ...), and the reading of
  // the figures (what misses a target, why, and the plan), are written by hand.
  const notesDir = fileURLToPath(new URL('../notes/', import.meta.url));
  const notes = existsSync(notesDir)
    ? readdirSync(notesDir)
        .filter((name) => name.endsWith('.md'))
        // by their number, so that note 100 follows 99 (as text it would follow 10)
        .sort((a, b) => parseInt(a, 10) - parseInt(b, 10) || a.localeCompare(b))
        .map((name) => `\n${readFileSync(`${notesDir}${name}`, 'utf8').trimEnd()}\n`)
        .join('')
    : '';
  const analysisFile = fileURLToPath(new URL('../ANALYSIS.md', import.meta.url));
  const analysis = existsSync(analysisFile) ? `\n${readFileSync(analysisFile, 'utf8')}` : '';
  const scale = larges.length === 0 ? '' : `\n${scaleSection(r, larges)}${withHistory === undefined ? '' : `\n${historySection(withHistory)}`}`;
  const beforeFile = `${resultsDir}results-before.json`;
  const comparison = existsSync(beforeFile) ? `\n${beforeAfterSection(JSON.parse(readFileSync(beforeFile, 'utf8')) as Results, r, BEFORE_LABEL)}` : '';
  writeFileSync(fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url)), md + scale + comparison + notes + analysis);
}
