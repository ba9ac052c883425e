/**
 * Keyset paging needs one ascending key per ordering so that "after the cursor" is a single
 * row comparison `(key, domain_name, id) > (...)`, which a btree index answers as a range
 * start instead of a filter. Descending orders therefore negate the value, and NULL becomes
 * +Infinity so that it sorts last in both directions. The schema's indexes and the search
 * query use these exact expressions, so PostgreSQL matches them to each other.
 */
export const SORT_KEY_SQL = {
  length: { asc: 'length', desc: '(- length)' },
  index_score: { asc: 'index_score', desc: '(- index_score)' },
  current_bid: {
    asc: "coalesce(current_bid::float8, 'Infinity'::float8)",
    desc: "coalesce(- current_bid::float8, 'Infinity'::float8)",
  },
  buy_now_price: {
    asc: "coalesce(buy_now_price::float8, 'Infinity'::float8)",
    desc: "coalesce(- buy_now_price::float8, 'Infinity'::float8)",
  },
  bid_count: {
    asc: "coalesce(bid_count::float8, 'Infinity'::float8)",
    desc: "coalesce(- bid_count::float8, 'Infinity'::float8)",
  },
  // epoch of the UTC wall time: immutable, unlike extract() on timestamptz, so it can be indexed
  auction_end_time: {
    asc: "coalesce(extract(epoch from (auction_end_time at time zone 'UTC'))::float8, 'Infinity'::float8)",
    desc: "coalesce(- extract(epoch from (auction_end_time at time zone 'UTC'))::float8, 'Infinity'::float8)",
  },
} as const;

/** A sort field with a computed key; `domain_name` is its own key. */
export type KeyedSortField = keyof typeof SORT_KEY_SQL;
