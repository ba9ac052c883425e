/** How a field of the feed format is read from a marketplace's record. */
export type FieldKind = 'domain' | 'money' | 'number' | 'timestamp' | 'text';

/**
 * The feed format's fields a profile can fill (decisions.md, "Feed format"), in its order,
 * with the value parser each one takes. `status` has a rule of its own and `source` is the
 * batch's.
 */
export const PROFILE_FIELDS = {
  domain_name: 'domain',
  current_bid: 'money',
  start_price: 'money',
  buy_now_price: 'money',
  bid_count: 'number',
  auction_end_time: 'timestamp',
  auction_type: 'text',
  marketplace_url: 'text',
  extensions_taken: 'number',
  domain_age: 'number',
  valuation: 'money',
  spam_risk: 'number',
  seoa_dr: 'number',
  seoa_backlinks: 'number',
  seob_tf: 'number',
  seob_cf: 'number',
  seob_backlinks: 'number',
  seoc_authority: 'number',
  seoc_backlinks: 'number',
  keyword_search_volume: 'number',
  open_rank: 'number',
  rankinga_ranking: 'number',
  rankingb_ranking: 'number',
  last_sold_price: 'money',
  last_sold_year: 'number',
} as const satisfies Record<string, FieldKind>;

/** A feed-format field a profile can fill. */
export type ProfileField = keyof typeof PROFILE_FIELDS;

/** The fields in feed-format order. */
export const PROFILE_FIELD_NAMES = Object.keys(PROFILE_FIELDS) as ProfileField[];
