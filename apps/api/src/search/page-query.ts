import type { Domain, SearchQuery } from '@domain-index/contract';
import { and, inArray, listings, withoutWorkers, sql, type Database, type Placeholder, type RenderedStatement, type SQL } from '@domain-index/db';
import { DOMAIN_COLUMNS, DOMAIN_WIDTH, domainFromValues } from '@domain-index/listings/domain-values';
import { inline, type Bind } from '@domain-index/listings/bind';
import { searchConditions } from '@domain-index/listings/filters';
import type { CursorPosition } from './cursor';
import { afterPosition, orderBy, skipEnded, sortKeySelection } from './keyset';
import type { Ordering } from './ordering';
import { hasSearchTerms, type PageStrategy } from './page-strategy';

/**
 * The conditions of a search's page: the search's own (filters.ts) and, for a search with
 * terms, no parallel workers. Such a page is found on a bitmap of the substring indexes, or by a
 * walk cut short by its limit, and is over before workers repay their start: at 30M listings a
 * two-character term's page took 91.6 ms with them and 17.6 ms without, three terms 124 and
 * 69 ms (bench/notes/99). Pages without terms walk a sort index and were as fast either way, so
 * the planner keeps its choice there.
 */
export function pageConditions(query: SearchQuery, now: Date, bind: Bind = inline): SQL {
  const where = searchConditions(query, now, bind);
  return hasSearchTerms(query) ? withoutWorkers(where) : where;
}

/**
 * The statement of one search page: the rows after the cursor in the search's order, one more
 * than the page so that `has_more` is known. Returned unexecuted so the benchmark can send the
 * very same SQL straight to the database. `strategy` says how the page's rows are found
 * (page-strategy.ts); every strategy gives the same rows. `bind` takes every value, as it took
 * those of `where` (bind.ts).
 */
export function pageQuery(
  database: Database,
  where: SQL,
  ordering: Ordering,
  after: CursorPosition | undefined,
  limit: number,
  now: Date,
  strategy: PageStrategy = 'walk',
  bind: Bind = inline,
) {
  // only built here (the caller renders it and runs it on its own view): the database's own
  // Drizzle, not a request view's, which would be made for the request
  const { db } = database.root;
  const conditions = and(where, skipEnded(ordering, now, bind), after === undefined ? undefined : afterPosition(ordering, after, bind));
  // The domain object, then what the next cursor needs (see pageRows).
  const columns = { domain: DOMAIN_COLUMNS, sort_key: sortKeySelection(ordering), id: listings.id };
  if (strategy === 'walk') {
    return db.select(columns).from(listings).where(conditions).orderBy(...orderBy(ordering)).limit(bind(limit + 1));
  }
  // Two steps: the page's ids first, reading only the columns filtered and sorted on, then the rows.
  const ids =
    strategy === 'collect'
      ? collectedIds(conditions, ordering, bind(limit + 1))
      : db
          .select({ id: listings.id })
          .from(listings)
          .where(conditions)
          .orderBy(...orderBy(ordering))
          .limit(bind(limit + 1));
  return db
    .select(columns)
    .from(listings)
    .where(inArray(listings.id, ids))
    .orderBy(...orderBy(ordering));
}

/** A page row: its domain object, and the position a cursor after it carries. */
export interface PageRow {
  domain: Domain;
  sortKey: number | null;
  id: number;
}

/** Runs a page statement and reads its rows, straight from the driver's arrays. */
export async function pageRows(database: Database, statement: ReturnType<typeof pageQuery> | RenderedStatement): Promise<PageRow[]> {
  const rows = await database.values('toSQL' in statement ? statement.toSQL() : statement);
  return rows.map((values) => ({
    domain: domainFromValues(values),
    sortKey: values[DOMAIN_WIDTH] as number | null,
    // bigint: a string from postgres.js, a bigint or number from PGlite
    id: Number(values[DOMAIN_WIDTH + 1]),
  }));
}

/**
 * The page's ids from all matches, sorted. `offset 0` keeps PostgreSQL from planning the
 * matches with the limit in view, so it gathers them through the substring indexes.
 */
function collectedIds(conditions: SQL | undefined, ordering: Ordering, limit: number | Placeholder): SQL {
  const key = ordering.keySql === null ? sql`null::float8` : sql.raw(ordering.keySql);
  // domain_name descending walks name and id backwards; every keyed order is ascending
  const direction = sql.raw(ordering.keySql === null && ordering.order === 'desc' ? 'desc' : 'asc');
  return sql`(select m.id from (
      select ${listings.id} as id, ${key} as sort_key, ${listings.domainName} as name
      from ${listings} where ${conditions ?? sql`true`} offset 0
    ) m order by m.sort_key asc, m.name ${direction}, m.id ${direction} limit ${limit})`;
}
