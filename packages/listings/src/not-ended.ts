import { listings, gt, isNull, or, type Placeholder, type SQL } from '@domain-index/db';

/**
 * Every code path excludes listings whose end time has passed; fixed-price rows without one stay.
 * `now` is a time, or an SQL timestamp expression (a prepared statement's placeholder).
 */
export function notEnded(now: Date | SQL | Placeholder): SQL {
  return or(isNull(listings.auctionEndTime), gt(listings.auctionEndTime, now))!;
}
