import type { ExportQuery, SearchQuery } from '@domain-index/contract';
import { and, listings, sql, type Database, type RenderedStatement } from '@domain-index/db';
import { DOMAIN_COLUMNS } from '@domain-index/listings/domain-values';
import { searchConditions } from '@domain-index/listings/filters';
import { orderBy, skipEnded } from '../search/keyset';
import { resolveOrdering } from '../search/ordering';

/** The search an export's filters and sort make: its paging parameters are never set. */
export function exportSearch(query: ExportQuery): SearchQuery {
  const { format: _format, summary: _summary, ...filters } = query;
  const search: SearchQuery = { ...filters, limit: 0 };
  return search;
}

/**
 * The two statements of an export: the count of its rows and the rows themselves, with the
 * search's filters (filters.ts) and its total, stable order (keyset.ts: the sort key, then
 * domain_name, then id), selecting exactly the domain object's 35 values.
 */
export function exportStatements(database: Database, query: ExportQuery, now: Date): { rows: RenderedStatement; count: RenderedStatement } {
  const search = exportSearch(query);
  const ordering = resolveOrdering(search);
  const where = searchConditions(search, now);
  const rows = database.db
    .select({ domain: DOMAIN_COLUMNS })
    .from(listings)
    .where(and(where, skipEnded(ordering, now)))
    .orderBy(...orderBy(ordering))
    .toSQL();
  const count = database.db.select({ n: sql<number>`count(*)` }).from(listings).where(where).toSQL();
  return { rows, count };
}
