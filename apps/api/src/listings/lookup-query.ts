import type { Domain } from '@domain-index/contract';
import { and, eq, fillPlaceholders, listings, perDatabase, sql, type Database, type RenderedStatement } from '@domain-index/db';
import { DOMAIN_COLUMNS, domainFromValues } from '@domain-index/listings/domain-values';
import { LOOKUP_ORDER } from '@domain-index/listings/lookup-order';
import { notEnded } from '@domain-index/listings/not-ended';

/** The lookup query, with the placeholders `name` and `now`. */
export const lookupQuery = (database: Database) =>
  database.db
    .select({ domain: DOMAIN_COLUMNS })
    .from(listings)
    .where(and(eq(listings.domainName, sql.placeholder('name')), notEnded(sql`${sql.placeholder('now')}::timestamptz`)))
    .orderBy(...LOOKUP_ORDER)
    .limit(1);

const renderedLookup = perDatabase((database) => lookupQuery(database).toSQL());

/**
 * The lookup statement as the API sends it (the benchmark sends the same). Rendered once per
 * database instead of on every request, and prepared by postgres.js once per connection: its
 * text never changes and its one good plan is the domain_name index, so PostgreSQL plans it
 * once for all names. Planning against the listings table's twenty indexes was most of what a
 * lookup cost the database: 422 us of its CPU per lookup unprepared, 51 us prepared.
 */
export function lookupStatement(database: Database, domainName: string, now: Date): RenderedStatement {
  const rendered = renderedLookup(database);
  return { sql: rendered.sql, params: fillPlaceholders(rendered.params, { name: domainName, now: now.toISOString() }), prepare: true };
}

/** The listing a lookup answers with, or undefined. */
export async function findListing(database: Database, domainName: string, now: Date): Promise<Domain | undefined> {
  const [row] = await database.values(lookupStatement(database, domainName, now));
  return row === undefined ? undefined : domainFromValues(row);
}
