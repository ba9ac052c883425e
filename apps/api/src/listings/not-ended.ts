import { listings, gt, isNull, or, type SQL } from '@domain-index/db';

/** Every code path excludes listings whose end time has passed; fixed-price rows without one stay. */
export function notEnded(now: Date): SQL {
  return or(isNull(listings.auctionEndTime), gt(listings.auctionEndTime, now))!;
}
