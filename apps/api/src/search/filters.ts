import type { SearchQuery } from '@domain-index/contract';
import { and, eq, gte, isNotNull, like, listings, lte, sql, type SQL } from '@domain-index/db';
import { notEnded } from '../listings/not-ended';

/**
 * The WHERE clause of a search: the result-set rules of api-v1.md and every filter with the
 * null rules of decisions.md. A lower bound of 0 on a nullable metric is not applied (it
 * would only drop unknown rows); any other bound on a nullable metric excludes unknown rows.
 */
export function searchConditions(query: SearchQuery, now: Date): SQL {
  const conditions: (SQL | undefined)[] = [notEnded(now)];
  // No status: running auctions only; `all`: every status; both still require not ended.
  if (query.status === undefined) conditions.push(eq(listings.status, 'auction'));
  else if (query.status !== 'all') conditions.push(eq(listings.status, query.status));

  // Terms are cleaned to a-z 0-9 - . by the contract, so they hold no LIKE wildcard. Terms of 3+
  // characters use the trigram index; 2-character ones (no trigram) the bigram index.
  for (const term of query.search ?? []) {
    conditions.push(
      term.length === 2
        ? sql`domain_bigrams(${listings.domainName}) @> array[${term}]::text[]`
        : like(listings.domainName, `%${term}%`),
    );
  }
  if (query.tld !== undefined) conditions.push(eq(listings.tld, query.tld));
  if (query.source !== undefined) conditions.push(eq(listings.source, query.source));

  conditions.push(lowerBound(listings.currentBid, query.min_price));
  conditions.push(upperBound(listings.currentBid, query.max_price));
  if (query.min_length !== undefined) conditions.push(gte(listings.length, query.min_length));
  if (query.max_length !== undefined) conditions.push(lte(listings.length, query.max_length));
  if (query.no_hyphens === true) conditions.push(eq(listings.hasHyphens, false));
  if (query.no_numbers === true) conditions.push(eq(listings.hasNumbers, false));
  if (query.min_score !== undefined && query.min_score > 0) conditions.push(gte(listings.indexScore, query.min_score));
  if (query.max_score !== undefined) conditions.push(lte(listings.indexScore, query.max_score));
  conditions.push(lowerBound(listings.seoaDr, query.min_dr));
  conditions.push(upperBound(listings.seoaDr, query.max_dr));
  conditions.push(lowerBound(listings.seobTf, query.min_tf));
  conditions.push(upperBound(listings.seobTf, query.max_tf));
  conditions.push(lowerBound(listings.maxBacklinks, query.min_backlinks));
  conditions.push(lowerBound(listings.domainAge, query.min_age));
  conditions.push(lowerBound(listings.keywordSearchVolume, query.min_search_volume));
  if (query.min_word_count !== undefined && query.min_word_count > 0) {
    conditions.push(gte(listings.wordCount, query.min_word_count));
  }
  conditions.push(lowerBound(listings.extensionsTaken, query.min_extensions));
  if (query.ending_within !== undefined) {
    // Only auctions ending within the window: a row without an end time never qualifies.
    const until = new Date(now.getTime() + query.ending_within * 3_600_000);
    conditions.push(isNotNull(listings.auctionEndTime), lte(listings.auctionEndTime, until));
  }
  return and(...conditions) ?? sql`true`;
}

type Column = Parameters<typeof gte>[0];

/** `column >= value` unless the bound is absent or 0 (0 would only exclude unknown values). */
function lowerBound(column: Column, value: number | undefined): SQL | undefined {
  return value === undefined || value === 0 ? undefined : gte(column, value);
}

/** `column <= value`; excludes unknown values (NULL never compares true). */
function upperBound(column: Column, value: number | undefined): SQL | undefined {
  return value === undefined ? undefined : lte(column, value);
}
