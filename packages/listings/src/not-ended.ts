import { listings, sql, type AnyPgColumn, type Placeholder, type SQL } from '@domain-index/db';

/**
 * A row's end time, infinity when it has none (a fixed-price listing): the expression the
 * not-ended rule and `ending_within` compare, and the one migration 0022 gives statistics of its
 * own. Both written on it, the two read as one range of its histogram.
 */
export function endOrInfinity(column: AnyPgColumn): SQL {
  return sql`coalesce(${column}, 'infinity'::timestamptz)`;
}

/**
 * Every code path excludes listings whose end time has passed; fixed-price rows without one stay.
 * `now` is a time, or an SQL timestamp expression (a prepared statement's placeholder).
 *
 * One expression rather than `auction_end_time is null or auction_end_time > now`: the planner
 * estimates that OR as two independent conditions and undercounts the rows it keeps by about a
 * sixth, which every planned total inherited. This expression has statistics of its own
 * (migration 0022), so its share of rows is estimated from its own histogram.
 */
export function notEnded(now: Date | SQL | Placeholder): SQL {
  // A time is encoded by the column, as a comparison with the column itself would encode it.
  const after = now instanceof Date ? sql.param(now, listings.auctionEndTime) : now;
  return sql`${endOrInfinity(listings.auctionEndTime)} > ${after}`;
}
