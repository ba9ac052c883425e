import { eventQuerySchema } from '@domain-index/contract';
import { listingEvents } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { seedRecords, type SourceConfig } from '@domain-index/indexer';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventMatcher } from '@domain-index/alerts/event-matcher';
import { loadWindow } from '@domain-index/alerts/outbox';
import { eventConditions } from '@domain-index/events/feed-page';
import { appendTimedEvents } from '../src/events/timed-events';
import { importBatch } from '../src/indexing/import-batch';
import { jsonlFeed } from '@domain-index/test-support/feeds';

const SEED = process.env.PROPERTY_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.PROPERTY_SEED);
const RUNS = process.env.PROPERTY_RUNS === undefined ? 300 : Number(process.env.PROPERTY_RUNS);
const NOW = new Date('2026-11-21T12:00:00.000Z');
const SOURCES: SourceConfig[] = ['alpha', 'beta'].map((id) => ({ id, name: id, everyMinutes: 60, feed: `${id}.jsonl`, format: 'jsonl' as const }));

/** Random alert queries as the API stores them: raw parameters of the change feed. */
const queries = fc
  .tuple(
    fc.record({
      type: fc.subarray(['listing.added', 'listing.updated', 'listing.removed', 'listing.ending_soon', 'listing.ended', 'source.loaded'], { minLength: 1 }).map((types) => types.join(',')),
      status: fc.constantFrom('all', 'auction', 'dropping', 'available'),
      source: fc.constantFrom('alpha', 'beta'),
      search: fc.constantFrom('co', 'an', 'er', 'in', 'e.c', 'sun', 'net', 'o-'),
      tld: fc.constantFrom('com', 'net', 'co.uk', 'io', 'ai'),
      min_price: fc.oneof(fc.integer({ min: 0, max: 400 }).map(String), fc.double({ min: 0, max: 400, noNaN: true }).map((v) => v.toFixed(3))),
      max_price: fc.integer({ min: 100, max: 5000 }).map(String),
      min_length: fc.integer({ min: 0, max: 8 }).map(String),
      max_length: fc.integer({ min: 8, max: 20 }).map(String),
      no_hyphens: fc.constantFrom('true', 'false'),
      no_numbers: fc.constantFrom('true', 'false'),
      min_score: fc.double({ min: 0, max: 60, noNaN: true }).map((v) => v.toFixed(2)),
      max_score: fc.integer({ min: 40, max: 100 }).map(String),
      min_dr: fc.double({ min: 0, max: 60, noNaN: true }).map((v) => v.toFixed(4)),
      max_dr: fc.double({ min: 20, max: 100, noNaN: true }).map((v) => v.toFixed(4)),
      min_tf: fc.double({ min: 0, max: 40, noNaN: true }).map((v) => v.toFixed(1)),
      min_backlinks: fc.integer({ min: 0, max: 5000 }).map(String),
      min_age: fc.integer({ min: 0, max: 20 }).map(String),
      min_search_volume: fc.integer({ min: 0, max: 3000 }).map(String),
      min_word_count: fc.integer({ min: 0, max: 3 }).map(String),
      min_extensions: fc.integer({ min: 0, max: 20 }).map(String),
      ending_within: fc.integer({ min: 1, max: 200 }).map(String),
    }),
    fc.shuffledSubarray(['type', 'status', 'source', 'search', 'tld', 'min_price', 'max_price', 'min_length', 'max_length', 'no_hyphens', 'no_numbers', 'min_score', 'max_score', 'min_dr', 'max_dr', 'min_tf', 'min_backlinks', 'min_age', 'min_search_volume', 'min_word_count', 'min_extensions', 'ending_within'] as const, { maxLength: 4 }),
  )
  .map(([all, keys]) => Object.fromEntries(keys.map((key) => [key, all[key]])) as Record<string, string>)
  .filter((params) => eventQuerySchema.safeParse(params).success);

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`alert matching in memory on ${engine}`, () => {
    let test: TestDatabase;
    beforeAll(async () => {
      test = await createTestDatabase(engine);
      const clock = { now: () => NOW };
      // every kind of event: a first batch (source.loaded), added, updated, removed, and the time-driven ones
      for (const [source, seed] of [[SOURCES[0]!, 21], [SOURCES[1]!, 22]] as const) {
        const records = [...seedRecords({ rows: 300, seed, sources: [source.id], now: NOW })].map(({ record }) => record);
        await importBatch({ database: test.database, source, clock, input: jsonlFeed(records.slice(0, 200)) });
        const changed = records.slice(100, 300).map((record, i) => (i % 3 === 0 ? { ...record, current_bid: Number(record.current_bid ?? 0) + 7 } : record));
        await importBatch({ database: test.database, source, clock: { now: () => new Date(NOW.getTime() + 60_000) }, input: jsonlFeed(changed) });
      }
      await appendTimedEvents(test.database, new Date(NOW.getTime() + 120_000));
      await appendTimedEvents(test.database, new Date(NOW.getTime() + 30 * 86_400_000));
    });
    afterAll(async () => {
      await test.dispose();
    });

    it(`selects the same events as the SQL filters of the change feed (${RUNS} random alert queries)`, async () => {
      console.info(`alert matching on ${engine}: seed ${SEED}; PROPERTY_SEED=${SEED} repeats it`);
      const rows = await loadWindow(test.database, 0, 100_000);
      const types = new Set(rows.map((row) => row.type));
      expect([...types].sort()).toEqual(['listing.added', 'listing.ended', 'listing.ending_soon', 'listing.removed', 'listing.updated', 'source.loaded']);
      let nonEmpty = 0;
      await fc.assert(
        fc.asyncProperty(queries, async (params) => {
          const query = eventQuerySchema.parse(params);
          const bySql = (await test.database.db.select({ id: listingEvents.id }).from(listingEvents).where(eventConditions(query, { sourceLoaded: 'when-asked' })).orderBy(listingEvents.id)).map((row) => row.id);
          const inMemory = rows.filter(eventMatcher(query)).map((row) => row.id);
          if (bySql.length > 0) nonEmpty += 1;
          expect(inMemory, new URLSearchParams(params).toString()).toEqual(bySql);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      expect(nonEmpty).toBeGreaterThan(RUNS / 4);
    });
  });
}
