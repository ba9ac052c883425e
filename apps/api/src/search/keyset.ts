import { asc, desc, listings, sql, type SQL } from '@domain-index/db';
import { inline, type Bind } from '@domain-index/listings/bind';
import type { CursorPosition } from './cursor';
import type { Ordering } from './ordering';

/** Integer keys (length, index_score) compare as integers so their index still matches. */
const isFloatKey = (keySql: string) => keySql.startsWith('coalesce');

/** The sort key of a row as SQL, selected so the next cursor carries the exact value. */
export function sortKeySelection(ordering: Ordering): SQL<number | null> {
  return ordering.keySql === null ? sql<null>`null` : sql<number>`${sql.raw(ordering.keySql)}`.mapWith(Number);
}

/** ORDER BY of a page: a total, stable order that an index of the schema walks directly. */
export function orderBy(ordering: Ordering): SQL[] {
  if (ordering.keySql === null) {
    return ordering.order === 'asc'
      ? [asc(listings.domainName), asc(listings.id)]
      : [desc(listings.domainName), desc(listings.id)];
  }
  return [sql`${sql.raw(ordering.keySql)} asc`, asc(listings.domainName), asc(listings.id)];
}

/**
 * Rows strictly after the cursor in that order, as one row comparison: an index range start,
 * so page 1,000 costs what page 1 costs.
 */
export function afterPosition(ordering: Ordering, after: CursorPosition, bind: Bind = inline): SQL {
  if (ordering.keySql === null) {
    return ordering.order === 'asc'
      ? sql`(${listings.domainName}, ${listings.id}) > (${bind(after.name)}, ${bind(after.id)})`
      : sql`(${listings.domainName}, ${listings.id}) < (${bind(after.name)}, ${bind(after.id)})`;
  }
  const key = sql.raw(ordering.keySql);
  const value = isFloatKey(ordering.keySql)
    ? after.key === null
      ? sql`'Infinity'::float8`
      : sql`${bind(after.key)}::float8`
    : sql`${bind(after.key ?? 0)}::int4`;
  return sql`(${key}, ${listings.domainName}, ${listings.id}) > (${value}, ${bind(after.name)}, ${bind(after.id)}::int8)`;
}

/**
 * For auction_end_time ascending, the rows that ended sit at the start of the index: the
 * not-ended rule restated on the key (NULL is +Infinity, so no end time still qualifies) lets
 * the scan start after them instead of reading and discarding every ended row first.
 */
export function skipEnded(ordering: Ordering, now: Date, bind: Bind = inline): SQL | undefined {
  if (ordering.sort !== 'auction_end_time' || ordering.order !== 'asc' || ordering.keySql === null) return undefined;
  return sql`${sql.raw(ordering.keySql)} > ${bind(now.getTime() / 1000)}::float8`;
}
