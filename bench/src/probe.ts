// A quick look while working on the API: `pnpm --filter @domain-index/bench probe [pattern]`
// measures the search shapes whose name matches the pattern (and the lookups), API against
// floor at concurrency 1 and the API's throughput at concurrency 32, and prints them. It
// writes no results (it does create an API key on the bench plan, as the full run does);
// the full run (run.ts) makes the committed figures.
import { openDatabase, type RenderedStatement } from '@domain-index/db';
import { lookupStatement } from '@domain-index/api/listings/lookup-query';
import { cpuDuring } from './cpu';
import { floorRunner } from './floor';
import { httpLoad, sequential } from './measure';
import { pageStatement } from './page-statement';
import { benchKey, startApi } from './servers';
import { BENCH } from './settings';
import { SEARCH_SHAPES } from './shapes';

const pattern = new RegExp(process.argv[2] ?? '.', 'i');
const key = await benchKey(BENCH.databaseUrl);
const headers = { Authorization: `Bearer ${key}` };
const api = await startApi({ DATABASE_URL: BENCH.databaseUrl, REDIS_URL: BENCH.redisUrl, WORKERS: String(BENCH.workers) });
const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 10 });
const floor = floorRunner(database);

async function probe(name: string, path: string, statements: RenderedStatement[]): Promise<void> {
  const once = async () => {
    const response = await fetch(`${api.url}/api/v1${path}`, { headers });
    await response.arrayBuffer();
  };
  const apiLatency = await sequential(BENCH.sequentialRequests, once);
  const floorLatency = await sequential(BENCH.sequentialRequests, () => floor(statements));
  const { result: load, cpu } = await cpuDuring(api.pid, () => httpLoad(`${api.url}/api/v1${path}`, headers, BENCH.loadSeconds, BENCH.concurrency));
  const ratio = (apiLatency.p50 / floorLatency.p50).toFixed(2);
  const us = (ms: number) => Math.round((ms * 1000) / load.requests);
  process.stdout.write(
    `${name.padEnd(40)} API p50 ${apiLatency.p50} floor p50 ${floorLatency.p50} (${ratio}x) API ${load.rps} req/s p99 ${load.p99} ms; ` +
      `CPU us/req API ${us(cpu.api)} PostgreSQL ${us(cpu.postgres)} Redis ${us(cpu.redis)} load ${us(cpu.loadGenerator)}\n`,
  );
}

try {
  for (const shape of SEARCH_SHAPES.filter((s) => pattern.test(s.name))) {
    const query = shape.query ?? {};
    const { sql, params } = await pageStatement(database, query);
    await probe(shape.name, `/domains?${new URLSearchParams(query).toString()}`, [{ sql, params }]);
  }
  if (pattern.test('lookup')) {
    await probe('lookup existing (rdj.com)', '/domains/rdj.com', [lookupStatement(database, 'rdj.com', new Date())]);
  }
} finally {
  await api.stop();
  await database.close();
}
