import { and, asc, desc, eq, getTableColumns, listings, sql, type Database } from '@domain-index/db';
import { lastCheckedAt } from './last-checked-at';
import { notEnded } from './not-ended';

/**
 * The listing a lookup returns when several marketplaces list the name (decisions.md):
 * auction, then available, then dropping; then the most recently checked; then the source id
 * so that the choice is total.
 */
const statusPreference = sql`case ${listings.status} when 'auction' then 0 when 'available' then 1 else 2 end`;

/** The statement of a lookup, unexecuted (the benchmark sends the same SQL directly). */
export function lookupQuery(database: Database, domainName: string, now: Date) {
  return database.db
    .select({ ...getTableColumns(listings), lastCheckedAt })
    .from(listings)
    .where(and(eq(listings.domainName, domainName), notEnded(now)))
    .orderBy(statusPreference, desc(lastCheckedAt), asc(listings.source))
    .limit(1);
}
