// What the per-key request log (and the usage counts by outcome) cost a request:
// `BEFORE_CLI=<checkout before them>/apps/cli/bin/domain-index.js pnpm --filter @domain-index/bench request-log-overhead`.
// Two measurements:
// 1. In this process, exactly: the API's own work for the request log per request (the
//    middleware on a finished response, then the recorder's share of a flush: redaction, JSON,
//    the COPY's round trip), in CPU microseconds, and the COPY's time per row (the statement
//    timed whole, 2,000 rows at a time).
// 2. End to end, as usage-overhead.ts does: the API of that checkout and of this one, one process
//    each, on the same database and Redis, in alternating rounds of the main benchmark's lookup
//    load (c=32), comparing requests per second and the API's CPU per lookup.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { copyIn, openDatabase, sql } from '@domain-index/db';
import { recordRequests } from '@domain-index/api/request-log/record-requests';
import { copyRows, RequestLogRecorder } from '@domain-index/api/request-log/request-log-recorder';
import { listLoggedRequests } from '@domain-index/api/request-log/request-log-query';
import { createLogger } from '@domain-index/runtime/logger';
import type { Request, Response } from 'express';
import { cpuDuring } from './cpu';
import { CLI, ensureDataset } from './dataset';
import { httpLoad } from './measure';
import { benchKey, freePort, type ServerProcess } from './servers';
import { BENCH } from './settings';

const BEFORE_CLI = process.env.BEFORE_CLI;
if (BEFORE_CLI === undefined)
  throw new Error('BEFORE_CLI must name the domain-index.js of the checkout to compare with');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Requests of the in-process measurement: as many as a 2,000 req/s API sees in 50 s. */
const IN_PROCESS_REQUESTS = Number(process.env.BENCH_LOG_REQUESTS ?? 100_000);
const log = (line: string) => process.stderr.write(`${line}\n`);

const dataset = await ensureDataset(BENCH.databaseUrl, BENCH.rows, BENCH.seed);
log(`dataset: ${dataset.listings} listings`);
const key = await benchKey(BENCH.databaseUrl);
const headers = { Authorization: `Bearer ${key}` };
const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 2 });
const [named] = await database.rows<{ name: string }>(
  sql`select domain_name as name from listings where auction_end_time is null or auction_end_time > now() limit 1`,
);
const lookupPath = `/api/v1/domains/${named!.name}`;

/** 1. The API's CPU for the request log, per request, and PostgreSQL's time per inserted row. */
async function inProcess(): Promise<{
  recordUs: number;
  flushUs: number;
  totalUs: number;
  insertUsPerRow: number;
  rows: number;
}> {
  await database.rows(sql`delete from request_log where key_id = 'key_bench_in_process'`);
  const recorder = new RequestLogRecorder(database, createLogger('warn'), {
    flushEveryMs: 3_600_000,
    maxBuffered: IN_PROCESS_REQUESTS + 1,
  });
  // what runs for each request once its response is finished (http/after-response.ts)
  const finisher = recordRequests(recorder, { now: () => new Date() });
  const paths = [
    lookupPath,
    '/api/v1/domains?search=cloud+data&status=all&limit=50',
    '/api/v1/domains?sort=current_bid&order=desc&min_price=100',
  ];
  // warm-up: the code paths compiled before they are measured
  const once = (i: number) => {
    const res = {
      locals: { requestId: `req_${i}`, caller: { keyId: 'key_bench_in_process' }, rowsReturned: 1 },
      statusCode: 200,
    };
    const req = { method: 'GET', originalUrl: paths[i % paths.length]! };
    finisher(req as unknown as Request, res as unknown as Response, 1.5);
  };
  for (let i = 0; i < 2_000; i += 1) once(i);
  await recorder.flush();
  await database.rows(sql`delete from request_log where key_id = 'key_bench_in_process'`);
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  const startRecord = cpu();
  for (let i = 0; i < IN_PROCESS_REQUESTS; i += 1) once(i);
  const recordUs = cpu() - startRecord;
  const startFlush = cpu();
  await recorder.flush();
  const flushUs = cpu() - startFlush;
  await recorder.close();
  const [{ n } = { n: 0 }] = await database.rows<{ n: number }>(
    sql`select count(*)::int as n from request_log where key_id = 'key_bench_in_process'`,
  );
  // The write's own time for as many rows again: COPY cannot be EXPLAINed, so the statement is
  // timed whole, 2,000 rows at a time (one loopback round trip per 2,000 rows is all it adds)
  let serverMs = 0;
  const requests = Array.from({ length: 2_000 }, (_, i) => ({
    at: Date.now(),
    keyId: 'key_bench_in_process',
    requestId: `req_${crypto.randomUUID()}`,
    method: 'GET',
    url: paths[i % paths.length]!,
    status: 200,
    errorCode: undefined,
    durationMs: 1.5,
    rows: 1,
  }));
  const columns = ['at', 'key_id', 'request_id', 'method', 'path', 'status', 'error_code', 'duration_ms', 'rows_returned'];
  for (let done = 0; done < IN_PROCESS_REQUESTS; done += requests.length) {
    const rows = copyRows(requests);
    const started = performance.now();
    await copyIn(database, 'request_log', columns, rows);
    serverMs += performance.now() - started;
  }
  await database.rows(sql`delete from request_log where key_id = 'key_bench_in_process'`);
  const per = (us: number) => Math.round((us / IN_PROCESS_REQUESTS) * 100) / 100;
  return {
    recordUs: per(recordUs),
    flushUs: per(flushUs),
    totalUs: per(recordUs + flushUs),
    insertUsPerRow: Math.round(((serverMs * 1000) / IN_PROCESS_REQUESTS) * 100) / 100,
    rows: n,
  };
}

