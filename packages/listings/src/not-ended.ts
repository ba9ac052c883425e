import { listings, sql, type Placeholder, type SQL } from '@domain-index/db';

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
  return sql`coalesce(${listings.auctionEndTime}, 'infinity'::timestamptz) > ${after}`;
}
