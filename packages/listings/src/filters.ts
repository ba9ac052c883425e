import type { SearchQuery } from '@domain-index/contract';
import { and, eq, like, listingEvents, listings, sql, type AnyPgColumn, type SQL } from '@domain-index/db';
import { endOrInfinity, notEnded } from './not-ended';
import { inline, type Bind } from './bind';
import { bound, type BoundSide } from './bounds';

/**
 * The columns the filters read, by their names in `listings`: the change feed's table
 * (`listing_events`) holds a copy of each listing under the same names, so one set of filters
 * serves both.
 */
type FilterColumn =
  | 'domainName' | 'tld' | 'status' | 'source' | 'hasHyphens' | 'hasNumbers' | 'currentBid' | 'length' | 'indexScore'
  | 'seoaDr' | 'seobTf' | 'maxBacklinks' | 'domainAge' | 'keywordSearchVolume' | 'wordCount' | 'extensionsTaken' | 'auctionEndTime';
/** A table the filters apply to: listings, or the change feed's copies of listings. */
export type FilteredTable = Record<FilterColumn, AnyPgColumn>;

/** The numeric search parameters, each with the column it bounds and which end (bounds.ts). */
const BOUNDS = {
  min_price: ['currentBid', 'lower'],
  max_price: ['currentBid', 'upper'],
  min_length: ['length', 'lower'],
  max_length: ['length', 'upper'],
  min_score: ['indexScore', 'lower'],
  max_score: ['indexScore', 'upper'],
  min_dr: ['seoaDr', 'lower'],
  max_dr: ['seoaDr', 'upper'],
  min_tf: ['seobTf', 'lower'],
  max_tf: ['seobTf', 'upper'],
  min_backlinks: ['maxBacklinks', 'lower'],
  min_age: ['domainAge', 'lower'],
  min_search_volume: ['keywordSearchVolume', 'lower'],
  min_word_count: ['wordCount', 'lower'],
  min_extensions: ['extensionsTaken', 'lower'],
} as const satisfies Partial<Record<keyof SearchQuery, readonly [FilterColumn, BoundSide]>>;
type BoundParam = keyof typeof BOUNDS;
export const BOUND_ENTRIES = Object.entries(BOUNDS) as [BoundParam, (typeof BOUNDS)[BoundParam]][];

/** The filters a search and the change feed share: every parameter but status, paging and order. */
export type ListingFilters = Omit<SearchQuery, 'status' | 'sort' | 'order' | 'limit' | 'cursor'>;

/**
 * The conditions of the listing filters (decisions.md's null rules; numeric bounds typed for
 * their column by bounds.ts) over `table`. `ending_within` counts its hours from `endingFrom`:
 * now for a search, the event's own time for the change feed.
 */
export function listingFilters(table: FilteredTable, query: ListingFilters, endingFrom: SQL | Date, bind: Bind = inline): (SQL | undefined)[] {
  const conditions: (SQL | undefined)[] = [];
  // Terms are cleaned to a-z 0-9 - . by the contract, so they hold no LIKE wildcard. Terms of 3+
  // characters use the trigram index; 2-character ones (no trigram) the bigram index.
  for (const term of query.search ?? []) {
    conditions.push(
      term.length === 2 ? sql`domain_bigrams(${table.domainName}) @> array[${bind(term)}]::text[]` : like(table.domainName, bind(`%${term}%`)),
    );
  }
  if (query.tld !== undefined) conditions.push(eq(table.tld, bind(query.tld)));
  if (query.source !== undefined) conditions.push(eq(table.source, bind(query.source)));
  if (query.no_hyphens === true) conditions.push(eq(table.hasHyphens, bind(false)));
  if (query.no_numbers === true) conditions.push(eq(table.hasNumbers, bind(false)));
  for (const [param, [column, side]] of BOUND_ENTRIES) conditions.push(bound(table[column], side, query[param], bind));
  if (query.ending_within !== undefined) {
    // Rows ending within the window: a row without an end time never qualifies (its end is
    // infinity). Written on the not-ended rule's expression, not as `auction_end_time is not
    // null and auction_end_time <= until`: the planner then reads the window as one range of
    // that expression's histogram, where it multiplied the rule by the share of rows with an
    // end time and by every end time before the window, ended or not (bench/notes/100: a 6-hour
    // window planned +54 % over at 5M, +14 % now; 1 hour +270 %, now +51 %).
    const hours = query.ending_within;
    const until = endingFrom instanceof Date ? bind(new Date(endingFrom.getTime() + hours * 3_600_000)) : sql`${endingFrom} + make_interval(hours => ${bind(hours)})`;
    // a time encoded by the column, as a comparison with the column itself would encode it
    const windowEnd = until instanceof Date ? sql.param(until, table.auctionEndTime) : until;
    conditions.push(sql`${endOrInfinity(table.auctionEndTime)} <= ${windowEnd}`);
  }
  return conditions;
}

