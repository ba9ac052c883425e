import { randomBytes } from 'node:crypto';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_SOURCES } from '@domain-index/indexer';
import { createTestDatabase, postgresTestEngine, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '@domain-index/accounts/key-store';
import { auctionRecord } from '@domain-index/test-support/feeds';
import { startFeedServer, type FeedServer } from '@domain-index/test-support/feed-server';
import { parseExposition, seriesKey, total, type Series } from './support/prometheus';
import { startCommand, startServe, type ServeProcess } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';
import { testRedisUrl } from '@domain-index/test-support/redis';

const redisUrl = testRedisUrl();
const postgresSkipped = postgresTestEngine().skip;

/** GET on a fresh connection each time, so that the cluster spreads them over its workers. */
const get = (url: string, key?: string) =>
  fetch(url, {
    headers: {
      connection: 'close',
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    },
  });

async function scrape(admin: string): Promise<Series[]> {
  const response = await fetch(`${admin}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
  // the parser throws on any line that is not the Prometheus text format
  return parseExposition(await response.text());
}

describe.skipIf(postgresSkipped || redisUrl === undefined)(
  'metrics of serve with WORKERS=2, on its admin listener',
  () => {
    let test: TestDatabase;
    let key: string;
    let server: ServeProcess;
    let api: string;
    let admin: string;
    beforeAll(async () => {
      test = await createTestDatabase('postgres');
      ({ key } = await createKey(test.database, { planId: 'pro', environment: 'test' }));
      const [port, adminPort] = [await freePort(), await freePort()];
      api = `http://127.0.0.1:${port}`;
      admin = `http://127.0.0.1:${adminPort}`;
      server = startServe(
        {
          WORKERS: '2',
          DATABASE_URL: test.url!,
          REDIS_URL: redisUrl!,
          PORT: String(port),
          HOST: '127.0.0.1',
          ADMIN_PORT: String(adminPort),
          LOG_LEVEL: 'warn',
        },
        { detached: true },
      );
      await until(
        'it listens',
        () => {
          if (server.child.exitCode !== null)
            throw new Error(`serve exited early:\n${server.output()}`);
          return server.stdout().includes('Domain Index API listening on');
        },
        60_000,
      );
    }, 90_000);
    afterAll(async () => {
      server.child.kill('SIGTERM');
      await Promise.race([server.exited, sleep(15_000)]);
      server.child.kill('SIGKILL');
      await test.dispose();
    });

    it('counts every request exactly once across both workers, by route pattern, status and error code', async () => {
      const before = await scrape(admin);
      const requests: Promise<Response>[] = [];
      for (let i = 0; i < 12; i += 1)
        requests.push(get(`${api}/api/v1/domains?status=all&limit=10`, key));
      for (let i = 0; i < 8; i += 1)
        requests.push(get(`${api}/api/v1/domains/missing-${i}.com`, key));
      for (let i = 0; i < 5; i += 1) requests.push(get(`${api}/nowhere/${i}`));
      for (let i = 0; i < 5; i += 1) requests.push(get(`${api}/api/v1/stats`));
      const statuses = (await Promise.all(requests)).map((response) => response.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(12);
      const after = await scrape(admin);
      const delta = (name: string, match: Record<string, string> = {}) =>
        total(after, name, match) - total(before, name, match);

      expect(delta('http_request_duration_seconds')).toBe(30);
      expect(
        delta('http_request_duration_seconds', {
          method: 'GET',
          route: '/api/v1/domains',
          status: '200',
        }),
      ).toBe(12);
      expect(
        delta('http_request_duration_seconds', { route: '/api/v1/domains/:domain', status: '404' }),
      ).toBe(8);
      expect(delta('http_request_duration_seconds', { route: 'unmatched', status: '404' })).toBe(5);
      expect(
        delta('http_request_duration_seconds', { route: '/api/v1/stats', status: '401' }),
      ).toBe(5);
      expect(delta('domain_index_error_responses_total', { code: 'domain_not_found' })).toBe(8);
      expect(delta('domain_index_error_responses_total', { code: 'not_found' })).toBe(5);
      expect(delta('domain_index_error_responses_total', { code: 'missing_api_key' })).toBe(5);
      expect(delta('domain_index_rate_limit_decisions_total', { decision: 'allowed' })).toBe(20);
      // every search's total counted once: exact, or planned when the count ran out of its budget
      // (as it does on a loaded machine: the API's answer, not a fault)
      expect(delta('domain_index_search_totals_total')).toBe(12);
      expect(
        delta('domain_index_db_query_duration_seconds', { kind: 'search_page', node: 'primary' }),
      ).toBe(12);
      // no raw URL ever becomes a label value
      expect(
        after.filter(
          (s) =>
            s.name === 'http_request_duration_seconds' &&
            /missing-|nowhere/.test(s.labels.route ?? ''),
        ),
      ).toEqual([]);
      // Node's process defaults are there, summed over the workers
      expect(total(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    });

    it('adds no series for 1,000 requests to random unknown paths', async () => {
      await get(`${api}/warm-up-the-unmatched-series`);
      // the keyed requests of the test before are written off the request path, the usage counts
      // and the request log each within a second or so, each its own series (of a statement kind,
      // never of a path): wait for both, so that only the unknown paths could add series
      const background = ['usage_flush', 'request_log_prune'];
      await expect
        .poll(async () => {
          const kinds = new Set((await scrape(admin)).filter((s) => s.name === 'domain_index_db_query_duration_seconds_count').map((s) => s.labels.kind));
          return background.filter((kind) => !kinds.has(kind));
        }, { timeout: 30_000 })
        .toEqual([]);
      const requestSeries = (series: Series[]) =>
        new Set(
          series
            .filter((s) => s.name.startsWith('http_') || s.name.startsWith('domain_index_'))
            .map(seriesKey),
        );
      const before = requestSeries(await scrape(admin));
      const prefixes = ['/', '/api/v1/', '/api/v2/', '/docs/', '/api/v1/domains/a/b/'];
      for (let batch = 0; batch < 20; batch += 1) {
        await Promise.all(
          Array.from({ length: 50 }, (_, i) => {
            const path = `${prefixes[(batch + i) % prefixes.length]}${randomBytes(6).toString('hex')}/${randomBytes(3).toString('hex')}?q=${i}`;
            return get(`${api}${path}`).then((response) => {
              expect(response.status).toBe(404);
            });
          }),
        );
      }
      const afterSeries = await scrape(admin);
      const added = [...requestSeries(afterSeries)].filter((series) => !before.has(series));
      expect(added).toEqual([]);
      expect(
        total(afterSeries, 'http_request_duration_seconds', { route: 'unmatched' }),
      ).toBeGreaterThanOrEqual(1_001);
    });

    it('serves a detailed health report as application/health+json', async () => {
      const response = await fetch(`${admin}/health`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/health+json');
      const report = (await response.json()) as {
        status: string;
        checks: Record<
          string,
          [{ status: string; observedUnit?: string; observedValue?: unknown }]
        >;
      };
      expect(['pass', 'warn']).toContain(report.status);
      expect(report.checks['postgresql:responseTime']![0]).toMatchObject({
        status: 'pass',
        observedUnit: 'ms',
      });
      expect(report.checks['redis:responseTime']![0]).toMatchObject({
        status: 'pass',
        observedUnit: 'ms',
      });
      expect(report.checks.migrations![0].status).toBe('pass');
      for (const source of DEFAULT_SOURCES)
        expect(report.checks[`sync:${source.id}`]![0].status).toBe('warn');
      expect((await fetch(`${admin}/readyz`)).status).toBe(200);
      expect((await fetch(`${admin}/livez`)).status).toBe(200);
    });
  },
);

describe.skipIf(postgresSkipped)('metrics of the sync worker, on its admin listener', () => {
  let test: TestDatabase;
  let feed: FeedServer;
  const dir = mkdtempSync(join(tmpdir(), 'di-sync-metrics-'));
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    const lines = [
      ...['one.com', 'two.net', 'three.org'].map((name) => JSON.stringify(auctionRecord(name))),
      '{"domain_name": "bad..name", "status": "auction"}',
    ];
    // 3 good rows and 1 bad: 25% bad would reject the batch, so it is padded with good rows
    const padding = Array.from({ length: 20 }, (_, i) =>
      JSON.stringify(auctionRecord(`pad${i}.com`)),
    );
    feed = await startFeedServer([{ status: 200, body: `${[...lines, ...padding].join('\n')}\n` }]);
    writeFileSync(
      join(dir, 'sources.json'),
      JSON.stringify([
        { id: 'loop', name: 'Loopback', everyMinutes: 60, feed: feed.url, format: 'jsonl' },
      ]),
    );
  });
  afterAll(async () => {
    await feed.close();
    await test.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'counts rows staged, bad rows and the batch switched, and exposes the last success and the interval',
    { timeout: 60_000 },
    async () => {
      const adminPort = await freePort();
      const admin = `http://127.0.0.1:${adminPort}`;
      const started = Date.now() / 1000;
      const worker = startCommand(['sync'], {
        DATABASE_URL: test.url!,
        SOURCES_FILE: join(dir, 'sources.json'),
        ADMIN_PORT: String(adminPort),
        LOG_LEVEL: 'warn',
      });
      try {
        let series: Series[] = [];
        await until(
          'the batch is switched',
          async () => {
            if (worker.child.exitCode !== null)
              throw new Error(`sync exited early:\n${worker.output()}`);
            const response = await fetch(`${admin}/metrics`).catch(() => undefined);
            if (response === undefined) return false;
            series = parseExposition(await response.text());
            return (
              total(series, 'domain_index_sync_batches_total', {
                source: 'loop',
                outcome: 'switched',
              }) === 1
            );
          },
          30_000,
        );
        expect(total(series, 'domain_index_sync_rows_staged_total', { source: 'loop' })).toBe(23);
        expect(total(series, 'domain_index_sync_bad_rows_total', { source: 'loop' })).toBe(1);
        expect(
          total(series, 'domain_index_sync_batches_total', { source: 'loop', outcome: 'failed' }),
        ).toBe(0);
        expect(total(series, 'domain_index_sync_feeds_unchanged_total', { source: 'loop' })).toBe(
          0,
        );
        expect(total(series, 'domain_index_sync_interval_seconds', { source: 'loop' })).toBe(3600);
        const lastSuccess = total(series, 'domain_index_sync_last_success_timestamp_seconds', {
          source: 'loop',
        });
        expect(lastSuccess).toBeGreaterThanOrEqual(Math.floor(started));
        expect(lastSuccess).toBeLessThanOrEqual(Date.now() / 1000);
        expect(total(series, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
        expect((await fetch(`${admin}/readyz`)).status).toBe(200);
        const health = (await (await fetch(`${admin}/health`)).json()) as {
          checks: Record<string, [{ status: string }]>;
        };
        expect(health.checks['sync:loop']![0].status).toBe('pass');
        worker.child.kill('SIGTERM');
        expect(await Promise.race([worker.exited, sleep(15_000, 'still running' as const)])).toBe(
          0,
        );
      } finally {
        worker.child.kill('SIGKILL');
      }
    },
  );
});
