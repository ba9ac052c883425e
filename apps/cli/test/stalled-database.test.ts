import { openDatabase, type Database } from '@domain-index/db';
import { createTestDatabase, postgresTestEngine, type TestDatabase } from '@domain-index/db/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPEAT_WINDOW_MS } from '@domain-index/runtime/logger';
import { buildFixtureIndex, fixtureClock, FIXTURE_SOURCES } from './support/fixture-index';
import { until } from '@domain-index/test-support/waiting';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';
import { startStallingProxy, type StallingProxy } from './support/stalling-proxy';

const postgres = postgresTestEngine();

/** The API's query budget here: every endpoint must answer within it plus 1 s. */
const QUERY_TIMEOUT_MS = 1_500;
const PATHS = ['/api/v1/domains', '/api/v1/domains?status=all&search=co', '/api/v1/domains/multi.com', '/api/v1/stats'];
const SERVICE_FAULTS = ['query_failed', 'key_lookup_unavailable', 'plan_lookup_unavailable'];

describe.skipIf(postgres.skip)('PostgreSQL that accepts connections and never answers', () => {
  let test: TestDatabase;
  let proxy: StallingProxy;
  let database: Database;
  let api: RunningApi;

  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    await buildFixtureIndex(test.database);
    const target = new URL(test.url!);
    proxy = await startStallingProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const through = new URL(test.url!);
    through.port = String(proxy.port);
    // the pool `serve` opens, through the proxy: statement timeout, connect and idle timeouts
    database = await openDatabase({ databaseUrl: through.toString(), statementTimeoutMs: QUERY_TIMEOUT_MS, connectTimeoutMs: 2_000, idleTimeoutMs: 30_000 });
    api = await startApi('postgres', { test, clock: fixtureClock, sources: FIXTURE_SOURCES, overrides: { database, queryTimeoutMs: QUERY_TIMEOUT_MS } });
  });
  afterAll(async () => {
    await api?.close();
    await database?.close();
    await proxy?.close();
    await test?.dispose();
  });

  it('answers every endpoint 503 with Retry-After at QUERY_TIMEOUT_MS, open connections and new ones alike, and 200 again once the database answers', async () => {
    for (const path of PATHS) expect((await api.get(path)).status, path).toBe(200);
    proxy.stall();
    // two rounds: the first waits on the pool's open connections, the second also on new ones
    for (const round of [1, 2]) {
      const answers = await Promise.all(
        PATHS.map(async (path) => {
          const started = performance.now();
          const response = await api.get(path);
          return { path, round, status: response.status, retryAfter: response.headers.get('retry-after'), code: ((await response.json()) as { error?: { code: string } }).error?.code, ms: performance.now() - started };
        }),
      );
      for (const answer of answers) {
        expect(answer.status, `${answer.path} (round ${round})`).toBe(503);
        expect(answer.retryAfter).toMatch(/^\d+$/);
        expect(SERVICE_FAULTS).toContain(answer.code);
        // at the request's deadline, not the driver's 30 s connect timeout nor never (the proxy
        // stalls for good); the margin is a loaded machine's
        expect(answer.ms, `${answer.path} (round ${round})`).toBeLessThan(15_000);
      }
    }
    proxy.resume();
    // the pool recovers by itself, without a restart
    await until('every endpoint answers 200 again', async () => (await Promise.all(PATHS.map(async (path) => (await api.get(path)).status))).every((status) => status === 200), 30_000);
  });

  it('logs each kind of refusal as one warning without a stack or SQL, and counts the repeats instead of writing them', { timeout: 60_000 }, async () => {
    // the refusals of the test before are counted for 10 s: this one starts with no window open
    await sleep(REPEAT_WINDOW_MS + 500);
    for (const path of PATHS) expect((await api.get(path)).status, path).toBe(200);
    const from = api.logLines.length;
    proxy.stall();
    try {
      const statuses = await Promise.all(Array.from({ length: 24 }, (_, i) => api.get(PATHS[i % PATHS.length]!).then((response) => response.status)));
      expect(statuses.every((status) => status === 503)).toBe(true);
      const refusals = () => api.logLines.slice(from).filter((line) => line.includes('request refused by a service fault'));
      const first = refusals().map((line) => JSON.parse(line) as Record<string, unknown>);
      // one line per kind (code and route), not one per request
      expect(first.length).toBeGreaterThan(0);
      expect(first.length).toBeLessThanOrEqual(PATHS.length * SERVICE_FAULTS.length);
      expect(new Set(first.map((line) => `${String(line.code)} ${String(line.route)}`)).size).toBe(first.length);
      for (const line of first) {
        expect(line).toMatchObject({ level: 40 });
        expect(SERVICE_FAULTS).toContain(line.code);
        expect(line).not.toHaveProperty('err');
      }
      // when each kind's 10 s window closes, how many more of it there were. Each window opens
      // at its kind's first line, and on a loaded machine those lines come seconds apart: the
      // total is read once every window has closed, not at the first summary.
      const counted = () =>
        first.length +
        refusals()
          .map((line) => JSON.parse(line) as { repeated?: number })
          .reduce((sum, line) => sum + (line.repeated ?? 0), 0);
      await until('every refusal is written or counted', () => counted() >= 24, REPEAT_WINDOW_MS + QUERY_TIMEOUT_MS + 5_000);
      expect(counted()).toBe(24);
    } finally {
      proxy.resume();
    }
    const written = api.logLines.slice(from).join('\n');
    expect(written).not.toContain('"stack"');
    expect(written).not.toMatch(/\bselect\b|\binsert\b|\bfrom listings\b/i);
  });
});
