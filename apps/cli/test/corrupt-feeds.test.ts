import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sql, type Database } from '@domain-index/db';
import { createTestDatabase, postgresTestEngine, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFeedServer } from '@domain-index/test-support/feed-server';
import { startCommand } from './support/processes';
import { until } from '@domain-index/test-support/waiting';
import { runCli } from './support/run-cli';
import { zipOne } from '@domain-index/test-support/zip';

const postgres = postgresTestEngine();

const jsonl = (prefix: string, count: number, price: number) =>
  Buffer.from(`${Array.from({ length: count }, (_, i) => JSON.stringify({ domain_name: `${prefix}${i}cut.com`, status: 'auction', current_bid: price, auction_end_time: '2099-01-01T00:00:00Z' })).join('\n')}\n`);

const NAMECHEAP_HEADER =
  'url,name,startDate,endDate,price,startPrice,renewPrice,bidCount,ahrefsDomainRating,umbrellaRanking,cloudflareRanking,estibotValue,extensionsTaken,keywordSearchCount,registeredDate,lastSoldPrice,lastSoldYear,isPartnerSale,semrushAScore,majesticCitation,ahrefsBacklinks,semrushBacklinks,majesticBacklinks,majesticTrustFlow,goValue';
const namecheapCsv = (count: number) =>
  Buffer.from(
    `${[NAMECHEAP_HEADER, ...Array.from({ length: count }, (_, i) => `https://www.namecheap.com/market/nc${i}cut.com/,nc${i}cut.com,2026-11-20T00:00:00Z,2099-12-20T00:00:00Z,${i + 1}.00,1.00,10,1,,,,,,,,,,,,,,,,,`)].join('\n')}\n`,
  );

/** The cuts of the issue: the first 10 bytes, the first KB, and half the file. */
const CUTS = [
  ['at 10 bytes', (bytes: Buffer) => bytes.subarray(0, 10)],
  ['at 1 KB', (bytes: Buffer) => bytes.subarray(0, 1024)],
  ['mid-file', (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length / 2))],
] as const;

/** A gzip member whose deflate data has bytes flipped in the middle: corrupt, not short. */
function corruptGzip(bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  for (let i = Math.floor(copy.length / 2); i < Math.floor(copy.length / 2) + 16; i += 1) copy[i] = copy[i]! ^ 0xff;
  return copy;
}

