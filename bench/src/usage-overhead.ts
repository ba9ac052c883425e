// What counting key usage costs the API: `BEFORE_CLI=<other checkout>/apps/cli/bin/domain-index.js
// pnpm --filter @domain-index/bench usage-overhead`. It starts the API of that checkout (before
// the dashboard) and of this one, on the same database and Redis, one process each, and measures
// them side by side in alternating rounds with the benchmark's own lookup and search shapes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openDatabase, sql } from '@domain-index/db';
import { cpuDuring } from './cpu';
import { CLI, ensureDataset } from './dataset';
import { httpLoad, sequential } from './measure';
import { benchKey, freePort, type ServerProcess } from './servers';
import { BENCH } from './settings';
import { SEARCH_SHAPES } from './shapes';
import { spawn } from 'node:child_process';

const BEFORE_CLI = process.env.BEFORE_CLI;
if (BEFORE_CLI === undefined) throw new Error('BEFORE_CLI must name the domain-index.js of the checkout to compare with');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SHAPES = ['default list', 'common term (shop)', 'source + price range', 'min_dr=30 (sparse metric)'].map(
  (name) => SEARCH_SHAPES.find((shape) => shape.name === name)!,
);
const log = (line: string) => process.stderr.write(`${line}\n`);

async function serve(cli: string): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: { ...process.env, DATABASE_URL: BENCH.databaseUrl, REDIS_URL: BENCH.redisUrl, WORKERS: '1', LOG_LEVEL: 'warn', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${String(code)}: ${stdout}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    peakRssMiB: () => 0,
    output: () => stdout,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const dataset = await ensureDataset(BENCH.databaseUrl, BENCH.rows, BENCH.seed);
log(`dataset: ${dataset.listings} listings`);
const key = await benchKey(BENCH.databaseUrl);
const headers = { Authorization: `Bearer ${key}` };
const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
const [named] = await database.rows<{ name: string }>(sql`select domain_name as name from listings where auction_end_time is null or auction_end_time > now() limit 1`);
await database.close();

const servers = { before: await serve(BEFORE_CLI), after: await serve(CLI) };
type Side = keyof typeof servers;
const results: Record<Side, { lookupRps: number[]; lookupP99: number[]; lookupApiCpuUs: number[]; search: Record<string, number[]> }> = {
  before: { lookupRps: [], lookupP99: [], lookupApiCpuUs: [], search: {} },
  after: { lookupRps: [], lookupP99: [], lookupApiCpuUs: [], search: {} },
};

async function measure(side: Side): Promise<void> {
  const { url, pid } = servers[side];
  // The API process's own CPU per request: steadier than throughput on a machine doing other work.
  const { result: lookup, cpu } = await cpuDuring(pid, () => httpLoad(`${url}/api/v1/domains/${named!.name}`, headers, BENCH.loadSeconds, BENCH.concurrency));
  results[side].lookupApiCpuUs.push(Math.round((cpu.api * 1000) / lookup.requests));
  if (lookup.non2xx > 0 || lookup.errors > 0) throw new Error(`${side}: ${lookup.non2xx} non-2xx and ${lookup.errors} errors under lookup load`);
  results[side].lookupRps.push(lookup.rps);
  results[side].lookupP99.push(lookup.p99);
  for (const shape of SHAPES) {
    const path = `${url}/api/v1/domains?${new URLSearchParams(shape.query).toString()}`;
    const latency = await sequential(BENCH.sequentialRequests, async () => {
      const response = await fetch(path, { headers });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${side} ${shape.name}: HTTP ${response.status}`);
    });
    (results[side].search[shape.name] ??= []).push(latency.p50);
  }
}

try {
  for (let round = 0; round < ROUNDS; round += 1) {
    // Alternate which goes first, so neither always meets a warmer cache.
    const order: Side[] = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const side of order) {
      log(`round ${round + 1}: ${side}...`);
      await measure(side);
    }
  }
} finally {
  await Promise.all(Object.values(servers).map((server) => server.stop()));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rows = [
  ['lookup req/s (c=32)', median(results.before.lookupRps), median(results.after.lookupRps)],
  ['lookup p99 ms (c=32)', median(results.before.lookupP99), median(results.after.lookupP99)],
  ['lookup API CPU per request, µs', median(results.before.lookupApiCpuUs), median(results.after.lookupApiCpuUs)],
  ...SHAPES.map((shape) => [`${shape.name} p50 ms (c=1)`, median(results.before.search[shape.name]!), median(results.after.search[shape.name]!)] as const),
];
const table = [
  '| figure | before | after | after / before |',
  '|---|---:|---:|---:|',
  ...rows.map(([name, before, after]) => `| ${name} | ${before} | ${after} | ${(Number(after) / Number(before)).toFixed(2)} |`),
].join('\n');
const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
writeFileSync(`${resultsDir}usage-overhead.json`, `${JSON.stringify({ listings: dataset.listings, rounds: ROUNDS, results }, null, 2)}\n`);
process.stdout.write(`${table}\n\nMedians of ${ROUNDS} alternating rounds over ${dataset.listings} listings; each API one process (WORKERS=1).\n`);
