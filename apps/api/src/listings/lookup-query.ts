import { and, asc, desc, eq, getTableColumns, listings, perDatabase, sql, type Database, type SQL } from '@domain-index/db';
import { lastCheckedAt } from './last-checked-at';
import { notEnded } from './not-ended';

/**
 * The listing a lookup returns when several marketplaces list the name (decisions.md):
 * auction, then available, then dropping; then the most recently checked; then the source id
 * so that the choice is total.
 */
const statusPreference = sql`case ${listings.status} when 'auction' then 0 when 'available' then 1 else 2 end`;

type Name = string | ReturnType<typeof sql.placeholder>;

function lookupStatement(database: Database, domainName: Name, now: Date | SQL) {
  return database.db
    .select({ ...getTableColumns(listings), lastCheckedAt })
    .from(listings)
    .where(and(eq(listings.domainName, domainName), notEnded(now)))
    .orderBy(statusPreference, desc(lastCheckedAt), asc(listings.source))
    .limit(1);
}

/** The statement of a lookup, unexecuted (the benchmark sends the same SQL directly). */
export function lookupQuery(database: Database, domainName: string, now: Date) {
  return lookupStatement(database, domainName, now);
}

const preparedLookup = perDatabase((database) =>
  lookupStatement(database, sql.placeholder('name'), sql`${sql.placeholder('now')}::timestamptz`).prepare('lookup_domain'),
);

/**
 * Runs the lookup as a prepared statement: the SQL is built once per database instead of on
 * every request, which is most of what a lookup costs the API process.
 */
export function findListing(database: Database, domainName: string, now: Date) {
  return preparedLookup(database).execute({ name: domainName, now: now.toISOString() });
}
