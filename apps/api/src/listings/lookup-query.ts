import type { Domain } from '@domain-index/contract';
import { and, asc, desc, eq, fillPlaceholders, listings, perDatabase, sql, type Database, type SQL } from '@domain-index/db';
import { DOMAIN_COLUMNS, domainFromValues } from './domain-values';
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
    .select({ domain: DOMAIN_COLUMNS })
    .from(listings)
    .where(and(eq(listings.domainName, domainName), notEnded(now)))
    .orderBy(statusPreference, desc(lastCheckedAt), asc(listings.source))
    .limit(1);
}

/** The statement of a lookup, unexecuted (the benchmark sends the same SQL directly). */
export function lookupQuery(database: Database, domainName: string, now: Date) {
  return lookupStatement(database, domainName, now);
}

const renderedLookup = perDatabase((database) =>
  lookupStatement(database, sql.placeholder('name'), sql`${sql.placeholder('now')}::timestamptz`).toSQL(),
);

/**
 * The listing a lookup answers with, or undefined. The SQL is rendered once per database
 * instead of on every request (building it was most of what a lookup cost the API process),
 * and postgres.js prepares it once per connection, since its text never changes.
 */
export async function findListing(database: Database, domainName: string, now: Date): Promise<Domain | undefined> {
  const rendered = renderedLookup(database);
  const [row] = await database.values({ sql: rendered.sql, params: fillPlaceholders(rendered.params, { name: domainName, now: now.toISOString() }) });
  return row === undefined ? undefined : domainFromValues(row);
}
