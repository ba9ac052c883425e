import { setTimeout as sleep } from 'node:timers/promises';
import { Writable } from 'node:stream';
import { sourceSyncs } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import type { SourceConfig } from '@domain-index/indexer';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '@domain-index/runtime/clock';
import { runSyncWorker } from '../src/indexing/sync-worker';
import { createLogger } from '@domain-index/runtime/logger';
import { auctionRecord } from '@domain-index/test-support/feeds';
import { startFeedServer, type FeedAnswer, type FeedServer } from '@domain-index/test-support/feed-server';
import { until } from '@domain-index/test-support/waiting';

const silent = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
const feed = `${JSON.stringify(auctionRecord('back.com'))}\n`;
const hourly = (id: string, url: string): SourceConfig => ({ id, name: id, everyMinutes: 60, feed: url, format: 'jsonl' });
/** The schedule of the retries, shortened from minutes to milliseconds for the test. */
const RETRY_DELAYS_MS = [300, 1_500, 3_000];

/** A feed server that notes when each request arrived. */
async function timedFeed(answer: (index: number) => FeedAnswer): Promise<FeedServer & { arrivals: number[] }> {
  const arrivals: number[] = [];
  const server = await startFeedServer((_request, index) => {
    arrivals.push(Date.now());
    return answer(index);
  });
  return Object.assign(server, { arrivals });
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`a failed sync retried with backoff by the worker on ${engine}`, () => {
    let test: TestDatabase;
    const servers: FeedServer[] = [];
    beforeAll(async () => {
      test = await createTestDatabase(engine);
    });
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.close()));
      await test.dispose();
    });
    beforeEach(async () => {
      await test.database.db.delete(sourceSyncs);
    });
    const worker = (sources: SourceConfig[], signal: AbortSignal) =>
      runSyncWorker({ database: test.database, clock: systemClock, logger: silent, maxAttempts: 1, random: () => 0.5, retryDelaysMs: RETRY_DELAYS_MS, sources, retentionDays: 3, signal });

    it('tries a failing feed again after each delay of the schedule, then at its interval once it recovers', async () => {
      const server = await timedFeed((index) => (index < 3 ? { status: 503, body: 'down for a minute' } : { status: 200, body: feed }));
      servers.push(server);
      const stop = new AbortController();
      const running = worker([hourly('flaky', server.url)], stop.signal);
      try {
        await until('the feed has recovered', async () => (await test.database.db.select().from(sourceSyncs))[0]?.lastOutcome === 'applied', 20_000);
        // the next sync is an hour away: nothing more comes
        await sleep(1_000);
      } finally {
        stop.abort();
        await running;
      }
      const gaps = server.arrivals.slice(1).map((at, index) => at - server.arrivals[index]!);
      expect(gaps).toHaveLength(3);
      for (const [index, gap] of gaps.entries()) {
        expect(gap).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[index]!);
        // its own step, not the next one (the last: not the hour of the interval)
        expect(gap).toBeLessThan(RETRY_DELAYS_MS[index + 1] ?? 10_000);
      }
      const [row] = await test.database.db.select().from(sourceSyncs);
      expect(row).toMatchObject({ lastOutcome: 'applied', consecutiveFailures: 0 });
    });

    it('resumes the backoff of a source whose last sync failed when it starts', async () => {
      const server = await timedFeed(() => ({ status: 200, body: feed }));
      servers.push(server);
      const failedAt = new Date();
      await test.database.db.insert(sourceSyncs).values({ source: 'resumed', lastStartedAt: failedAt, lastFinishedAt: failedAt, lastOutcome: 'failed', lastSummary: { reason: 'HTTP 503' }, consecutiveFailures: 2 });
      const stop = new AbortController();
      const running = worker([hourly('resumed', server.url)], stop.signal);
      try {
        await until('the source is tried again', () => server.requests === 1, 10_000);
      } finally {
        stop.abort();
        await running;
      }
      // the second failure in a row: the second delay, not the hour of its interval
      expect(server.arrivals[0]! - failedAt.getTime()).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[1]!);
      expect(server.arrivals[0]! - failedAt.getTime()).toBeLessThan(RETRY_DELAYS_MS[2]!);
    });
  });
}
