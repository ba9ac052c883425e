// What response compression costs and saves: `pnpm --filter @domain-index/bench compression`.
// 1. The levels: a real 50-row and 200-row page compressed in this process at each gzip level
//    and brotli quality worth considering, timed, with the size it gives.
// 2. End to end: the API under load for those pages without Accept-Encoding, with gzip and with
//    br, side by side in alternating rounds: bytes on the wire and the API's CPU per request.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { cpuDuring } from './cpu';
import { ensureDataset } from './dataset';
import { httpLoad } from './measure';
import { benchKey, startApi } from './servers';
import { BENCH } from './settings';

const log = (line: string) => process.stderr.write(`${line}\n`);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const dataset = await ensureDataset(BENCH.databaseUrl, BENCH.rows, BENCH.seed);
log(`dataset: ${dataset.listings} listings`);
const key = await benchKey(BENCH.databaseUrl);
const headers = { Authorization: `Bearer ${key}` };
const api = await startApi({ DATABASE_URL: BENCH.databaseUrl, REDIS_URL: BENCH.redisUrl, WORKERS: '1' });

const pages = { '50 rows': '/api/v1/domains?status=all&limit=50', '200 rows': '/api/v1/domains?status=all&limit=200' } as const;
type PageName = keyof typeof pages;

const results: { levels: unknown[]; wire: unknown[] } = { levels: [], wire: [] };
const lines: string[] = [];
try {
  // 1. levels, in process
  lines.push('| page | encoding | bytes | ratio | µs per compression |', '|---|---|---:|---:|---:|');
  for (const [name, path] of Object.entries(pages) as [PageName, string][]) {
    const body = Buffer.from(await (await fetch(`${api.url}${path}`, { headers: { ...headers, 'accept-encoding': 'identity' } })).arrayBuffer());
    lines.push(`| ${name} | none | ${body.length} | 1.0 | 0 |`);
    const candidates: [string, () => Buffer][] = [
      ...[1, 4, 6, 9].map((level): [string, () => Buffer] => [`gzip ${level}`, () => gzipSync(body, { level })]),
      ...[1, 4, 5, 11].map((quality): [string, () => Buffer] => [
        `br ${quality}`,
        () => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
      ]),
    ];
    for (const [encoding, compress] of candidates) {
      const runs = encoding === 'br 11' ? 20 : 200;
      let size = 0;
      const started = process.cpuUsage();
      for (let i = 0; i < runs; i += 1) size = compress().length;
      const used = process.cpuUsage(started);
      const micros = Math.round((used.user + used.system) / runs);
      results.levels.push({ page: name, encoding, bytes: size, micros });
      lines.push(`| ${name} | ${encoding} | ${size} | ${(body.length / size).toFixed(1)} | ${micros} |`);
    }
  }

  // 2. end to end, as the API serves them (its configured levels)
  const wire: Record<string, { bytes: number[]; cpu: number[]; rps: number[] }> = {};
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, path] of Object.entries(pages) as [PageName, string][]) {
      const encodings = round % 2 === 0 ? ['identity', 'gzip', 'br'] : ['br', 'gzip', 'identity'];
      for (const encoding of encodings) {
        log(`round ${round + 1}: ${name} ${encoding}`);
        const { result, cpu } = await cpuDuring(api.pid, () =>
          httpLoad(`${api.url}${path}`, { ...headers, 'accept-encoding': encoding }, BENCH.loadSeconds, 8),
        );
        const probe = await fetch(`${api.url}${path}`, { headers: { ...headers, 'accept-encoding': encoding } });
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name} ${encoding}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        const entry = (wire[`${name}|${encoding}`] ??= { bytes: [], cpu: [], rps: [] });
        // fetch decodes the body; the bytes on the wire are the response's Content-Length or its chunked size
        entry.bytes.push(Number(probe.headers.get('content-length') ?? (await rawSize(`${api.url}${path}`, encoding))));
        await probe.arrayBuffer();
        entry.cpu.push(Math.round((cpu.api * 1000) / result.requests));
        entry.rps.push(result.rps);
      }
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  lines.push('', '| page | Accept-Encoding | bytes on the wire | API CPU per request, µs | req/s (c=8) |', '|---|---|---:|---:|---:|');
  for (const [id, entry] of Object.entries(wire)) {
    const [name, encoding] = id.split('|');
    results.wire.push({ page: name, encoding, ...entry });
    lines.push(`| ${name} | ${encoding} | ${median(entry.bytes)} | ${median(entry.cpu)} | ${median(entry.rps)} |`);
  }
} finally {
  await api.stop();
}

/** The size of a response body as sent, read from the socket without decoding. */
async function rawSize(url: string, encoding: string): Promise<number> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { ...headers, 'accept-encoding': encoding } }, (res) => {
      let size = 0;
      res.on('data', (chunk: Buffer) => (size += chunk.length));
      res.on('end', () => resolve(size));
    });
    req.on('error', reject);
    req.end();
  });
}

const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
// BENCH_RESULTS_FILE: another commit's API (BENCH_API_CLI), kept beside this one's.
writeFileSync(`${resultsDir}${process.env.BENCH_RESULTS_FILE ?? 'compression.json'}`, `${JSON.stringify({ listings: dataset.listings, rounds: ROUNDS, ...results }, null, 2)}\n`);
process.stdout.write(`${lines.join('\n')}\n\nEnd to end: medians of ${ROUNDS} alternating rounds over ${dataset.listings} listings; the API is one process (WORKERS=1).\n`);
