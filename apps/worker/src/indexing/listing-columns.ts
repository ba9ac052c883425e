/**
 * The columns an import writes, with their SQL types: the staging table and the switch are
 * both generated from this one list. `id`, `max_backlinks` and
 * `updated_at` are the database's or the switch's own.
 */
export const LISTING_COLUMNS = [
  ['domain_name', 'text'],
  ['tld', 'text'],
  ['status', 'text'],
  ['source', 'text'],
  ['length', 'smallint'],
  ['has_hyphens', 'boolean'],
  ['has_numbers', 'boolean'],
  ['word_count', 'smallint'],
  ['index_score', 'smallint'],
  ['current_bid', 'numeric(14,2)'],
  ['start_price', 'numeric(14,2)'],
  ['buy_now_price', 'numeric(14,2)'],
  ['bid_count', 'integer'],
  ['auction_end_time', 'timestamptz(3)'],
  ['auction_type', 'text'],
  ['marketplace_url', 'text'],
  ['extensions_taken', 'integer'],
  ['domain_age', 'smallint'],
  ['valuation', 'numeric(14,2)'],
  ['spam_risk', 'real'],
  ['seoa_dr', 'real'],
  ['seoa_backlinks', 'bigint'],
  ['seob_tf', 'real'],
  ['seob_cf', 'real'],
  ['seob_backlinks', 'bigint'],
  ['seoc_authority', 'real'],
  ['seoc_backlinks', 'bigint'],
  ['keyword_search_volume', 'integer'],
  ['open_rank', 'real'],
  ['rankinga_ranking', 'integer'],
  ['rankingb_ranking', 'integer'],
  ['last_sold_price', 'numeric(14,2)'],
  ['last_sold_year', 'smallint'],
] as const;

/** The written columns, quoted and comma-separated, for the statements that list them. */
export const LISTING_COLUMN_LIST = LISTING_COLUMNS.map(([name]) => `"${name}"`).join(', ');

/** A column an import writes. */
export type ListingColumn = (typeof LISTING_COLUMNS)[number][0];

/** A listing ready for the staging table: one JSON-compatible value per column. */
export type StagedListing = Record<ListingColumn, string | number | boolean | null>;
