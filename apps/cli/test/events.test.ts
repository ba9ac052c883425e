import type { Event, EventListEnvelope } from '@domain-index/contract';
import { sql } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import type { SourceConfig } from '@domain-index/indexer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '@domain-index/runtime/clock';
import { appendTimedEvents } from '@domain-index/worker/events/timed-events';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { jsonlFeed } from '@domain-index/test-support/feeds';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

const SOURCES: readonly SourceConfig[] = ['alpha', 'beta'].map((id) => ({ id, name: id, everyMinutes: 60, feed: `${id}.jsonl`, format: 'jsonl' as const }));
const T1 = new Date('2026-11-21T12:00:00.000Z');
const T2 = new Date('2026-11-21T13:00:00.000Z');
const hours = (from: Date, h: number) => new Date(from.getTime() + h * 3_600_000).toISOString();

/** A clock a test moves by hand: batches and the worker see the time the test says. */
function handClock(start: Date): Clock & { set(at: Date): void } {
  let now = start;
  return { now: () => now, set: (at) => (now = at) };
}

/** Every event the API returns after `after`, following next_cursor to the end. */
async function walk(api: RunningApi, query = '', after?: string): Promise<{ events: Event[]; cursor: string }> {
  const events: Event[] = [];
  let cursor = after;
  for (let pages = 0; pages < 100; pages += 1) {
    const response = await api.get(`/api/v1/events?limit=200${query}${cursor === undefined ? '' : `&after=${encodeURIComponent(cursor)}`}`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as EventListEnvelope;
    events.push(...page.data);
    cursor = page.pagination.next_cursor;
    expect(cursor).toEqual(expect.any(String));
    if (!page.pagination.has_more) return { events, cursor };
  }
  throw new Error('the feed did not end');
}

const FIRST = [
  { domain_name: 'stays-same.com', status: 'auction', current_bid: 10, bid_count: 1, auction_end_time: hours(T1, 100) },
  { domain_name: 'price-moves.com', status: 'auction', current_bid: 20, bid_count: 2, auction_end_time: hours(T1, 100) },
  { domain_name: 'end-moves.com', status: 'auction', current_bid: 30, bid_count: 0, auction_end_time: hours(T1, 100) },
  { domain_name: 'goes-away.com', status: 'available', buy_now_price: 500, current_bid: 500 },
  { domain_name: 'status-changes.net', status: 'auction', current_bid: 5, auction_end_time: hours(T1, 100) },
];
const SECOND = [
  FIRST[0]!,
  { ...FIRST[1]!, current_bid: 25, bid_count: 3 },
  { ...FIRST[2]!, auction_end_time: hours(T1, 120) },
  { ...FIRST[4]!, status: 'available', buy_now_price: 80 },
  { domain_name: 'brand-new.io', status: 'auction', current_bid: 1, bid_count: 0, auction_end_time: hours(T1, 200), seoa_dr: 12 },
];

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`the change feed on ${engine}`, () => {
    let test: TestDatabase;
    let api: RunningApi;
    const clock = handClock(T1);
    const load = (source: SourceConfig, records: Record<string, unknown>[]) => importBatch({ database: test.database, source, clock, input: jsonlFeed(records) });

    beforeAll(async () => {
      test = await createTestDatabase(engine);
      api = await startApi(engine, { test, clock, sources: SOURCES });
    });
    afterAll(async () => {
      await api.close();
      await test.dispose();
    });

    it('records a first batch as one source.loaded, then each added, changed and removed listing of the next, with the previous values', async () => {
      expect((await load(SOURCES[0]!, FIRST)).outcome).toBe('applied');
      clock.set(T2);
      const summary = await load(SOURCES[0]!, SECOND);
      expect(summary).toMatchObject({ inserted: 1, updated: 3, unchanged: 1, removed: 1 });
      const { events } = await walk(api);
      expect(events.map((event) => [event.type, event.data.object?.domain_name ?? null])).toEqual([
        ['source.loaded', null],
        ['listing.added', 'brand-new.io'],
        ['listing.updated', 'end-moves.com'],
        ['listing.removed', 'goes-away.com'],
        ['listing.updated', 'price-moves.com'],
        ['listing.updated', 'status-changes.net'],
      ]);
      const [loaded, added, endMoved, removed, priceMoved, statusChanged] = events as [Event, Event, Event, Event, Event, Event];
      expect(loaded).toMatchObject({ object: 'event', source: 'alpha', created: T1.toISOString(), data: { object: null, previous_attributes: null, listings_loaded: 5 } });
      expect(added).toMatchObject({ created: T2.toISOString(), data: { object: { domain_name: 'brand-new.io', current_bid: 1, seoa_dr: 12, updated_at: T2.toISOString(), last_checked_at: T2.toISOString() }, previous_attributes: null } });
      expect(endMoved.data.previous_attributes).toEqual({ auction_end_time: hours(T1, 100), updated_at: T1.toISOString() });
      expect(endMoved.data.object).toMatchObject({ auction_end_time: hours(T1, 120) });
      // the score moves with marketplace activity: it is one of the changed fields
      expect(priceMoved.data.previous_attributes).toEqual({ current_bid: 20, bid_count: 2, index_score: expect.any(Number) as number, updated_at: T1.toISOString() });
      expect(priceMoved.data.previous_attributes!.index_score).not.toBe(priceMoved.data.object!.index_score);
      expect(priceMoved.data.object).toMatchObject({ current_bid: 25, bid_count: 3 });
      expect(statusChanged.data.previous_attributes).toEqual({ status: 'auction', buy_now_price: null, updated_at: T1.toISOString() });
      // a removed listing is the listing as it was, with the time it was last seen
      expect(removed.data.object).toMatchObject({ domain_name: 'goes-away.com', status: 'available', buy_now_price: 500, last_checked_at: T1.toISOString(), updated_at: T1.toISOString() });
      // ids follow commit order
      const ids = events.map((event) => Number(event.id.slice(4)));
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    });

    it('appends nothing for a rejected batch or one that changes nothing', async () => {
      const before = (await walk(api)).events.length;
      expect((await load(SOURCES[0]!, [{ domain_name: 'x', status: 'auction' }])).outcome).toBe('rejected');
      expect((await load(SOURCES[0]!, SECOND)).outcome).toBe('applied');
      expect((await walk(api)).events).toHaveLength(before);
    });

    it('appends listing.ending_soon and listing.ended once per listing however often the worker runs', async () => {
      const start = (await walk(api)).cursor;
      // ending at T2+30h and T2+50h: nothing yet
      clock.set(T2);
      await load(SOURCES[1]!, [
        { domain_name: 'ends-first.com', status: 'auction', current_bid: 1, auction_end_time: hours(T2, 30) },
        { domain_name: 'ends-later.com', status: 'auction', current_bid: 1, auction_end_time: hours(T2, 50) },
        { domain_name: 'no-end.com', status: 'available', buy_now_price: 9, current_bid: 9 },
      ]);
      for (const at of [T2, new Date(hours(T2, 1)), new Date(hours(T2, 7)), new Date(hours(T2, 7)), new Date(hours(T2, 27)), new Date(hours(T2, 27.5)), new Date(hours(T2, 31)), new Date(hours(T2, 31)), new Date(hours(T2, 60))]) {
        await appendTimedEvents(test.database, at);
      }
      const { events } = await walk(api, '&source=beta', start);
      expect(events.map((event) => [event.type, event.data.object?.domain_name ?? null, event.created])).toEqual([
        ['source.loaded', null, T2.toISOString()],
        ['listing.ending_soon', 'ends-first.com', hours(T2, 7)],
        ['listing.ending_soon', 'ends-later.com', hours(T2, 27)],
        ['listing.ended', 'ends-first.com', hours(T2, 31)],
        ['listing.ended', 'ends-later.com', hours(T2, 60)],
      ]);
    });

    it('starts at the newest event with after=now, and carries a cursor on every page, an empty one included', async () => {
      const response = await api.get('/api/v1/events?after=now&limit=5');
      const page = (await response.json()) as EventListEnvelope;
      expect(page).toMatchObject({ object: 'list', data: [], pagination: { page_size: 5, has_more: false, next_cursor: expect.any(String) as string } });
      const again = (await (await api.get(`/api/v1/events?after=${page.pagination.next_cursor}`)).json()) as EventListEnvelope;
      expect(again.data).toEqual([]);
    });

    it('answers 400 naming after for a cursor it did not make, 410 cursor_expired once its events are dropped, and the search\'s errors for the filters', async () => {
      expect(await (await api.get('/api/v1/events?after=made-up')).json()).toEqual({
        error: { code: 'invalid_parameter', message: "after is malformed or was not issued by this API; pass a page's next_cursor back unchanged, or now", param: 'after' },
      });
      // the same answers as a search, for every shared filter
      for (const query of ['min_price=abc', 'max_length=64', 'search=a', 'min_price=10&max_price=5', 'ending_within=5&status=available', 'tld=a&tld=b', 'nope=1', 'type=listing.bogus']) {
        const events = await api.get(`/api/v1/events?${query}`);
        const search = await api.get(`/api/v1/domains?${query}`);
        expect(events.status, query).toBe(400);
        if (!query.startsWith('type=')) expect(await events.json(), query).toEqual(await search.json());
      }
      const early = (await walk(api)).events[0]!;
      const cursorAtStart = (await (await api.get('/api/v1/events?limit=1')).json()) as EventListEnvelope;
      expect(cursorAtStart.data[0]!.id).toBe(early.id);
      // every day of events before the last is past a 1-day retention 3 days later
      const { dropExpiredEventPartitions } = await import('@domain-index/events/partitions');
      const { lockEventLog } = await import('@domain-index/events/event-log-lock');
      await dropExpiredEventPartitions(test.database, new Date(hours(T2, 24 * 5)), 1, lockEventLog);
      const expired = await api.get(`/api/v1/events?after=${cursorAtStart.pagination.next_cursor}`);
      expect(expired.status).toBe(410);
      expect(await expired.json()).toEqual({
        error: { code: 'cursor_expired', message: 'the cursor points before the oldest event kept (events are kept 14 days); start again without after, or with after=now' },
      });
      const [left] = await test.database.rows<{ n: number }>(sql`select count(*)::int as n from listing_events`);
      expect(left!.n).toBe(0);
    });
  });
}