/** The filters over the change feed's copies of listings, counting `ending_within` from each event's time. */
export function eventFilters(query: ListingFilters & { status?: SearchQuery['status'] }, bind: Bind = inline): SQL {
  const conditions = listingFilters(listingEvents, query, sql`${listingEvents.occurredAt}`, bind);
  // no status: every status (a change feed reports every change); `ending_within` alone means auctions, as in a search
  const status = query.status ?? (query.ending_within !== undefined ? 'auction' : 'all');
  if (status !== 'all') conditions.push(eq(listingEvents.status, bind(status)));
  return and(...conditions) ?? sql`true`;
}

/**
 * The end time of an auction, and null for every other status: the expression migration 0025
 * gives statistics of its own, written here exactly as there so that the planner finds them.
 */
const auctionEnd = sql`(case when ${listings.status} = 'auction' then ${listings.auctionEndTime} end)`;

/**
 * The name, as the expression migration 0026 gives a histogram of 10,000 names: the same text,
 * written exactly as there so that the planner finds it.
 */
const nameForEstimates = sql`(${listings.domainName} || '')`;

/**
 * The name's trigrams as pg_trgm cuts them, as the expression migration 0028 gives statistics
 * of its own (the shares of the most common trigrams of a million names): written exactly as
 * there so that the planner finds them.
 */
const nameTrigrams = sql`array_to_tsvector(show_trgm(${listings.domainName}))`;

/**
 * A term that is exactly one of pg_trgm's trigrams: three letters or digits. pg_trgm cuts a
 * name into words at every other character (`-`, `.`), so `a-b` is none of its trigrams, and a
 * longer term is several, whose shares the planner would multiply as if independent (`sho` and
 * `hop` planned `shop` 29 times too low, bench/notes/106).
 */
const ONE_TRIGRAM = /^[a-z0-9]{3}$/;

/**
 * The condition that asks the planner a long term's share of names. A trigram's share is read
 * off the list of trigrams (0028), which holds terms down to about 1 name in 40,000; any other
 * term's off the histogram of 10,000 names (0026), below whose 1 name in 10,000 PostgreSQL
 * plans no pattern.
 */
function termForEstimates(term: string): SQL {
  return ONE_TRIGRAM.test(term) ? sql`${nameTrigrams} @@ ${term}::tsquery` : like(nameForEstimates, `%${term}%`);
}

/**
 * The rows of searchConditions, written for the planner's estimate (the `planned` total), never
 * for a page. Undefined when a search's own conditions serve the planner as they are.
 * - A window of auctions (`ending_within` without a status, or with `status=auction`) is one
 *   range of the auctions' own end times: the planner estimated the window over every status
 *   and multiplied it by the share of auctions, which was 34 % low at 30M listings when the hours
 *   ahead held few dropping names and nearer when they held many (bench/notes/101). The page
 *   keeps searchConditions: its indexes are chosen by the status (the live set's partial index).
 * - A term of 3 or more characters is asked of the names' finer histogram (migration 0026),
 *   whose share of names holding it moves three times less from one refresh to the next than
 *   the column's, and a term of three letters or digits of the names' trigrams (0028), which
 *   see terms too rare for any histogram of names. The column's own coarser statistics keep
 *   planning every page, where reading 10,000 names would cost each statement a millisecond.
 *   Two-character terms are matched on bigrams, which have statistics of their own.
 */
export function plannedConditions(query: SearchQuery, now: Date): SQL | undefined {
  const hours = query.ending_within;
  const auctionWindow = hours !== undefined && (query.status === undefined || query.status === 'auction');
  const terms = query.search ?? [];
  const longTerms = terms.filter((term) => term.length > 2);
  if (!auctionWindow && longTerms.length === 0) return undefined;
  // every other condition as a search writes it
  const rest = { ...query, search: terms.filter((term) => term.length === 2) };
  const conditions: (SQL | undefined)[] = longTerms.map(termForEstimates);
  if (auctionWindow) {
    // an auction without an end time never ends (the not-ended rule's infinity): it is in no window, as there
    const until = new Date(now.getTime() + hours * 3_600_000);
    conditions.push(
      sql`${auctionEnd} > ${sql.param(now, listings.auctionEndTime)}`,
      sql`${auctionEnd} <= ${sql.param(until, listings.auctionEndTime)}`,
      ...listingFilters(listings, { ...rest, ending_within: undefined }, now),
    );
  } else {
    conditions.push(searchConditions(rest, now));
  }
  return and(...conditions) ?? sql`true`;
}

/**
 * The WHERE clause of a search: the result-set rules of api-v1.md and every filter with the
 * null rules of decisions.md. A lower bound of 0 on a nullable metric is not applied (it
 * would only drop unknown rows); any other bound on a nullable metric excludes unknown rows.
 * Numeric bounds are typed for their column by bounds.ts.
 */
export function searchConditions(query: SearchQuery, now: Date, bind: Bind = inline): SQL {
  const conditions: (SQL | undefined)[] = [notEnded(bind(now))];
  // No status: running auctions only; `all`: every status; both still require not ended.
  if (query.status === undefined) conditions.push(eq(listings.status, bind('auction')));
  else if (query.status !== 'all') conditions.push(eq(listings.status, bind(query.status)));
  conditions.push(...listingFilters(listings, query, now, bind));
  return and(...conditions) ?? sql`true`;
}
