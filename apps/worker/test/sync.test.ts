import { listings, openDatabase, sourceSyncs, sql, type Database } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import type { SourceConfig } from '@domain-index/indexer';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '@domain-index/runtime/clock';
import { purgeEnded } from '../src/indexing/purge';
import { syncSource } from '../src/indexing/sync-source';
import { runSyncWorker } from '../src/indexing/sync-worker';
import { createLogger } from '@domain-index/runtime/logger';
import { auctionRecord } from '@domain-index/test-support/feeds';
import { startFeedServer, type FeedAnswer, type FeedServer } from '@domain-index/test-support/feed-server';
import { until } from '@domain-index/test-support/waiting';

const silent = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
const feedOf = (names: string[]) => `${names.map((name) => JSON.stringify(auctionRecord(name))).join('\n')}\n`;
const sourceAt = (id: string, feed: string): SourceConfig => ({ id, name: id, everyMinutes: 60, feed, format: 'jsonl' });

async function namesOf(database: Database, sourceId: string): Promise<string[]> {
  const rows = await database.rows<{ domain_name: string }>(sql`select domain_name from listings where source = ${sourceId} order by 1`);
  return rows.map((row) => row.domain_name);
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`sync and purge on ${engine}`, () => {
    let test: TestDatabase;
    const servers: FeedServer[] = [];
    const serve = async (...answers: FeedAnswer[]) => {
      const server = await startFeedServer(answers);
      servers.push(server);
      return server;
    };
    beforeAll(async () => {
      test = await createTestDatabase(engine);
    });
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.close()));
      await test.dispose();
    });
    beforeEach(async () => {
      await test.database.db.delete(listings);
      await test.database.db.delete(sourceSyncs);
    });
    const options = () => ({ database: test.database, clock: systemClock, logger: silent, backoffMs: 1 });

    it('syncs a feed served over HTTP and records the sync', async () => {
      const server = await serve({ status: 200, body: feedOf(['alpha.com', 'beta.net']) });
      const result = await syncSource(sourceAt('web', server.url), options());
      expect(result).toMatchObject({ status: 'applied', attempts: 1, summary: { inserted: 2 } });
      expect(await namesOf(test.database, 'web')).toEqual(['alpha.com', 'beta.net']);
      const [sync] = await test.database.db.select().from(sourceSyncs);
      expect(sync).toMatchObject({ source: 'web', lastOutcome: 'applied', consecutiveFailures: 0 });
    });

    it('retries a failing feed with backoff and then applies it', async () => {
      const server = await serve({ status: 503, body: 'busy' }, { status: 503, body: 'busy' }, { status: 200, body: feedOf(['gamma.io']) });
      const result = await syncSource(sourceAt('flaky', server.url), options());
      expect(result).toMatchObject({ status: 'applied', attempts: 3 });
      expect(server.requests).toBe(3);
    });

    it('keeps the previous batch when a source keeps failing, and does not retry a 404', async () => {
      const good = await serve({ status: 200, body: feedOf(['kept.com']) });
      await syncSource(sourceAt('down', good.url), options());
      const broken = await serve({ status: 500, body: 'oops' });
      const failed = await syncSource(sourceAt('down', broken.url), { ...options(), maxAttempts: 3 });
      expect(failed).toMatchObject({ status: 'failed', attempts: 3 });
      expect(failed.status === 'failed' && failed.reason).toMatch(/HTTP 500/);
      const missing = await serve({ status: 404, body: 'no' });
      expect(await syncSource(sourceAt('down', missing.url), options())).toMatchObject({ status: 'failed', attempts: 1 });
      expect(await namesOf(test.database, 'down')).toEqual(['kept.com']);
      const [sync] = await test.database.db.select().from(sourceSyncs);
      expect(sync).toMatchObject({ lastOutcome: 'failed', consecutiveFailures: 2 });
    });

    it('lets only one of two workers sync a source at a time', async () => {
      // the feed answers 3 s late: the first worker holds the source that long, ample for the
      // second to try it on a loaded machine
      const server = await serve({ status: 200, body: feedOf(['once.com']), delayMs: 3_000 });
      // on PostgreSQL the second worker has its own pool, as a second process would
      const second = test.url === undefined ? test.database : await openDatabase({ databaseUrl: test.url, maxConnections: 2 });
      const source = sourceAt('shared', server.url);
      const first = syncSource(source, options());
      // the second starts while the first holds the source: its feed request has arrived, the answer is 3 s away
      await until('the first worker fetches the feed', () => server.requests === 1);
      const results = await Promise.all([first, syncSource(source, { ...options(), database: second })]);
      if (second !== test.database) await second.close();
      expect(results.map((result) => result.status).sort()).toEqual(['applied', 'skipped']);
      expect(server.requests).toBe(1);
    });

    it('runs every configured source from the worker loop until stopped', async () => {
      const a = await serve({ status: 200, body: feedOf(['one.com']) });
      const b = await serve({ status: 200, body: feedOf(['two.com', 'three.com']) });
      const stop = new AbortController();
      const worker = runSyncWorker({
        ...options(),
        sources: [sourceAt('a', a.url), sourceAt('b', b.url)],
        retentionDays: 3,
        signal: stop.signal,
      });
      await until('both sources have synced', async () => (await test.database.db.select().from(sourceSyncs)).length === 2);
      stop.abort();
      await worker;
      expect(await namesOf(test.database, 'a')).toEqual(['one.com']);
      expect(await namesOf(test.database, 'b')).toEqual(['three.com', 'two.com']);
      // each source ran once: its next run is an hour away
      expect([a.requests, b.requests]).toEqual([1, 1]);
    });

    it('purges listings ended longer ago than the retention, and only those', async () => {
      const now = new Date('2026-11-21T12:00:00.000Z');
      const clock: Clock = { now: () => now };
      const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000).toISOString();
      const server = await serve({
        status: 200,
        body: [
          JSON.stringify(auctionRecord('old.com', { auction_end_time: hoursAgo(73) })),
          JSON.stringify(auctionRecord('recent.com', { auction_end_time: hoursAgo(71) })),
          JSON.stringify(auctionRecord('future.com', { auction_end_time: hoursAgo(-5) })),
          JSON.stringify({ domain_name: 'fixed.com', status: 'available', buy_now_price: 900 }),
        ].join('\n'),
      });
      await syncSource(sourceAt('p', server.url), { ...options(), clock });
      expect(await purgeEnded(test.database, now, 3)).toBe(1);
      expect(await namesOf(test.database, 'p')).toEqual(['fixed.com', 'future.com', 'recent.com']);
      expect(await purgeEnded(test.database, now, 3)).toBe(0);
    });
  });
}
