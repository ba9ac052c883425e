import { statsEnvelopeSchema } from '@domain-index/contract';
import { migrateDatabase, openDatabase, sql, type Database } from '@domain-index/db';
import { createTestDatabase, postgresTestEngine, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '@domain-index/accounts/api-key';
import { ownClustersSkipped, startCluster, type PostgresCluster } from '@domain-index/db/clusters';
import { until } from '@domain-index/test-support/waiting';
import { buildFixtureIndex, fixtureClock, fixtureFeeds, FIXTURE_NOW, FIXTURE_SOURCES } from './support/fixture-index';
import { holdTableLock, untilWaiting } from './support/locks';
import { retrievableListings } from './support/oracle';
import { LEAK, startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

const PATHS = ['/api/v1/domains', '/api/v1/domains?status=all&search=co', '/api/v1/domains/multi.com', '/api/v1/stats'];

const QUERY_FAILED = { code: 'query_failed', message: 'the query could not complete; please retry' };
const INTERNAL_ERROR = { code: 'internal_error', message: 'an unexpected error occurred; it has been logged, please retry' };
const KEY_LOOKUP_UNAVAILABLE = { code: 'key_lookup_unavailable', message: 'the API key could not be checked right now; please retry' };

async function expect503(api: RunningApi, path: string, error: { code: string; message: string }) {
  const response = await api.get(path);
  expect(response.status, path).toBe(503);
  expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  const text = await response.text();
  expect(JSON.parse(text)).toEqual({ error });
  expect(text).not.toMatch(/select|listings|timeout|connect|ECONN|postgres|relation/i);
}
const expectQueryFailed = (api: RunningApi, path: string) => expect503(api, path, QUERY_FAILED);

/** The SQLSTATE of a failed statement: the first `code` down the error's cause chain. */
function sqlstateOf(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if ('code' in current) return current.code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`database faults on ${engine}`, () => {
    it('answers 500 internal_error, logged with its SQLSTATE, when the database refuses a statement we built', async () => {
      const test = await createTestDatabase(engine);
      await buildFixtureIndex(test.database);
      const api = await startApi(engine, { test, clock: fixtureClock, sources: FIXTURE_SOURCES });
      expect((await api.get('/api/v1/domains?search=qz')).status).toBe(200);
      // Two-character terms call domain_bigrams (without its index, on every row): made to raise
      // a data exception, as a statement of ours that the database refuses would.
      await test.database.rows(sql`drop index listings_domain_name_bigrams_idx`);
      await test.database.rows(
        sql.raw(`create or replace function domain_bigrams(name text) returns text[] language plpgsql immutable strict as $$
          begin raise exception 'made to fail' using errcode = 'division_by_zero'; end $$`),
      );
      const response = await api.get('/api/v1/domains?status=all&search=qz');
      expect(response.status).toBe(500);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ error: INTERNAL_ERROR });
      expect(text).not.toMatch(LEAK);
      const defects = api.logLines.filter((line) => line.includes('"sqlstate"'));
      expect(defects).toHaveLength(1);
      // at error level, with the names of the parameters in force but not their values
      expect(JSON.parse(defects[0]!)).toMatchObject({ level: 50, sqlstate: '22012', params: ['status', 'search'], path: '/api/v1/domains' });
      expect(defects[0]).not.toContain('qz');
      await api.close();
      await test.dispose();
    });

    it('answers 500 internal_error, not 503, when a relation is missing: retrying cannot help', async () => {
      const test = await createTestDatabase(engine);
      await buildFixtureIndex(test.database);
      const api = await startApi(engine, { test, clock: fixtureClock, sources: FIXTURE_SOURCES });
      expect((await api.get('/api/v1/domains')).status).toBe(200);
      await test.database.rows(sql`alter table listings rename to listings_gone`);
      for (const path of PATHS) {
        const response = await api.get(path);
        expect(response.status, path).toBe(500);
        expect(await response.json()).toEqual({ error: INTERNAL_ERROR });
      }
      expect(api.logLines.filter((line) => line.includes('"sqlstate":"42P01"'))).toHaveLength(PATHS.length);
      await test.database.rows(sql`alter table listings_gone rename to listings`);
      expect((await api.get('/api/v1/domains')).status).toBe(200);
      await api.close();
      await test.dispose();
    });

    it('answers 503 key_lookup_unavailable with Retry-After when the database is gone, and logs no statement values', async () => {
      const test = await createTestDatabase(engine);
      const api = await startApi(engine, { test, clock: fixtureClock, sources: FIXTURE_SOURCES });
      expect((await api.get('/api/v1/stats')).status).toBe(200);
      await test.database.close();
      for (const path of PATHS) await expect503(api, path, KEY_LOOKUP_UNAVAILABLE);
      // the failed key lookups are logged, without their parameter: the key's hash
      const logged = api.logLines.filter((line) => line.includes('key_lookup_unavailable'));
      expect(logged.length).toBeGreaterThan(0);
      expect(api.logLines.join('\n')).not.toContain(hashApiKey(api.apiKey));
      await api.close();
      await test.dispose().catch(() => undefined);
    });

    it('rejects a made-up or mistyped key by its checksum, without the database: 401 while a key with a valid checksum gets 503', async () => {
      const test = await createTestDatabase(engine);
      const api = await startApi(engine, { test, clock: fixtureClock, sources: FIXTURE_SOURCES });
      const answer = async (key: string) => {
        const response = await api.raw('/api/v1/domains', { headers: { Authorization: `Bearer ${key}` } });
        // everything but what differs between any two responses
        const headers = [...response.headers.entries()].filter(([name]) => name !== 'x-request-id' && name !== 'date');
        return { status: response.status, body: await response.text(), headers };
      };
      // unknown keys with a valid checksum (never stored), and what the API answers one with the database up
      const [unknown, another] = [generateApiKey('live'), generateApiKey('live')];
      const invalid = await answer(unknown);
      expect(invalid).toMatchObject({ status: 401, body: '{"error":{"code":"invalid_api_key","message":"the API key is not valid"}}' });
      // well-formed, but the checksum does not match: one character of the random part changed
      // (a CRC32 detects every change of one character), and a checksum made up
      const swap = (key: string, at: number) => `${key.slice(0, at)}${key[at] === 'x' ? 'y' : 'x'}${key.slice(at + 1)}`;
      const mistyped = swap(another, 20);
      const madeUp = `${another.slice(0, -6)}${another.endsWith('AbCdEf') ? 'FeDcBa' : 'AbCdEf'}`;
      expect(mistyped).toMatch(/^dix_live_[0-9A-Za-z]{38}$/);
      expect(madeUp).toMatch(/^dix_live_[0-9A-Za-z]{38}$/);

      await test.database.close();
      // the database cannot answer: a key that needs a lookup gets 503 ...
      for (const key of [another, unknown]) {
        const response = await api.raw('/api/v1/domains', { headers: { Authorization: `Bearer ${key}` } });
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(await response.json()).toEqual({ error: KEY_LOOKUP_UNAVAILABLE });
      }
      // ... so these are answered without one, and exactly as an unknown key is
      for (const key of [mistyped, madeUp]) expect(await answer(key)).toEqual(invalid);
      await api.close();
      await test.dispose().catch(() => undefined);
    });
  });
}

