import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Domain, Event, EventListEnvelope, ListEnvelope } from '@domain-index/contract';
import { openDatabase, sql } from '@domain-index/db';
import { createTestDatabase, postgresTestEngine, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { seedRecords, type SourceConfig } from '@domain-index/indexer';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '@domain-index/runtime/clock';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { jsonlFeed } from '@domain-index/test-support/feeds';
import { startCommand } from './support/processes';
import { until } from '@domain-index/test-support/waiting';
import { runCli } from './support/run-cli';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

const SEED = process.env.PROPERTY_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.PROPERTY_SEED);
const RUNS = process.env.PROPERTY_RUNS === undefined ? 200 : Number(process.env.PROPERTY_RUNS);

const NOW = new Date('2026-11-21T12:00:00.000Z');
const clock: Clock = { now: () => NOW };
const SOURCES: readonly SourceConfig[] = ['alpha', 'beta'].map((id) => ({ id, name: id, everyMinutes: 60, feed: `${id}.jsonl`, format: 'jsonl' as const }));
const postgres = postgresTestEngine();

/** The events after `after`, page by page, with the cursor of every page. */
async function pages(api: RunningApi, query: string, after?: string): Promise<{ events: Event[]; cursors: string[] }> {
  const events: Event[] = [];
  const cursors: string[] = [];
  let cursor = after;
  for (;;) {
    const response = await api.get(`/api/v1/events?${query}${cursor === undefined ? '' : `&after=${encodeURIComponent(cursor)}`}`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as EventListEnvelope;
    events.push(...page.data);
    cursor = page.pagination.next_cursor;
    cursors.push(cursor);
    if (!page.pagination.has_more) return { events, cursors };
  }
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`the change feed's filters on ${engine}`, () => {
    let test: TestDatabase;
    let api: RunningApi;
    let added: Set<string>;

    beforeAll(async () => {
      test = await createTestDatabase(engine);
      api = await startApi(engine, { test, clock, sources: SOURCES });
      // a first batch (source.loaded), then a second that adds 400 varied listings: one listing.added each
      await importBatch({ database: test.database, source: SOURCES[0]!, clock, input: jsonlFeed([{ domain_name: 'seed-row.com', status: 'available', current_bid: 1 }]) });
      const records = [...seedRecords({ rows: 400, seed: 11, sources: ['alpha'], now: NOW })]
        .map(({ record }) => record)
        // not ended: a search reaches only listings that have not ended
        .filter((record) => typeof record.auction_end_time !== 'string' || Date.parse(record.auction_end_time) > NOW.getTime());
      const summary = await importBatch({ database: test.database, source: SOURCES[0]!, clock, input: jsonlFeed([{ domain_name: 'seed-row.com', status: 'available', current_bid: 1 }, ...records]) });
      expect(summary.outcome).toBe('applied');
      added = new Set(records.map((record) => String(record.domain_name)));
      expect(summary.inserted).toBeGreaterThan(300);
    });
    afterAll(async () => {
      await api.close();
      await test.dispose();
    });

    it(`selects the same listings as a search with the same filters (${RUNS} random filter sets)`, async () => {
      console.info(`events filters on ${engine}: seed ${SEED}; PROPERTY_SEED=${SEED} repeats it`);
      const filters = fc.record(
        {
          status: fc.constantFrom('all', 'auction', 'dropping', 'available'),
          search: fc.constantFrom('co', 'an', 'er', 'in', 'on', 'ar', 'e.c', 'sun', 'net'),
          tld: fc.constantFrom('com', 'net', 'co.uk', 'io', 'ai'),
          min_price: fc.integer({ min: 0, max: 400 }).map(String),
          max_price: fc.integer({ min: 400, max: 5000 }).map(String),
          min_length: fc.integer({ min: 1, max: 8 }).map(String),
          max_length: fc.integer({ min: 8, max: 20 }).map(String),
          no_hyphens: fc.constantFrom('true', 'false'),
          no_numbers: fc.constantFrom('true', 'false'),
          min_score: fc.integer({ min: 0, max: 40 }).map(String),
          max_score: fc.integer({ min: 40, max: 100 }).map(String),
          min_dr: fc.integer({ min: 0, max: 40 }).map(String),
          max_tf: fc.integer({ min: 10, max: 100 }).map(String),
          min_backlinks: fc.integer({ min: 0, max: 5000 }).map(String),
          min_age: fc.integer({ min: 0, max: 20 }).map(String),
          min_word_count: fc.integer({ min: 0, max: 3 }).map(String),
          min_extensions: fc.integer({ min: 0, max: 20 }).map(String),
        },
      );
      // one to three filters beside status: more would leave almost every selection empty
      const sets = fc
        .tuple(filters, fc.shuffledSubarray(['search', 'tld', 'min_price', 'max_price', 'min_length', 'max_length', 'no_hyphens', 'no_numbers', 'min_score', 'max_score', 'min_dr', 'max_tf', 'min_backlinks', 'min_age', 'min_word_count', 'min_extensions'] as const, { minLength: 1, maxLength: 3 }))
        .map(([all, keys]) => Object.fromEntries([['status', all.status], ...keys.map((key) => [key, all[key]])]) as Record<string, string>);
      let nonEmpty = 0;
      await fc.assert(
        fc.asyncProperty(sets, async (params) => {
          const query = new URLSearchParams(params).toString();
          const fromEvents = (await pages(api, `type=listing.added&limit=200&${query}`)).events.map((event) => event.data.object!.domain_name).sort();
          const fromSearch: string[] = [];
          for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
            const response = await api.get(`/api/v1/domains?limit=200&${query}${cursor === null ? '' : `&cursor=${cursor}`}`);
            const page = (await response.json()) as ListEnvelope;
            fromSearch.push(...page.data.map((domain: Domain) => domain.domain_name).filter((name) => added.has(name)));
            cursor = page.pagination.next_cursor;
          }
          if (fromSearch.length > 0) nonEmpty += 1;
          expect(fromEvents, query).toEqual(fromSearch.sort());
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      // the property compared real selections, not empty ones only
      expect(nonEmpty).toBeGreaterThan(RUNS / 4);
    });
  });
}

describe.skipIf(postgres.skip)('the change feed under concurrent imports and a killed import, on PostgreSQL', () => {
  let test: TestDatabase;
  let api: RunningApi;
  const dir = mkdtempSync(join(tmpdir(), 'di-events-'));
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    api = await startApi('postgres', { test, sources: SOURCES });
  });
  afterAll(async () => {
    await api.close();
    await test.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const feedOf = (prefix: string, count: number, price: number) =>
    Array.from({ length: count }, (_, i) => ({ domain_name: `${prefix}${i}.com`, status: 'auction', current_bid: price + (i % 7), auction_end_time: '2099-01-01T00:00:00.000Z' }));

  it('lets a reader that walks the feed while imports run, and resumes from a stored cursor, see every event exactly once in commit order', async () => {
    const start = ((await (await api.get('/api/v1/events?after=now')).json()) as EventListEnvelope).pagination.next_cursor;
    let importing = true;
    const imports = (async () => {
      for (let round = 0; round < 6; round += 1) {
        // two sources switched side by side: their transactions commit in either order
        await Promise.all(
          SOURCES.map((source, s) => importBatch({ database: test.database, source, clock: { now: () => new Date() }, input: jsonlFeed(feedOf(`${source.id}-${round % 2}-`, 40 + round, 10 * round + s)) })),
        );
      }
      importing = false;
    })();
    // a reader polling in small pages; it "crashes" now and then and resumes from its stored cursor
    const seen: Event[] = [];
    let stored = start;
    let crashes = 0;
    while (importing || crashes === 0) {
      const response = await api.get(`/api/v1/events?limit=7&after=${encodeURIComponent(stored)}`);
      const page = (await response.json()) as EventListEnvelope;
      seen.push(...page.data);
      stored = page.pagination.next_cursor;
      if (seen.length % 3 === 0) crashes += 1;
    }
    await imports;
    seen.push(...(await pages(api, 'limit=7', stored)).events);
    const ids = seen.map((event) => Number(event.id.slice(4)));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const all = await test.database.rows<{ id: string }>(sql`select id from listing_events order by id`);
    const startId = (JSON.parse(Buffer.from(start.split('.')[0]!, 'base64url').toString()) as { id: number }).id;
    expect(ids).toEqual(all.map((row) => Number(row.id)).filter((id) => id > startId));
    expect(ids.length).toBeGreaterThan(400);
  });

  it('leaves no event of a batch killed with SIGKILL in its switch, and the re-run appends each event once', async () => {
    const env = { DATABASE_URL: test.url!, LOG_LEVEL: 'warn' };
    const sourcesFile = join(dir, 'sources.json');
    writeFileSync(sourcesFile, JSON.stringify([{ id: 'gamma', name: 'gamma', everyMinutes: 60, format: 'jsonl', feed: join(dir, 'unused') }]));
    const first = join(dir, 'first.jsonl');
    writeFileSync(first, `${feedOf('kill-', 300, 5).map((record) => JSON.stringify(record)).join('\n')}\n`);
    expect((await runCli(['import', '--source', 'gamma', first], { ...env, SOURCES_FILE: sourcesFile })).stdout).toMatch(/applied/);
    const second = join(dir, 'second.jsonl');
    writeFileSync(second, `${feedOf('kill-', 320, 6).map((record) => JSON.stringify(record)).join('\n')}\n`);
    const count = async () => (await test.database.rows<{ n: number }>(sql`select count(*)::int as n from listing_events where source = 'gamma'`))[0]!.n;
    const listed = async () => (await test.database.rows<{ rows: number; sum: string }>(sql`select count(*)::int as rows, sum(current_bid)::text as sum from listings where source = 'gamma'`))[0]!;
    const before = await count();
    const listedBefore = await listed();
    // hold the event log's lock: the import's switch blocks on it after changing listings
    const holder = await openDatabase({ databaseUrl: test.url, maxConnections: 1 });
    let release!: () => void;
    const held = holder.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(727274002)`);
      await new Promise<void>((resolve) => (release = resolve));
    });
    const importing = startCommand(['import', '--source', 'gamma', second], { ...env, SOURCES_FILE: sourcesFile });
    try {
      await until('the import waits for the event log inside its switch', async () => {
        const [row] = await test.database.rows<{ n: number }>(sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = 727274002 and not granted`);
        return row!.n === 1;
      });
      importing.child.kill('SIGKILL');
      await importing.exited;
    } finally {
      release();
      await held;
      await holder.close();
    }
    // the killed switch's changes went with its transaction: the index and the feed are as before
    expect(await count()).toBe(before);
    expect(await listed()).toEqual(listedBefore);
    const rerun = await runCli(['import', '--source', 'gamma', second], { ...env, SOURCES_FILE: sourcesFile });
    expect(rerun.stdout).toMatch(/applied: read 320, inserted 20, updated 300, unchanged 0, removed 0/);
    expect(rerun.stderr).toMatch(/removed what an interrupted import left behind: 1 work table/);
    expect((await count()) - before).toBe(320);
    const names = await test.database.rows<{ domain_name: string; n: number }>(sql`select domain_name, count(*)::int as n from listing_events where source = 'gamma' and type <> 'source.loaded' group by domain_name having count(*) > 1`);
    expect(names).toEqual([]);
  });
});
