import type { Contract } from '@domain-index/contract';
import type { SQL } from '@domain-index/db';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { RouteDeps } from '../app';
import { ApiError } from '@domain-index/api-errors/api-error';
import { META } from '../http/meta';
import { orQueryFailed } from '@domain-index/api-errors/query-failed';
import { CountCache, countMatches } from '../search/count';
import { filtersFingerprint, fingerprint, type CursorCodec, type CursorPosition } from '../search/cursor';
import { plannedConditions, searchConditions } from '@domain-index/listings/filters';
import { pageRows } from '../search/page-query';
import { PageStatements } from '../search/page-statements';
import { hasSearchTerms, pageStrategy } from '../search/page-strategy';
import { resolveOrdering } from '../search/ordering';
import { setRowsReturned } from '../usage/count-usage';
import { readsOf } from '../http/request-deadline';
import type { ReadNodes } from '../replicas/read-nodes';
import { requestNow } from '../http/request-now';

/**
 * GET /api/v1/domains: filters, a total and stable order, keyset paging with signed cursors,
 * and `total` counted alongside the page.
 */
export function searchRoute(deps: RouteDeps, cursors: CursorCodec): AppRouteImplementation<Contract['searchDomains']> {
  const counts = new CountCache();
  const statements = new PageStatements();
  const count = async (reads: ReadNodes, key: string, where: () => { exact: SQL; planned: SQL | undefined }, now: number) => {
    const cached = counts.get(key, now);
    if (cached !== undefined) return cached;
    const conditions = where();
    const total = await countMatches(reads, conditions.exact, deps.countBudgetMs, conditions.planned);
    counts.set(key, total, now);
    return total;
  };
  return async ({ query, res }) => {
    const now = requestNow(res, deps.clock);
    const reads = readsOf(res, deps);
    const ordering = resolveOrdering(query);
    const print = fingerprint(query, ordering);
    let after: CursorPosition | undefined;
    let pageIndex = 0;
    if (query.cursor !== undefined) {
      const decoded = cursors.decode(query.cursor);
      if (decoded === null) {
        throw new ApiError('invalid_parameter', 'cursor is malformed or was not issued by this API; pass next_cursor back unchanged', 'cursor');
      }
      // A cursor made for other filters or another order is stale: the first page of the new set.
      if (decoded.fingerprint === print) {
        after = decoded.after;
        pageIndex = decoded.page;
      }
    }
    // The count's conditions, built only when the count is not cached.
    const where = () => ({ exact: searchConditions(query, now), planned: plannedConditions(query, now) });
    const { limit } = query;
    const countKey = filtersFingerprint(query);
    const [rows, total] = await orQueryFailed(async () => {
      if (!hasSearchTerms(query)) {
        return Promise.all([
          reads.read('search_page', (database) => pageRows(database, statements.statement(database, query, ordering, after, now, pageStrategy(query, ordering)))),
          count(reads, countKey, where, now.getTime()),
        ]);
      }
      // With search terms the count decides how the page is found, so it comes first (it is
      // cached for 30 s, and cheap exactly when it decides for collecting).
      const counted = await count(reads, countKey, where, now.getTime());
      const strategy = pageStrategy(query, ordering, counted);
      return [await reads.read('search_page', (database) => pageRows(database, statements.statement(database, query, ordering, after, now, strategy))), counted] as const;
    });
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    setRowsReturned(res, page.length);
    deps.metrics.searchTotals.inc({ accuracy: total.accuracy });
    const last = page.at(-1);
    const nextCursor =
      hasMore && last !== undefined
        ? cursors.encode({
            fingerprint: print,
            // +Infinity stands for NULL (sorted last); JSON cannot carry it, so it travels as null.
            after: { key: last.sortKey !== null && Number.isFinite(last.sortKey) ? last.sortKey : null, name: last.domain.domain_name, id: last.id },
            page: pageIndex + 1,
          })
        : null;
    return {
      status: 200,
      body: {
        object: 'list',
        data: page.map((row) => row.domain),
        pagination: { page_size: limit, page_index: pageIndex, next_cursor: nextCursor, has_more: hasMore },
        total,
        meta: META,
      },
    };
  };
}
