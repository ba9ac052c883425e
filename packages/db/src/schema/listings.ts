import { sql } from 'drizzle-orm';
import { SORT_KEY_SQL, type KeyedSortField } from '../sort-keys';
import {
  bigint,
  type AnyPgColumn,
  boolean,
  check,
  index,
  integer,
  numeric,
  pgTable,
  real,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/** One btree per sort field and direction: (key, domain_name, id), the order of a search page. */
function sortIndexes(domainName: AnyPgColumn, id: AnyPgColumn) {
  return (Object.keys(SORT_KEY_SQL) as KeyedSortField[]).flatMap((field) =>
    (['asc', 'desc'] as const).map((direction) =>
      index(`listings_sort_${field}_${direction}_idx`).on(sql.raw(SORT_KEY_SQL[field][direction]), domainName, id),
    ),
  );
}

const money = (name: string) => numeric(name, { precision: 14, scale: 2, mode: 'number' });
const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/**
 * One listing of one domain on one marketplace: 34 of the 35 public fields of the domain
 * object, plus internal columns (`id`, `max_backlinks`) that never reach a response. The 35th,
 * `last_checked_at`, is the time of the source's latest batch (`source_batches`): a batch is the
 * source's complete listing set, so every row of it was seen then, and an unchanged row is not
 * rewritten by a sync.
 */
export const listings = pgTable(
  'listings',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    domainName: text('domain_name').notNull(),
    tld: text('tld').notNull(),
    status: text('status', { enum: ['auction', 'dropping', 'available'] }).notNull(),
    source: text('source').notNull(),
    length: smallint('length').notNull(),
    hasHyphens: boolean('has_hyphens').notNull(),
    hasNumbers: boolean('has_numbers').notNull(),
    wordCount: smallint('word_count').notNull(),
    indexScore: smallint('index_score').notNull(),
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
    updatedAt: instant('updated_at').notNull(),
    /** Greatest of the three providers' backlink counts: what `min_backlinks` filters on. */
    maxBacklinks: bigint('max_backlinks', { mode: 'number' }).generatedAlwaysAs(
      sql`greatest(seoa_backlinks, seob_backlinks, seoc_backlinks)`,
    ),
  },
  (t) => [
    // One row per name per marketplace; the import upserts on it.
    uniqueIndex('listings_source_domain_name_key').on(t.source, t.domainName),
    // Lookup by name across marketplaces, and the order of sort=domain_name (desc walks it backwards).
    index('listings_domain_name_id_idx').on(t.domainName, t.id),
    // The order of every other sort field, both directions; see sort-keys.ts.
    ...sortIndexes(t.domainName, t.id),
    // Substring terms (`search`): LIKE '%term%' through trigrams.
    index('listings_domain_name_trgm_idx').using('gin', sql`${t.domainName} gin_trgm_ops`),
    // Purge of ended listings and the not-ended rule.
    index('listings_auction_end_time_idx').on(t.auctionEndTime),
    // Two more indexes are written in SQL migrations, as Drizzle cannot declare them:
    // listings_domain_name_bigrams_idx (0006: two-character terms, a GIN over a function) and
    // listings_live_by_score_idx (0008: the live set in the default order, with INCLUDE columns).

    check('listings_status_check', sql`${t.status} in ('auction', 'dropping', 'available')`),
  ],
);

/** A row of `listings` as read. */
export type ListingRow = typeof listings.$inferSelect;
/** A row of `listings` as written. */
export type NewListingRow = typeof listings.$inferInsert;
