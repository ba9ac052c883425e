import { searchQuerySchema } from '@domain-index/contract';
import type { Database } from '@domain-index/db';
import { countMatches } from '@domain-index/api/search/count';
import { ApiMetrics } from '@domain-index/api/ops/api-metrics';
import { PrimaryReads } from '@domain-index/api/replicas/read-nodes';
import { Registry } from 'prom-client';
import type { CursorPosition } from '@domain-index/api/search/cursor';
import { plannedConditions, searchConditions } from '@domain-index/listings/filters';
import { resolveOrdering } from '@domain-index/api/search/ordering';
import { pageConditions, pageQuery } from '@domain-index/api/search/page-query';
import { pageStrategy, type PageStrategy } from '@domain-index/api/search/page-strategy';

/** The API's default count budget (COUNT_BUDGET_MS). */
const COUNT_BUDGET_MS = 100;

/**
 * The page statement the API sends for a search query, found the way the API finds it
 * (page-strategy.ts), with the strategy it picked: the floor and EXPLAIN send exactly this.
 */
export async function pageStatement(
  database: Database,
  query: Record<string, string>,
  after?: CursorPosition,
): Promise<{ sql: string; params: unknown[]; strategy: PageStrategy }> {
  const q = searchQuerySchema.parse(query);
  const ordering = resolveOrdering(q);
  const now = new Date();
  const where = searchConditions(q, now);
  const reads = new PrimaryReads(database, new ApiMetrics(new Registry()));
  const strategy = pageStrategy(q, ordering, await countMatches(reads, where, COUNT_BUDGET_MS, plannedConditions(q, now)));
  return { ...pageQuery(database, pageConditions(q, now), ordering, after, q.limit, now, strategy).toSQL(), strategy };
}
