import { asc, desc, listings, sql, type SQL } from '@domain-index/db';
import { lastCheckedAt } from './last-checked-at';

/**
 * The order of a name's listings when several marketplaces list it (decisions.md): auction, then
 * available, then dropping; then the most recently checked; then the source id, so that the
 * order is total. A lookup answers with the first; a name's page lists them all in this order.
 */
export const LOOKUP_ORDER: readonly SQL[] = [
  sql`case ${listings.status} when 'auction' then 0 when 'available' then 1 else 2 end`,
  desc(lastCheckedAt),
  asc(listings.source),
];
