import type { Database } from '@domain-index/db';
import { seedRecords, type SourceConfig } from '@domain-index/indexer';
import type { Clock } from '@domain-index/runtime/clock';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { jsonlFeed } from '@domain-index/test-support/feeds';

/** The fixed "now" of the fixture index and of the API instances that read it. */
export const FIXTURE_NOW = new Date('2026-11-21T12:00:00.000Z');
export const fixtureClock: Clock = { now: () => FIXTURE_NOW };

/** Configured marketplaces of the fixture; `epsilon` has no listing at all. */
export const FIXTURE_SOURCES: readonly SourceConfig[] = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((id) => ({
  id,
  name: id,
  everyMinutes: 60,
  feed: `${id}.jsonl`,
  format: 'jsonl' as const,
}));

const hoursFromNow = (hours: number) => new Date(FIXTURE_NOW.getTime() + hours * 3_600_000).toISOString();

/**
 * A listing with every optional field set to a value that is easy to get subtly wrong on the
 * way out: cents, the largest money value, the largest exact count, fractional metrics, and
 * milliseconds. The API must answer exactly these values.
 */
export const EVERY_FIELD_RECORD = {
  domain_name: 'every-field.co.uk',
  status: 'auction',
  current_bid: 1234.56,
  start_price: 0.01,
  buy_now_price: 999_999_999.99,
  bid_count: 7,
  auction_end_time: '2026-11-25T08:09:10.123Z',
  auction_type: 'auction',
  marketplace_url: 'https://delta.example/l/every-field',
  extensions_taken: 3,
  domain_age: 12,
  valuation: 2500.5,
  spam_risk: 12.3,
  seoa_dr: 45.6,
  seoa_backlinks: 123_456_789_012,
  seob_tf: 33.3,
  seob_cf: 0.1,
  seob_backlinks: 9_007_199_254_740_991,
  seoc_authority: 77.7,
  seoc_backlinks: 0,
  keyword_search_volume: 880,
  open_rank: 5.25,
  rankinga_ranking: 1_234_567,
  rankingb_ranking: 89,
  last_sold_price: 4100.1,
  last_sold_year: 2019,
} as const;

/** Hand-made rows for rules that seeded data may not hit. */
const EXTRA: Record<string, Record<string, unknown>[]> = {
  alpha: [
    { domain_name: 'multi.com', status: 'dropping', auction_end_time: hoursFromNow(30), current_bid: 5 },
    { domain_name: 'noend-auction.com', status: 'auction', current_bid: 50, bid_count: 3 },
    { domain_name: 'soon-ending.net', status: 'auction', auction_end_time: hoursFromNow(2), current_bid: 11, bid_count: 1 },
    { domain_name: 'just-ended.org', status: 'auction', auction_end_time: hoursFromNow(-1), current_bid: 99, bid_count: 9 },
  ],
  beta: [
    { domain_name: 'multi.com', status: 'available', buy_now_price: 1500, current_bid: 1500 },
    { domain_name: 'ended-only.com', status: 'auction', auction_end_time: hoursFromNow(-5), current_bid: 10 },
  ],
  gamma: [
    { domain_name: 'multi.com', status: 'auction', auction_end_time: hoursFromNow(-2), current_bid: 70, bid_count: 4 },
    { domain_name: 'strong-authority.com', status: 'auction', auction_end_time: hoursFromNow(100), current_bid: 300, bid_count: 12, seoa_dr: 71, seoa_backlinks: 90_000, seob_tf: 44, seob_cf: 50, seob_backlinks: 120_000, keyword_search_volume: 5400, domain_age: 22, extensions_taken: 40 },
  ],
  delta: [{ domain_name: 'delta-only.io', status: 'available', buy_now_price: 250, current_bid: 250 }, EVERY_FIELD_RECORD],
};

/**
 * The feed of every fixture marketplace, by source id: seeded listings of alpha, beta and gamma
 * plus hand-made rows (a name on three marketplaces, auctions without an end time, ended rows).
 * The oracle states the retrievable set from these records, not from what the API answers.
 */
export function fixtureFeeds(): Map<string, Record<string, unknown>[]> {
  const bySource = new Map<string, Record<string, unknown>[]>(FIXTURE_SOURCES.map((source) => [source.id, []]));
  for (const { source, record } of seedRecords({ rows: 150, seed: 7, sources: ['alpha', 'beta', 'gamma'], now: FIXTURE_NOW })) {
    bySource.get(source)!.push(record);
  }
  for (const [source, rows] of Object.entries(EXTRA)) bySource.get(source)!.push(...rows);
  return bySource;
}

/**
 * A small index built through the real import path from {@link fixtureFeeds}, small enough that
 * one page of 200 holds every retrievable row.
 */
export async function buildFixtureIndex(database: Database): Promise<void> {
  const bySource = fixtureFeeds();
  for (const source of FIXTURE_SOURCES) {
    const records = bySource.get(source.id)!;
    if (records.length === 0) continue;
    const summary = await importBatch({ database, source, input: jsonlFeed(records), clock: fixtureClock });
    if (summary.outcome !== 'applied') throw new Error(`fixture batch ${source.id} rejected: ${summary.reason ?? ''}`);
  }
}