describe.skipIf(postgresTestEngine().skip)('PostgreSQL made to time out', () => {
  let test: TestDatabase;
  let api: RunningApi;
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    await buildFixtureIndex(test.database);
    // the API's own pool, with the statement timeout `serve` sets from QUERY_TIMEOUT_MS, and
    // the stats' measurement bounded alike (STATS_TIMEOUT_MS)
    const database = await openDatabase({ databaseUrl: test.url, statementTimeoutMs: 300 });
    api = await startApi('postgres', { test, clock: fixtureClock, sources: FIXTURE_SOURCES, overrides: { database, statsTimeoutMs: 300 } });
  });
  afterAll(async () => {
    await api.close();
    await test.dispose();
  });

  it('answers 503 while a lock holds every query past the timeout, and recovers after', async () => {
    const lock = await holdTableLock(test.url!);
    try {
      // the stats too: nothing has measured them yet, so no cached answer stands in
      for (const path of PATHS) await expectQueryFailed(api, path);
    } finally {
      await lock.release();
    }
    expect((await api.get('/api/v1/domains?status=all')).status).toBe(200);
  });
});

describe.skipIf(postgresTestEngine().skip)('PostgreSQL failing one count of the stats', () => {
  let test: TestDatabase;
  let api: RunningApi;
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    await buildFixtureIndex(test.database);
    // the API's pool, with a statement timeout as `serve` sets it (QUERY_TIMEOUT_MS); the clock
    // stands still, so every call below falls in one 5-minute window of the stats cache
    const database = await openDatabase({ databaseUrl: test.url, statementTimeoutMs: 1_000 });
    api = await startApi('postgres', { test, clock: fixtureClock, sources: FIXTURE_SOURCES, overrides: { database, statsTimeoutMs: 1_000 } });
  });
  afterAll(async () => {
    await api.close();
    await test.dispose();
  });

  /**
   * Makes reading the `source` column stall past any statement timeout, and nothing else: the
   * table is put behind a view of the same name whose `source` column goes through a function
   * that sleeps. PostgreSQL leaves a column the statement does not use out of the flattened
   * view, so only a statement that reads `source` (of the stats' five counts, by_source alone)
   * calls it. Each call is counted in a sequence, which a rollback does not undo.
   */
  async function stallSourceColumn(database: Database): Promise<() => Promise<void>> {
    await database.rows(sql`alter table listings rename to listings_behind_view`);
    await database.rows(sql`create sequence source_reads`);
    await database.rows(
      sql.raw(`create function stall(value anyelement) returns anyelement language plpgsql stable as $$
        begin perform nextval('source_reads'); perform pg_sleep(600); return value; end $$`),
    );
    await database.rows(
      sql.raw(`do $$ declare columns text; begin
        select string_agg(case attname when 'source' then 'stall(source) as source' else quote_ident(attname) end, ', ' order by attnum) into columns
        from pg_attribute where attrelid = 'listings_behind_view'::regclass and attnum > 0 and not attisdropped;
        execute format('create view listings as select %s from listings_behind_view', columns);
      end $$`),
    );
    return async () => {
      await database.rows(sql`drop view listings`);
      await database.rows(sql`drop function stall(anyelement)`);
      await database.rows(sql`alter table listings_behind_view rename to listings`);
    };
  }
  const sourceReads = async (database: Database) =>
    (await database.rows<{ n: number }>(sql`select case when is_called then last_value else 0 end::int as n from source_reads`))[0]!.n;

  it('answers 503 query_failed, with Retry-After and no count, when one count fails; the next call after the fault answers true counts', async () => {
    const repair = await stallSourceColumn(test.database);
    try {
      // the fault fails exactly one of the stats' five counts (api-v1.md: total, retrievable, live,
      // by_status, by_source), each run here as a statement of its own under the same timeout
      const probe = await openDatabase({ databaseUrl: test.url, statementTimeoutMs: 1_000, maxConnections: 1 });
      const at = FIXTURE_NOW.toISOString();
      const notEnded = sql`(auction_end_time is null or auction_end_time > ${at}::timestamptz)`;
      const counts = {
        total: sql`select count(*) from listings`,
        retrievable: sql`select count(*) from listings where ${notEnded}`,
        live: sql`select count(*) from listings where status = 'auction' and ${notEnded}`,
        by_status: sql`select status, count(*) from listings group by status`,
        by_source: sql`select source, count(*) from listings group by source`,
      };
      const outcomes: Record<string, string> = {};
      for (const [name, statement] of Object.entries(counts)) {
        outcomes[name] = await probe.rows(statement).then(
          () => 'counted',
          (error: unknown) => (sqlstateOf(error) === '57014' ? 'timed out' : `failed: ${String(error)}`),
        );
      }
      await probe.close();
      expect(outcomes).toEqual({ total: 'counted', retrievable: 'counted', live: 'counted', by_status: 'counted', by_source: 'timed out' });
      const readsBefore = await sourceReads(test.database);

      const response = await api.get('/api/v1/stats');
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      const text = await response.text();
      // the whole answer is the error: no count, so none of them reported as 0
      expect(JSON.parse(text)).toEqual({ error: QUERY_FAILED });
      expect(text).not.toMatch(LEAK);
      // and it was this fault that failed it: the API's by_source count read the stalled column
      expect(await sourceReads(test.database)).toBeGreaterThan(readsBefore);
    } finally {
      await repair();
    }

    // not cached: within the same 5 minutes, the next call measures again, and truly
    const response = await api.get('/api/v1/stats');
    expect(response.status).toBe(200);
    const stats = statsEnvelopeSchema.parse(await response.json());
    const feeds = fixtureFeeds();
    const notEnded = retrievableListings(feeds, FIXTURE_NOW);
    expect(stats.data).toMatchObject({
      as_of: FIXTURE_NOW.toISOString(),
      total: [...feeds.values()].flat().length,
      retrievable: notEnded.length,
      live: notEnded.filter((listing) => listing.values.status === 'auction').length,
      by_source: Object.fromEntries([...feeds].map(([source, rows]) => [source, rows.length])),
    });
    expect(Object.values(stats.data.by_status).reduce((a, b) => a + b, 0)).toBe(stats.data.total);
  });
});

