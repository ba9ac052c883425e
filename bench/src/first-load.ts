// A first load of 1,000,000 rows, side by side with another checkout's:
// `BEFORE_CLI=<other checkout>/apps/cli/bin/domain-index.js pnpm --filter @domain-index/bench first-load`,
// written to bench/results/first-load.json, or to FIRST_LOAD_RESULTS_FILE (another pair of commits).
// Each round imports the same feed into a fresh database with each checkout's `domain-index
// import`, in alternating order, end to end (process start to exit), as run.ts measures it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI } from './dataset';
import { measureImport, writeFeed, type ImportResult } from './import-bench';
import { BENCH } from './settings';

const BEFORE_CLI = process.env.BEFORE_CLI;
if (BEFORE_CLI === undefined)
  throw new Error('BEFORE_CLI must name the domain-index.js of the checkout to compare with');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ROWS = 1_000_000;
const log = (line: string) => process.stderr.write(`${line}\n`);

const scratch = mkdtempSync(join(tmpdir(), 'di-first-load-'));
const feed = join(scratch, 'feed-1m.jsonl');
await writeFeed(feed, ROWS);
const sides = { before: BEFORE_CLI, after: CLI } as const;
type Side = keyof typeof sides;
const results: Record<Side, ImportResult[]> = { before: [], after: [] };
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    const order: Side[] = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const side of order) {
      const result = await measureImport(
        BENCH.databaseUrl,
        BENCH.importDatabaseUrl,
        feed,
        ROWS,
        true,
        { cli: sides[side] },
      );
      log(`round ${round + 1} ${side}: ${result.seconds} s, ${result.rowsPerSecond} rows/s`);
      results[side].push(result);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
writeFileSync(
  `${resultsDir}${process.env.FIRST_LOAD_RESULTS_FILE ?? 'first-load.json'}`,
  `${JSON.stringify({ ranAt: new Date().toISOString(), rows: ROWS, rounds: ROUNDS, results }, null, 2)}\n`,
);
const lines = [
  '| round | before, s | rows/s | after, s | rows/s | after/before time |',
  '|---|---:|---:|---:|---:|---:|',
];
for (let round = 0; round < ROUNDS; round += 1) {
  const [b, a] = [results.before[round]!, results.after[round]!];
  lines.push(
    `| ${round + 1} | ${b.seconds} | ${b.rowsPerSecond} | ${a.seconds} | ${a.rowsPerSecond} | ${(a.seconds / b.seconds).toFixed(2)} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
