// Rows per second an export streams: `pnpm --filter @domain-index/bench export-throughput`.
// One API process (WORKERS=1) on the benchmark's database (BENCH_ROWS listings, 5M by default);
// `status=all` in the default order exported as CSV and as JSON lines, each with gzip and
// without, read by a client as fast as it can, against the floor: PostgreSQL's own
// `COPY (the same statement) TO STDOUT` read by postgres.js. The API's resident memory is
// sampled from /proc every 100 ms during each export: it must stay flat, whatever the size.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { exportQuerySchema } from '@domain-index/contract';
import { openDatabase } from '@domain-index/db';
import { exportStatements } from '@domain-index/api/exports/export-statements';
import { ensureDataset } from './dataset';
import { benchKey, startApi } from './servers';
import { BENCH } from './settings';

const log = (line: string) => process.stderr.write(`${line}\n`);
const ROUNDS = Number(process.env.BENCH_EXPORT_ROUNDS ?? 2);

/** Resident memory of a process now (VmRSS), MiB. */
function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/** A statement's text with its parameters written in as literals: COPY takes none. */
function inlined(text: string, params: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const value = params[Number(n) - 1];
    if (typeof value === 'number' || typeof value === 'bigint') return String(value);
    const literal = value instanceof Date ? value.toISOString() : String(value);
    return `'${literal.replace(/'/g, "''")}'`;
  });
}

const dataset = await ensureDataset(BENCH.databaseUrl, BENCH.rows, BENCH.seed);
log(`dataset: ${dataset.listings} listings`);
const key = await benchKey(BENCH.databaseUrl);
const params = { status: 'all' };

// The floor: COPY of the very statement the export runs, as CSV, read as it comes.
const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
const floor: { seconds: number; bytes: number }[] = [];
try {
  const statements = exportStatements(database, exportQuerySchema.parse({ ...params, format: 'csv' }), new Date());
  const copy = `copy (${inlined(statements.rows.sql, statements.rows.params)}) to stdout with (format csv, header)`;
  if (database.driver.kind !== 'postgres') throw new Error('the floor needs PostgreSQL');
  const client = database.driver.client;
  // one run: a second COPY on the same postgres.js connection was left unread (ClientWrite) here
  const started = performance.now();
  let bytes = 0;
  const stream = await client.unsafe(copy).readable();
  for await (const chunk of stream) bytes += (chunk as Buffer).length;
  floor.push({ seconds: (performance.now() - started) / 1000, bytes });
  log(`COPY TO STDOUT: ${floor.at(-1)!.seconds.toFixed(2)} s, ${(bytes / 1e6).toFixed(1)} MB`);
} finally {
  await database.close();
}

const api = await startApi({ DATABASE_URL: BENCH.databaseUrl, REDIS_URL: BENCH.redisUrl, WORKERS: '1', EXPORT_TIMEOUT_MS: '86400000' });
const results: { format: string; gzip: boolean; rows: number; seconds: number; rowsPerSecond: number; wireBytes: number; rssBeforeMiB: number; rssMaxMiB: number }[] = [];
try {
  const once = (format: string, gzip: boolean) =>
    new Promise<{ rows: number; seconds: number; wireBytes: number; rssMaxMiB: number }>((resolve, reject) => {
      const started = performance.now();
      let rssMax = rssMiB(api.pid);
      const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssMiB(api.pid))), 100);
      const req = request(
        `${api.url}/api/v1/exports/domains?${new URLSearchParams({ ...params, format }).toString()}`,
        { headers: { authorization: `Bearer ${key}`, ...(gzip ? { 'accept-encoding': 'gzip' } : {}) } },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`export answered ${String(res.statusCode)}`));
          let wireBytes = 0;
          res.on('data', (chunk: Buffer) => (wireBytes += chunk.length));
          res.on('end', () => {
            clearInterval(sampler);
            resolve({ rows: Number(res.headers['x-total-count']), seconds: (performance.now() - started) / 1000, wireBytes, rssMaxMiB: rssMax });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  for (const format of ['csv', 'jsonl'])
    for (const gzip of [false, true])
      for (let round = 0; round < ROUNDS; round += 1) {
        const rssBeforeMiB = rssMiB(api.pid);
        const run = await once(format, gzip);
        const row = { format, gzip, ...run, rowsPerSecond: Math.round(run.rows / run.seconds), rssBeforeMiB: Math.round(rssBeforeMiB), rssMaxMiB: Math.round(run.rssMaxMiB) };
        results.push(row);
        log(`${format}${gzip ? ' gzip' : ''}: ${row.rows} rows in ${row.seconds.toFixed(2)} s = ${row.rowsPerSecond} rows/s, ${(row.wireBytes / 1e6).toFixed(1)} MB on the wire, API RSS ${row.rssBeforeMiB} -> max ${row.rssMaxMiB} MiB`);
      }
} finally {
  await api.stop();
}

const floorSeconds = Math.min(...floor.map((run) => run.seconds));
const floorRowsPerSecond = Math.round(dataset.listings > 0 ? (results[0]?.rows ?? 0) / floorSeconds : 0);
const best = (format: string, gzip: boolean) => Math.max(...results.filter((r) => r.format === format && r.gzip === gzip).map((r) => r.rowsPerSecond));
log(`floor (COPY): ${floorRowsPerSecond} rows/s`);
for (const format of ['csv', 'jsonl'])
  for (const gzip of [false, true]) log(`${format}${gzip ? ' gzip' : ''}: best ${best(format, gzip)} rows/s = ${(best(format, gzip) / floorRowsPerSecond).toFixed(2)} of the floor`);
const file = fileURLToPath(new URL(`../results/${process.env.BENCH_RESULTS_FILE ?? 'export-throughput.json'}`, import.meta.url));
mkdirSync(fileURLToPath(new URL('../results/', import.meta.url)), { recursive: true });
writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), listings: dataset.listings, rounds: ROUNDS, floor, floorRowsPerSecond, results }, null, 2)}\n`);
log(`written ${file}`);