describe.skipIf(postgresTestEngine().skip)('PostgreSQL measuring the stats for longer than a request waits', () => {
  let test: TestDatabase;
  let api: RunningApi;
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    await buildFixtureIndex(test.database);
    // requests wait 500 ms and every statement of the pool is cut at 500 ms (QUERY_TIMEOUT_MS),
    // while a measurement of the stats may take 30 s (STATS_TIMEOUT_MS); the clock stands still,
    // so every call falls in one 5-minute window of the stats cache
    const database = await openDatabase({ databaseUrl: test.url, statementTimeoutMs: 500 });
    api = await startApi('postgres', { test, clock: fixtureClock, sources: FIXTURE_SOURCES, overrides: { database, queryTimeoutMs: 500, statsTimeoutMs: 30_000 } });
  });
  afterAll(async () => {
    await api.close();
    await test.dispose();
  });

  it('answers 503 at the request deadline and goes on counting past it, for every caller of the window at once; the retry answers', async () => {
    const lock = await holdTableLock(test.url!);
    try {
      const started = performance.now();
      await expectQueryFailed(api, '/api/v1/stats');
      // at the 500 ms request deadline, not the 30 s the measurement may take (the margin is a loaded machine's)
      expect(performance.now() - started).toBeLessThan(10_000);
      // a second caller within the window joins the same measurement: still five waiting counts, not ten
      await expectQueryFailed(api, '/api/v1/stats');
      await untilWaiting(test.database, 'listings', 5);
      // past the pool's statement timeout and both requests' deadlines, the five counts still wait:
      // the measurement was not cancelled with the requests that started it
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const [waiting] = await test.database.rows<{ n: number }>(sql`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query ilike '%count(%'`);
      expect(waiting!.n).toBe(5);
    } finally {
      await lock.release();
    }
    // the retry, once the lock is gone: the counts of that measurement, true to the index
    let response: Response | undefined;
    await until('the stats answer', async () => (response = await api.get('/api/v1/stats')).status === 200, 30_000);
    const stats = statsEnvelopeSchema.parse(await response!.json());
    expect(stats.data.total).toBe([...fixtureFeeds().values()].flat().length);
  });
});

