// What answering through MCP costs next to REST: `pnpm --filter @domain-index/bench mcp-latency`.
// One API process (WORKERS=1) on the benchmark's database; for each shape, the same request at
// concurrency 1 as a REST GET and as a `tools/call` over Streamable HTTP (`POST /mcp`, the SDK's
// own client, one connection as a host keeps it), interleaved sample by sample so that neither
// side meets a warmer cache. A tool call is the REST request plus the MCP layer around it: the
// key check of the POST, a new server and transport (stateless), the output schema's check of
// the rows, the text rendering, and the loopback hop from /mcp to /api/v1.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openDatabase, sql } from '@domain-index/db';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ensureDataset } from './dataset';
import { percentiles, type Latency } from './measure';
import { benchKey, startApi } from './servers';
import { BENCH } from './settings';
import { SEARCH_SHAPES } from './shapes';

const SAMPLES = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const log = (line: string) => process.stderr.write(`${line}\n`);

/** A REST query's values as a model passes them to a tool: numbers and booleans typed. */
function toolArguments(query: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => [name, name === 'search' || name === 'tld' || name === 'source' ? value : value === 'true' ? true : value === 'false' ? false : /^\d+(\.\d+)?$/.test(value) ? Number(value) : value]),
  );
}

const dataset = await ensureDataset(BENCH.databaseUrl, BENCH.rows, BENCH.seed);
log(`dataset: ${dataset.listings} listings`);
const key = await benchKey(BENCH.databaseUrl);
const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
const [named] = await database.rows<{ name: string }>(sql`select domain_name as name from listings where auction_end_time is null or auction_end_time > now() limit 1`);
await database.close();

/** Each shape as a REST path and as a tool call. */
const shapes = [
  ...['default list', 'common term (shop)', 'source + price range', 'no_hyphens no_numbers max_length=6'].map((name) => {
    const query = SEARCH_SHAPES.find((shape) => shape.name === name)!.query ?? {};
    return { name: `search: ${name}`, path: `/api/v1/domains?${new URLSearchParams(query).toString()}`, tool: 'search_domains', args: toolArguments(query) };
  }),
  { name: 'lookup', path: `/api/v1/domains/${named!.name}`, tool: 'lookup_domain', args: { domain: named!.name } },
  { name: 'stats', path: '/api/v1/stats', tool: 'index_stats', args: {} },
];

const api = await startApi({ DATABASE_URL: BENCH.databaseUrl, REDIS_URL: BENCH.redisUrl, WORKERS: '1' });
const mcp = new Client({ name: 'domain-index-bench', version: '1.0.0' });
const results: { shape: string; rest: Latency; mcp: Latency; overheadP50Ms: number }[] = [];
try {
  await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', api.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  const rest = async (path: string) => {
    const response = await fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = await mcp.callTool({ name, arguments: args });
    if (result.isError === true) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  };
  for (const shape of shapes) {
    for (let i = 0; i < 10; i += 1) {
      await rest(shape.path);
      await tool(shape.tool, shape.args);
    }
    const restMs: number[] = [];
    const mcpMs: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      // alternate which goes first
      const pair = i % 2 === 0 ? ([['rest', () => rest(shape.path)], ['mcp', () => tool(shape.tool, shape.args)]] as const) : ([['mcp', () => tool(shape.tool, shape.args)], ['rest', () => rest(shape.path)]] as const);
      for (const [side, once] of pair) {
        const start = performance.now();
        await once();
        (side === 'rest' ? restMs : mcpMs).push(performance.now() - start);
      }
    }
    const row = { shape: shape.name, rest: percentiles(restMs), mcp: percentiles(mcpMs), overheadP50Ms: 0 };
    row.overheadP50Ms = Math.round((row.mcp.p50 - row.rest.p50) * 100) / 100;
    results.push(row);
    log(`${shape.name.padEnd(48)} REST p50 ${row.rest.p50} p99 ${row.rest.p99} ms | MCP p50 ${row.mcp.p50} p99 ${row.mcp.p99} ms | +${row.overheadP50Ms} ms`);
  }
} finally {
  await mcp.close();
  await api.stop();
}

const file = fileURLToPath(new URL(`../results/${process.env.BENCH_RESULTS_FILE ?? 'mcp-latency.json'}`, import.meta.url));
mkdirSync(fileURLToPath(new URL('../results/', import.meta.url)), { recursive: true });
writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), listings: dataset.listings, samples: SAMPLES, workers: 1, results }, null, 2)}\n`);
log(`written ${file}`);
