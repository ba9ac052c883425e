// Rows per second an export streams: `pnpm --filter @domain-index/bench export-throughput`.
// One API process (WORKERS=1) on the benchmark's database (BENCH_ROWS listings, 5M by default);
// `status=all` in the default order exported as CSV and as JSON lines, each with gzip and
// without, read by a client as fast as it can, against the floor: PostgreSQL's own
// `COPY (the same statement) TO STDOUT` read by postgres.js, run once a round beside the
// exports (BENCH_EXPORT_ROUNDS, 3), each export's rate divided by its own round's floor. The
// API's resident memory is sampled from /proc every 100 ms during each export: it must stay
// flat, whatever the size.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { exportQuerySchema } from '@domain-index/contract';
import { openDatabase } from '@domain-index/db';
import { exportStatements } from '@domain-index/api/exports/export-statements';
import { cpuDuring } from './cpu';
import { ensureDataset } from './dataset';
import { benchKey, startApi } from './servers';
import { BENCH } from './settings';

const log = (line: string) => process.stderr.write(`${line}\n`);
const ROUNDS = Number(process.env.BENCH_EXPORT_ROUNDS ?? 3);

/** Resident memory of a process now (VmRSS), MiB. */
function rssMiB(pid: number): number {
  return (
    Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  );
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

// The floor: COPY of the very statement the export runs, as CSV, read as it comes; run once a
// round beside the exports, on a connection of its own (a second COPY on one postgres.js
// connection was left unread, ClientWrite, here), so each round's ratios are side by side.
async function copyFloor(): Promise<{ seconds: number; bytes: number }> {
  const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
  try {
    const statements = exportStatements(
      database,
      exportQuerySchema.parse({ ...params, format: 'csv' }),
      new Date(),
    );
    const copy = `copy (${inlined(statements.rows.sql, statements.rows.params)}) to stdout with (format csv, header)`;
    if (database.driver.kind !== 'postgres') throw new Error('the floor needs PostgreSQL');
    const started = performance.now();
    let bytes = 0;
    const stream = await database.driver.client.unsafe(copy).readable();
    for await (const chunk of stream) bytes += (chunk as Buffer).length;
    return { seconds: (performance.now() - started) / 1000, bytes };
  } finally {
    await database.close();
  }
}
const floor: { round: number; seconds: number; bytes: number }[] = [];

const apiEnv = {
  DATABASE_URL: BENCH.databaseUrl,
  REDIS_URL: BENCH.redisUrl,
  WORKERS: '1',
  EXPORT_TIMEOUT_MS: '86400000',
};
const api = await startApi(apiEnv);
// BENCH_EXPORT_BEFORE_CLI: another checkout's apps/cli/bin/domain-index.js, whose exports run in
// the same rounds (labelled "before"), for a change's before and after side by side
const beforeCli = process.env.BENCH_EXPORT_BEFORE_CLI;
const before = beforeCli === undefined ? undefined : await startApi(apiEnv, beforeCli);
// the formats the other checkout runs: BENCH_EXPORT_BEFORE_FORMATS=jsonl when only JSON lines changed
const beforeFormats = (process.env.BENCH_EXPORT_BEFORE_FORMATS ?? 'csv,jsonl').split(',');
const results: {
  round: number;
  api: 'now' | 'before';
  format: string;
  gzip: boolean;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  wireBytes: number;
  rssBeforeMiB: number;
  rssMaxMiB: number;
  apiCpuUsPerRow: number;
  postgresCpuUsPerRow: number;
}[] = [];
try {
  const once = (format: string, gzip: boolean, server = api) =>
    new Promise<{ rows: number; seconds: number; wireBytes: number; rssMaxMiB: number }>(
      (resolve, reject) => {
        const started = performance.now();
        let rssMax = rssMiB(server.pid);
        const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssMiB(server.pid))), 100);
        const req = request(
          `${server.url}/api/v1/exports/domains?${new URLSearchParams({ ...params, format }).toString()}`,
          {
            headers: {
              authorization: `Bearer ${key}`,
              ...(gzip ? { 'accept-encoding': 'gzip' } : {}),
            },
          },
          (res) => {
            if (res.statusCode !== 200)
              reject(new Error(`export answered ${String(res.statusCode)}`));
            let wireBytes = 0;
            res.on('data', (chunk: Buffer) => (wireBytes += chunk.length));
            res.on('end', () => {
              clearInterval(sampler);
              resolve({
                rows: Number(res.headers['x-total-count']),
                seconds: (performance.now() - started) / 1000,
                wireBytes,
                rssMaxMiB: rssMax,
              });
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end();
      },
    );
  for (let round = 0; round < ROUNDS; round += 1) {
    floor.push({ round, ...(await copyFloor()) });
    log(
      `round ${round}: COPY TO STDOUT ${floor.at(-1)!.seconds.toFixed(2)} s, ${(floor.at(-1)!.bytes / 1e6).toFixed(1)} MB`,
    );
    const servers: [label: 'now' | 'before', server: typeof api][] = [['now', api]];
    if (before !== undefined) servers.push(['before', before]);
    for (const [label, server] of servers)
      for (const format of label === 'before' ? beforeFormats : ['csv', 'jsonl'])
        for (const gzip of [false, true]) {
          const rssBeforeMiB = rssMiB(server.pid);
          // the CPU it cost each side: the API process, and PostgreSQL (every postgres process)
          const { result: run, cpu } = await cpuDuring(server.pid, () =>
            once(format, gzip, server),
          );
          const row = {
            round,
            api: label,
            format,
            gzip,
            ...run,
            rowsPerSecond: Math.round(run.rows / run.seconds),
            rssBeforeMiB: Math.round(rssBeforeMiB),
            rssMaxMiB: Math.round(run.rssMaxMiB),
            apiCpuUsPerRow: Number(((cpu.api * 1_000) / run.rows).toFixed(2)),
            postgresCpuUsPerRow: Number(((cpu.postgres * 1_000) / run.rows).toFixed(2)),
          };
          results.push(row);
          log(
            `round ${round}: ${label === 'before' ? 'before: ' : ''}${format}${gzip ? ' gzip' : ''}: ${row.rows} rows in ${row.seconds.toFixed(2)} s = ${row.rowsPerSecond} rows/s, ${(row.wireBytes / 1e6).toFixed(1)} MB on the wire, CPU per row: API ${row.apiCpuUsPerRow} µs, PostgreSQL ${row.postgresCpuUsPerRow} µs, API RSS ${row.rssBeforeMiB} -> max ${row.rssMaxMiB} MiB`,
          );
        }
  }
} finally {
  await api.stop();
  await before?.stop();
}

// each export against its own round's floor, then the median over the rounds
const rowsOf = results[0]?.rows ?? 0;
const floorRowsPerSecond = (round: number) =>
  rowsOf / floor.find((run) => run.round === round)!.seconds;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ratios = (['now', 'before'] as const).flatMap((label) =>
  ['csv', 'jsonl'].flatMap((format) =>
    [false, true].flatMap((gzip) => {
      const runs = results.filter((r) => r.api === label && r.format === format && r.gzip === gzip);
      if (runs.length === 0) return [];
      return [
        {
          api: label,
          format,
          gzip,
          medianApiCpuUsPerRow: median(runs.map((r) => r.apiCpuUsPerRow)),
          medianPostgresCpuUsPerRow: median(runs.map((r) => r.postgresCpuUsPerRow)),
          medianRowsPerSecond: Math.round(median(runs.map((r) => r.rowsPerSecond))),
          ofFloor: Number(
            median(runs.map((r) => r.rowsPerSecond / floorRowsPerSecond(r.round))).toFixed(2),
          ),
        },
      ];
    }),
  ),
);
log(`floor (COPY): median ${Math.round(median(floor.map((run) => rowsOf / run.seconds)))} rows/s`);
for (const ratio of ratios)
  log(
    `${ratio.api === 'before' ? 'before: ' : ''}${ratio.format}${ratio.gzip ? ' gzip' : ''}: median ${ratio.medianRowsPerSecond} rows/s = ${ratio.ofFloor} of its round's floor, CPU per row: API ${ratio.medianApiCpuUsPerRow} µs, PostgreSQL ${ratio.medianPostgresCpuUsPerRow} µs`,
  );
const file = fileURLToPath(
  new URL(
    `../results/${process.env.BENCH_RESULTS_FILE ?? 'export-throughput.json'}`,
    import.meta.url,
  ),
);
mkdirSync(fileURLToPath(new URL('../results/', import.meta.url)), { recursive: true });
writeFileSync(
  file,
  `${JSON.stringify({ at: new Date().toISOString(), listings: dataset.listings, rounds: ROUNDS, floor, ratios, results }, null, 2)}\n`,
);
log(`written ${file}`);
