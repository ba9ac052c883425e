import { and, getTableColumns, listings, type Database, type SQL } from '@domain-index/db';
import { lastCheckedAt } from '../listings/last-checked-at';
import type { CursorPosition } from './cursor';
import { afterPosition, orderBy, skipEnded, sortKeySelection } from './keyset';
import type { Ordering } from './ordering';

/**
 * The statement of one search page: the rows after the cursor in the search's order, one more
 * than the page so that `has_more` is known. Returned unexecuted so the benchmark can send the
 * very same SQL straight to the database.
 */
export function pageQuery(
  database: Database,
  where: SQL,
  ordering: Ordering,
  after: CursorPosition | undefined,
  limit: number,
  now: Date,
) {
  return database.db
    .select({ ...getTableColumns(listings), lastCheckedAt, sortKey: sortKeySelection(ordering) })
    .from(listings)
    .where(and(where, skipEnded(ordering, now), after === undefined ? undefined : afterPosition(ordering, after)))
    .orderBy(...orderBy(ordering))
    .limit(limit + 1);
}