describe.skipIf(postgres.skip)('truncated and corrupt feeds on PostgreSQL', () => {
  let test: TestDatabase;
  let database: Database;
  const dir = mkdtempSync(join(tmpdir(), 'di-corrupt-'));
  /** The child processes' TMPDIR: whatever a batch spools must be gone from here after it. */
  const spools = join(dir, 'tmp');
  mkdirSync(spools);
  let env: Record<string, string>;
  let feeds: Record<string, Buffer>;

  /** Everything a batch could have changed or left behind. */
  async function state() {
    const [index] = await database.rows<{ count: number; sum: string }>(sql`select count(*)::int as count, coalesce(sum(current_bid), 0)::text as sum from listings`);
    const [work] = await database.rows<{ tables: number; leases: number }>(sql`
      select (select count(*)::int from pg_class where relkind = 'r' and (relname like 'listing\\_import\\_%' or relname like 'listings\\_load\\_%')) as tables,
             (select count(*)::int from work_tables) as leases`);
    return { listings: index!.count, sum: index!.sum, workTables: work!.tables, leases: work!.leases, spools: readdirSync(spools).length };
  }

  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    database = test.database;
    const sourcesFile = join(dir, 'sources.json');
    writeFileSync(
      sourcesFile,
      JSON.stringify([
        { id: 'bidhaus', name: 'BidHaus', everyMinutes: 60, format: 'jsonl', feed: join(dir, 'unused.jsonl') },
        { id: 'namemarket', name: 'NameMarket', everyMinutes: 60, format: 'jsonl', feed: join(dir, 'unused.jsonl') },
        { id: 'namecheap', name: 'Namecheap', everyMinutes: 60, feed: join(dir, 'unused.csv'), profile: 'namecheap-market' },
      ]),
    );
    env = { DATABASE_URL: test.url!, SOURCES_FILE: sourcesFile, TMPDIR: spools, LOG_LEVEL: 'warn' };
    const plain = jsonl('b', 3000, 5);
    feeds = { plain, gzip: gzipSync(plain), zip: await zipOne('feed.jsonl', plain), namecheap: gzipSync(namecheapCsv(3000)) };
    // the index holds three sources before any bad feed comes
    for (const [source, bytes] of [['bidhaus', plain], ['namemarket', jsonl('m', 400, 2)], ['namecheap', namecheapCsv(50)]] as const) {
      const file = join(dir, `${source}.feed`);
      writeFileSync(file, bytes);
      const run = await runCli(['import', '--source', source, file], env);
      expect(run.stdout, source).toMatch(/applied/);
    }
  });
  afterAll(async () => {
    await test.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const cases = [
    ...(['plain', 'gzip', 'zip', 'namecheap'] as const).flatMap((kind) => CUTS.map(([cut, apply]) => ({ name: `${kind === 'namecheap' ? 'a namecheap-market .csv.gz' : `a ${kind} JSONL feed`} cut ${cut}`, kind, bytes: () => apply(feeds[kind]!) }))),
    { name: 'a gzip JSONL feed with corrupt deflate data', kind: 'gzip' as const, bytes: () => corruptGzip(feeds.gzip!) },
  ];
  const sourceOf = (kind: string) => (kind === 'namecheap' ? 'namecheap' : 'bidhaus');

  for (const { name, kind, bytes } of cases) {
    it(`rejects ${name} through import: the process ends normally, the index and the other sources are unchanged, nothing is left behind`, async () => {
      const before = await state();
      const file = join(dir, `bad-${kind}`);
      writeFileSync(file, bytes());
      const run = await runCli(['import', '--source', sourceOf(kind), file], env);
      expect(run.stdout).toMatch(new RegExp(`^${sourceOf(kind)}: REJECTED, previous batch kept: the feed (is unreadable|does not match its profile): `));
      expect(run.stderr).not.toMatch(/Unhandled|at .*\.(ts|js)|Error:/);
      expect(run.status).toBe(1);
      expect(await state()).toEqual(before);
    });

    it(`rejects ${name} fetched by sync from a loopback server, and leaves nothing behind`, async () => {
      const before = await state();
      const server = await startFeedServer([{ status: 200, body: bytes(), headers: { 'content-type': 'application/octet-stream' } }]);
      const sourcesFile = join(dir, `sync-${kind}.json`);
      const source = sourceOf(kind);
      writeFileSync(sourcesFile, JSON.stringify([{ id: source, name: source, everyMinutes: 60, feed: server.url, ...(kind === 'namecheap' ? { profile: 'namecheap-market' } : { format: 'jsonl' }) }]));
      try {
        const run = await runCli(['sync', '--once'], { ...env, SOURCES_FILE: sourcesFile });
        expect(run.stdout).toMatch(new RegExp(`^${source}: REJECTED, previous batch kept: the feed (is unreadable|does not match its profile): `));
        expect(run.status).toBe(1);
        // the sync log is JSON lines only: one rejected batch, no crash dump
        for (const line of run.stderr.split('\n').filter((text) => text !== '')) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
        expect(await state()).toEqual(before);
      } finally {
        await server.close();
      }
    });
  }

  it('keeps the sync worker alive through a corrupt feed: the other source is applied, the bad one recorded as rejected, each in one JSON line', async () => {
    const corrupt = await startFeedServer([{ status: 200, body: feeds.gzip!.subarray(0, 1000) }]);
    const good = await startFeedServer([{ status: 200, body: jsonl('m', 300, 4) }]);
    const sourcesFile = join(dir, 'worker.json');
    writeFileSync(
      sourcesFile,
      JSON.stringify([
        { id: 'bidhaus', name: 'BidHaus', everyMinutes: 60, format: 'jsonl', feed: corrupt.url },
        { id: 'namemarket', name: 'NameMarket', everyMinutes: 60, format: 'jsonl', feed: good.url },
      ]),
    );
    // an earlier sync of these sources must not make them "not due"
    await database.rows(sql`delete from source_syncs`);
    const worker = startCommand(['sync'], { ...env, SOURCES_FILE: sourcesFile, LOG_LEVEL: 'info' });
    try {
      await until('both sources were synced', async () => {
        const rows = await database.rows<{ source: string; last_outcome: string }>(sql`select source, last_outcome from source_syncs`);
        return rows.length === 2;
      }, 30_000);
      const outcomes = Object.fromEntries((await database.rows<{ source: string; last_outcome: string }>(sql`select source, last_outcome from source_syncs`)).map((row) => [row.source, row.last_outcome]));
      expect(outcomes).toEqual({ bidhaus: 'rejected', namemarket: 'applied' });
      expect(worker.child.exitCode).toBeNull();
      const lines = worker.output().split('\n').filter((line) => line !== '');
      for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
      expect(lines.filter((line) => line.includes('sync batch rejected'))).toHaveLength(1);
      const [count] = await database.rows<{ n: number }>(sql`select count(*)::int as n from listings where source = 'namemarket'`);
      expect(count!.n).toBe(300);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
      await corrupt.close();
      await good.close();
    }
  });
});
