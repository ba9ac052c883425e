import type { SearchQuery } from '@domain-index/contract';
import { and, eq, isNotNull, like, listings, lte, sql, type AnyPgColumn, type SQL } from '@domain-index/db';
import { notEnded } from '../listings/not-ended';
import { inline, type Bind } from './bind';
import { bound, type BoundSide } from './bounds';

/** The numeric search parameters, each with the column it bounds and which end (bounds.ts). */
const BOUNDS = {
  min_price: [listings.currentBid, 'lower'],
  max_price: [listings.currentBid, 'upper'],
  min_length: [listings.length, 'lower'],
  max_length: [listings.length, 'upper'],
  min_score: [listings.indexScore, 'lower'],
  max_score: [listings.indexScore, 'upper'],
  min_dr: [listings.seoaDr, 'lower'],
  max_dr: [listings.seoaDr, 'upper'],
  min_tf: [listings.seobTf, 'lower'],
  max_tf: [listings.seobTf, 'upper'],
  min_backlinks: [listings.maxBacklinks, 'lower'],
  min_age: [listings.domainAge, 'lower'],
  min_search_volume: [listings.keywordSearchVolume, 'lower'],
  min_word_count: [listings.wordCount, 'lower'],
  min_extensions: [listings.extensionsTaken, 'lower'],
} as const satisfies Partial<Record<keyof SearchQuery, readonly [AnyPgColumn, BoundSide]>>;
type BoundParam = keyof typeof BOUNDS;
export const BOUND_ENTRIES = Object.entries(BOUNDS) as [BoundParam, (typeof BOUNDS)[BoundParam]][];

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

  // Terms are cleaned to a-z 0-9 - . by the contract, so they hold no LIKE wildcard. Terms of 3+
  // characters use the trigram index; 2-character ones (no trigram) the bigram index.
  for (const term of query.search ?? []) {
    conditions.push(
      term.length === 2
        ? sql`domain_bigrams(${listings.domainName}) @> array[${bind(term)}]::text[]`
        : like(listings.domainName, bind(`%${term}%`)),
    );
  }
  if (query.tld !== undefined) conditions.push(eq(listings.tld, bind(query.tld)));
  if (query.source !== undefined) conditions.push(eq(listings.source, bind(query.source)));

  if (query.no_hyphens === true) conditions.push(eq(listings.hasHyphens, bind(false)));
  if (query.no_numbers === true) conditions.push(eq(listings.hasNumbers, bind(false)));
  for (const [param, [column, side]] of BOUND_ENTRIES) conditions.push(bound(column, side, query[param], bind));
  if (query.ending_within !== undefined) {
    // Only auctions ending within the window: a row without an end time never qualifies.
    const until = new Date(now.getTime() + query.ending_within * 3_600_000);
    conditions.push(isNotNull(listings.auctionEndTime), lte(listings.auctionEndTime, bind(until)));
  }
  return and(...conditions) ?? sql`true`;
}

