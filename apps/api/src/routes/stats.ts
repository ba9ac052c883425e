import { COUNTS_NOTE, LISTING_STATUSES, type Contract, type StatsEnvelope } from '@domain-index/contract';
import { and, count, eq, listings, type Database } from '@domain-index/db';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { RouteDeps } from '../app';
import { META } from '../http/meta';
import { orQueryFailed } from '@domain-index/api-errors/query-failed';
import { notEnded } from '@domain-index/listings/not-ended';
import { readsOf } from '../http/request-deadline';
import type { ReadNodes } from '../replicas/read-nodes';

/** How long one measurement serves every caller (api-v1.md: 5 minutes). */
export const STATS_TTL_MS = 5 * 60 * 1000;

type StatsData = StatsEnvelope['data'];

/** The five counts of the stats, unexecuted (the benchmark sends the same SQL directly). */
export function statsQueries(database: Database, now: Date) {
  const { db } = database;
  return {
    total: db.select({ n: count() }).from(listings),
    retrievable: db.select({ n: count() }).from(listings).where(notEnded(now)),
    live: db
      .select({ n: count() })
      .from(listings)
      .where(and(eq(listings.status, 'auction'), notEnded(now))),
    byStatus: db.select({ key: listings.status, n: count() }).from(listings).groupBy(listings.status),
    bySource: db.select({ key: listings.source, n: count() }).from(listings).groupBy(listings.source),
  };
}

/** Takes the counts concurrently; any one failing fails the whole (never reported as 0). */
async function measure(deps: RouteDeps, reads: ReadNodes): Promise<StatsData> {
  const now = deps.clock.now();
  // One node answers all five, so that they describe one moment of one copy of the index.
  const [totalRows, retrievableRows, liveRows, statusRows, sourceRows] = await reads.read('stats', (database) => {
    const q = statsQueries(database, now);
    return Promise.all([q.total, q.retrievable, q.live, q.byStatus, q.bySource]);
  });
  const statusCounts = Object.fromEntries(LISTING_STATUSES.map((status) => [status, 0])) as StatsData['by_status'];
  for (const row of statusRows) statusCounts[row.key] = row.n;
  // Keys are exactly the configured marketplaces: a configured one without rows counts 0.
  const sourceCounts: Record<string, number> = Object.fromEntries(deps.sources.map((source) => [source.id, 0]));
  for (const row of sourceRows) if (row.key in sourceCounts) sourceCounts[row.key] = row.n;
  return {
    as_of: now.toISOString(),
    total: totalRows[0]?.n ?? 0,
    live: liveRows[0]?.n ?? 0,
    retrievable: retrievableRows[0]?.n ?? 0,
    by_status: statusCounts,
    by_source: sourceCounts,
  };
}

/**
 * GET /api/v1/stats. One measurement per 5-minute window serves every caller, including
 * callers arriving together before the first one finishes (they share its promise). A failed
 * measurement is not cached.
 */
export function statsRoute(deps: RouteDeps): AppRouteImplementation<Contract['getStats']> {
  let cached: { at: number; data: Promise<StatsData> } | undefined;
  return async ({ res }) => {
    const at = deps.clock.now().getTime();
    if (cached === undefined || at - cached.at >= STATS_TTL_MS) {
      const entry = { at, data: orQueryFailed(() => measure(deps, readsOf(res, deps))) };
      cached = entry;
      entry.data.catch(() => {
        if (cached === entry) cached = undefined;
      });
    }
    const data = await cached.data;
    return { status: 200, body: { object: 'stats', data, meta: { ...META, counts: COUNTS_NOTE } } };
  };
}
