import { openDatabase, sql } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureIndex, fixtureClock, FIXTURE_SOURCES } from './support/fixture-index';
import { startApi, type RunningApi } from './support/start-api';

const PATHS = ['/api/v1/domains', '/api/v1/domains?status=all&search=co', '/api/v1/domains/multi.com', '/api/v1/stats'];

const QUERY_FAILED = { code: 'query_failed', message: 'the query could not complete; please retry' };
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

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`database faults on ${engine}`, () => {
    it('answers 503 query_failed with Retry-After when the listings cannot be queried, never an empty 200', async () => {
      const test = await createTestDatabase(engine);
      await buildFixtureIndex(test.database);
      const api = await startApi(engine, { test, clock: fixtureClock, sources: FIXTURE_SOURCES });
      expect((await api.get('/api/v1/domains')).status).toBe(200);
      await test.database.rows(sql`alter table listings rename to listings_gone`);
      for (const path of PATHS) await expectQueryFailed(api, path);
      await test.database.rows(sql`alter table listings_gone rename to listings`);
      expect((await api.get('/api/v1/domains')).status).toBe(200);
      await api.close();
    });

    it('answers 503 key_lookup_unavailable when the database is gone', async () => {
      const test = await createTestDatabase(engine);
      const api = await startApi(engine, { test, clock: fixtureClock, sources: FIXTURE_SOURCES });
      expect((await api.get('/api/v1/stats')).status).toBe(200);
      await test.database.close();
      for (const path of PATHS) await expect503(api, path, KEY_LOOKUP_UNAVAILABLE);
      await api.close();
      await test.dispose().catch(() => undefined);
    });
  });
}

describe.skipIf(testEngines().find((e) => e.engine === 'postgres')!.skip)('PostgreSQL made to time out', () => {
  let test: TestDatabase;
  let api: RunningApi;
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    await buildFixtureIndex(test.database);
    // the API's own pool, with the statement timeout `serve` sets from QUERY_TIMEOUT_MS
    const database = await openDatabase({ databaseUrl: test.url, statementTimeoutMs: 300 });
    api = await startApi('postgres', { test, clock: fixtureClock, sources: FIXTURE_SOURCES, overrides: { database } });
  });
  afterAll(async () => {
    await api.close();
    await test.dispose();
  });

  it('answers 503 while a lock holds every query past the timeout, and recovers after', async () => {
    const blockerDb = await openDatabase({ databaseUrl: test.url, maxConnections: 1 });
    if (blockerDb.driver.kind !== 'postgres') throw new Error('expected PostgreSQL');
    const blocker = blockerDb.driver.client;
    const stats = await api.get('/api/v1/stats');
    expect(stats.status).toBe(200);
    let release: () => void = () => undefined;
    const held = blocker.begin(async (tx) => {
      await tx`lock table listings in access exclusive mode`;
      await new Promise<void>((resolve) => (release = resolve));
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const path of PATHS.slice(0, 3)) await expectQueryFailed(api, path);
    release();
    await held;
    await blockerDb.close();
    expect((await api.get('/api/v1/domains?status=all')).status).toBe(200);
  });
});