async function serve(cli: string): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: BENCH.databaseUrl,
      REDIS_URL: BENCH.redisUrl,
      WORKERS: '1',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      PORT: String(port),
    },
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

const inProcessResult = await inProcess();
log(`in process: ${JSON.stringify(inProcessResult)}`);

const servers = { before: await serve(BEFORE_CLI), after: await serve(CLI) };
type Side = keyof typeof servers;
const results: Record<
  Side,
  {
    lookupRps: number[];
    lookupP99: number[];
    lookupApiCpuUs: number[];
    lookupPostgresCpuUs: number[];
  }
> = {
  before: { lookupRps: [], lookupP99: [], lookupApiCpuUs: [], lookupPostgresCpuUs: [] },
  after: { lookupRps: [], lookupP99: [], lookupApiCpuUs: [], lookupPostgresCpuUs: [] },
};

async function measure(side: Side): Promise<void> {
  const { url, pid } = servers[side];
  const { result: lookup, cpu } = await cpuDuring(pid, () =>
    httpLoad(`${url}${lookupPath}`, headers, BENCH.loadSeconds, BENCH.concurrency),
  );
  if (lookup.non2xx > 0 || lookup.errors > 0)
    throw new Error(
      `${side}: ${lookup.non2xx} non-2xx and ${lookup.errors} errors under lookup load`,
    );
  results[side].lookupRps.push(lookup.rps);
  results[side].lookupP99.push(lookup.p99);
  results[side].lookupApiCpuUs.push(Math.round((cpu.api * 1000) / lookup.requests));
  results[side].lookupPostgresCpuUs.push(Math.round((cpu.postgres * 1000) / lookup.requests));
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
const [logged] = await database.rows<{ n: number }>(
  sql`select count(*)::int as n from request_log`,
);
// Finding one request by its id, among the benchmark key's (a key's 7 days are searched: there
// is no index on request_id, which would cost every logged request more than its insert)
const [picked] = await database.rows<{ key_id: string; request_id: string }>(
  sql`select key_id, request_id from request_log order by at offset ${Math.floor((logged?.n ?? 0) / 2)} limit 1`,
);
const [keyRows] = await database.rows<{ n: number }>(
  sql`select count(*)::int as n from request_log where key_id = ${picked!.key_id}`,
);
const middle = { ...picked!, rows: keyRows!.n };
const searchMs: number[] = [];
for (let i = 0; i < 11; i += 1) {
  const started = performance.now();
  const found = await listLoggedRequests(database, middle.key_id, {
    now: new Date(),
    requestId: middle.request_id,
    limit: 50,
  });
  searchMs.push(performance.now() - started);
  if (found.length !== 1) throw new Error(`the request id search found ${found.length} requests`);
}
await database.close();

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rows = [
  ['lookup req/s (c=32)', median(results.before.lookupRps), median(results.after.lookupRps)],
  ['lookup p99 ms (c=32)', median(results.before.lookupP99), median(results.after.lookupP99)],
  [
    'lookup API CPU per request, µs',
    median(results.before.lookupApiCpuUs),
    median(results.after.lookupApiCpuUs),
  ],
  [
    'lookup PostgreSQL CPU per request, µs',
    median(results.before.lookupPostgresCpuUs),
    median(results.after.lookupPostgresCpuUs),
  ],
] as const;
const table = [
  '| figure | before | after | after / before |',
  '|---|---:|---:|---:|',
  ...rows.map(
    ([name, before, after]) =>
      `| ${name} | ${before} | ${after} | ${(after / before).toFixed(2)} |`,
  ),
].join('\n');
const lookupCpu = median(results.after.lookupApiCpuUs);
const share = inProcessResult.totalUs / lookupCpu;
// the whole of it against the whole of a lookup: the API's CPU and PostgreSQL's
const lookupWhole = lookupCpu + median(results.after.lookupPostgresCpuUs);
const shareWhole = (inProcessResult.totalUs + inProcessResult.insertUsPerRow) / lookupWhole;
const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
writeFileSync(
  `${resultsDir}request-log-overhead.json`,
  `${JSON.stringify({ listings: dataset.listings, rounds: ROUNDS, inProcess: { requests: IN_PROCESS_REQUESTS, ...inProcessResult }, shareOfLookupCpu: Math.round(share * 1000) / 1000, shareOfLookupCpuWithPostgres: Math.round(shareWhole * 1000) / 1000, loggedRows: logged?.n, requestIdSearch: { keyRows: middle.rows, medianMs: Math.round(median(searchMs) * 10) / 10 }, results }, null, 2)}\n`,
);
process.stdout.write(
  `In process, per request: ${inProcessResult.recordUs} µs to record, ${inProcessResult.flushUs} µs of the flush, ${inProcessResult.totalUs} µs in all (${(share * 100).toFixed(1)}% of a lookup's ${lookupCpu} µs of API CPU); PostgreSQL ${inProcessResult.insertUsPerRow} µs per row written (COPY); together ${(shareWhole * 100).toFixed(1)}% of a lookup's ${lookupWhole} µs of API and PostgreSQL CPU.\nA request found by its id among its key's ${middle.rows} logged requests in ${median(searchMs).toFixed(1)} ms (median of 11).\n\n${table}\n\nMedians of ${ROUNDS} alternating rounds over ${dataset.listings} listings; each API one process (WORKERS=1).\n`,
);