describe.skipIf(ownClustersSkipped())('PostgreSQL stopped or a backend terminated', () => {
  let cluster: PostgresCluster;
  let api: RunningApi;
  let database: Database;
  beforeAll(async () => {
    cluster = await startCluster();
    const admin = await openDatabase({ databaseUrl: cluster.url(), maxConnections: 1 });
    await admin.rows(sql`create database api`);
    await admin.close();
    // a TestDatabase over the test's own server, for startApi
    database = await openDatabase({ databaseUrl: cluster.url('api'), maxConnections: 4 });
    await migrateDatabase(database);
    await buildFixtureIndex(database);
    const test: TestDatabase = { database, url: cluster.url('api'), dispose: () => database.close() };
    api = await startApi('postgres', { test, clock: fixtureClock, sources: FIXTURE_SOURCES });
  });
  afterAll(async () => {
    await api.close();
    await database.close().catch(() => undefined);
    await cluster.destroy();
  });

  it('answers 503 query_failed when the backend running a search is terminated, and serves again after', async () => {
    const lock = await holdTableLock(cluster.url('api'));
    try {
      const search = api.get('/api/v1/domains?status=all&search=zzq');
      // the search's backend, waiting on the lock, is ended by the server (an operator, a failover)
      await untilWaiting(database, 'listings');
      await database.rows(sql`select pg_terminate_backend(pid) from pg_locks where relation = to_regclass('listings') and not granted`);
      const response = await search;
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await response.json()).toEqual({ error: QUERY_FAILED });
    } finally {
      await lock.release();
    }
    expect((await api.get('/api/v1/domains?status=all&search=zzq')).status).toBe(200);
  });

  it('answers 503 with Retry-After on every endpoint while the server is stopped, and 200 once it is back', async () => {
    expect((await api.get('/api/v1/domains')).status).toBe(200);
    await cluster.stop();
    for (const path of PATHS) await expect503(api, path, KEY_LOOKUP_UNAVAILABLE);
    await cluster.start();
    await until('the API serves again', async () => (await api.get('/api/v1/domains?status=all')).status === 200, 60_000);
    for (const path of PATHS) expect((await api.get(path)).status, path).not.toBeGreaterThanOrEqual(500);
  });
});
