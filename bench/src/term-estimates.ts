// The planned conditions of a term search as the API wrote them before migration 0028, for
// benchmarks that set them beside today's (planned-accuracy, term-statistics).
import type { SearchQuery } from '@domain-index/contract';
import { and, like, sql, type SQL } from '@domain-index/db';
import { searchConditions } from '@domain-index/listings/filters';

/**
 * The planned conditions as the API wrote them before migration 0028, when the query's long terms
 * are all of one trigram and it has no window of auctions (the benchmark's term shapes): each
 * term asked of the names' histogram (0026). Undefined for any other shape.
 */
export function histogramConditions(query: SearchQuery, now: Date): SQL | undefined {
  const terms = query.search ?? [];
  const long = terms.filter((term) => term.length > 2);
  if (long.length === 0 || query.ending_within !== undefined || !long.every((term) => /^[a-z0-9]{3}$/.test(term))) return undefined;
  const rest = searchConditions({ ...query, search: terms.filter((term) => term.length === 2) }, now);
  return and(...long.map((term) => like(sql`(domain_name || '')`, `%${term}%`)), rest);
}
