import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, numeric, pgTable, real, smallint, text, timestamp } from 'drizzle-orm/pg-core';

const money = (name: string) => numeric(name, { precision: 14, scale: 2, mode: 'number' });
const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/**
 * The change feed: one row per change of the index, in commit order (`id`). The listing's
 * columns are a copy of the listing after the change (before it for `listing.removed` and
 * `listing.ended`), under the same names as in `listings`, so that a search's filters apply to
 * events unchanged. Partitioned by day of `occurred_at` (migration 0014): retention drops a
 * day's partition instead of deleting rows. A `source.loaded` event has no listing: its listing
 * columns are null and `loaded` says how many listings the source's first batch brought.
 */
export const listingEvents = pgTable(
  'listing_events',
  {
    /** Commit order: taken from listing_events_id_seq under the event log's lock (events/append.ts). */
    id: bigint('id', { mode: 'number' }).notNull(),
    occurredAt: instant('occurred_at').notNull(),
    type: text('type').notNull(),
    source: text('source').notNull(),
    /** listing.updated: the public fields that changed, with their values before the change. */
    previous: jsonb('previous'),
    /** name.* events: the watchlist whose owner alone sees the event; null for every other event. */
    watchlistId: text('watchlist_id'),
    /** name.* events: the name's registration phase after the change. */
    phase: text('phase'),
    expectedDropAt: instant('expected_drop_at'),
    /** source.loaded: the listings of the batch. */
    loaded: integer('loaded'),
    domainName: text('domain_name'),
    tld: text('tld'),
    status: text('status'),
    length: smallint('length'),
    hasHyphens: boolean('has_hyphens'),
    hasNumbers: boolean('has_numbers'),
    wordCount: smallint('word_count'),
    indexScore: smallint('index_score'),
    currentBid: money('current_bid'),
    startPrice: money('start_price'),
    buyNowPrice: money('buy_now_price'),
    bidCount: integer('bid_count'),
    auctionEndTime: instant('auction_end_time'),
    auctionType: text('auction_type'),
    marketplaceUrl: text('marketplace_url'),
    extensionsTaken: integer('extensions_taken'),
    domainAge: smallint('domain_age'),
    valuation: money('valuation'),
    spamRisk: real('spam_risk'),
    seoaDr: real('seoa_dr'),
    seoaBacklinks: bigint('seoa_backlinks', { mode: 'number' }),
    seobTf: real('seob_tf'),
    seobCf: real('seob_cf'),
    seobBacklinks: bigint('seob_backlinks', { mode: 'number' }),
    seocAuthority: real('seoc_authority'),
    seocBacklinks: bigint('seoc_backlinks', { mode: 'number' }),
    keywordSearchVolume: integer('keyword_search_volume'),
    openRank: real('open_rank'),
    rankingaRanking: integer('rankinga_ranking'),
    rankingbRanking: integer('rankingb_ranking'),
    lastSoldPrice: money('last_sold_price'),
    lastSoldYear: smallint('last_sold_year'),
    lastCheckedAt: instant('last_checked_at'),
    updatedAt: instant('updated_at'),
    /** As in listings: what `min_backlinks` filters on. */
    maxBacklinks: bigint('max_backlinks', { mode: 'number' }).generatedAlwaysAs(sql`greatest(seoa_backlinks, seob_backlinks, seoc_backlinks)`),
  },
  (t) => [
    // the feed is read in id order from a position
    index('listing_events_id_idx').on(t.id),
  ],
);

/** A row of `listing_events` as read. */
export type ListingEventRow = typeof listingEvents.$inferSelect;
