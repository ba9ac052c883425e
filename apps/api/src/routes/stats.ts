import { COUNTS_NOTE, LISTING_STATUSES, type Contract, type StatsEnvelope } from '@domain-index/contract';
import { and, count, eq, listings, sql, type Database } from '@domain-index/db';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { RouteDeps } from '../app';
import { META } from '../http/meta';
import { orQueryFailed } from '@domain-index/api-errors/query-failed';
import { notEnded } from '@domain-index/listings/not-ended';
import { waitUntilDeadline } from '../http/request-deadline';
import { readsUntil } from '../replicas/read-nodes';

/** How long one measurement serves every caller (api-v1.md: 5 minutes). */
export const STATS_TTL_MS = 5 * 60 * 1000;

/**
 * How long one measurement may take without STATS_TIMEOUT_MS. The five counts read the whole
 * index: at 30M listings they took over 10 s from a cold cache (BENCHMARKS.md), longer than a
 * request waits (QUERY_TIMEOUT_MS). Bounded by the request, the measurement was cancelled with
 * it and started again by every retry, so a cold /stats never answered; bounded by its own
 * timeout, it goes on, and the retry of the request that ran out of time is answered from it.
 */
export const DEFAULT_STATS_TIMEOUT_MS = 60_000;

type StatsData = StatsEnvelope['data'];

/** What the counts are built on: the database, or a transaction of it. */
type Selects = Pick<Database['db'], 'select'>;

/** The five counts of the stats, unexecuted (the benchmark sends the same SQL directly). */
export function statsQueries(db: Selects, now: Date) {
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

/**
 * One count under the measurement's statement timeout instead of the pool's (QUERY_TIMEOUT_MS):
 * set for its own transaction, so the connection goes back to the pool as it was.
 */
function underTimeout<T>(database: Database, timeoutMs: number, count: (db: Selects) => PromiseLike<T>): Promise<T> {
  if (database.kind === 'pglite') return Promise.resolve(count(database.db));
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`);
    return count(tx);
  });
}

/**
 * Takes the counts concurrently; any one failing fails the whole (never reported as 0). Bounded
 * by `timeoutMs`, not by the request that started it: other requests wait for it too.
 */
async function measure(deps: RouteDeps, timeoutMs: number): Promise<StatsData> {
  const now = deps.clock.now();
  const reads = readsUntil(deps.reads, Date.now() + timeoutMs);
  // One node answers all five, so that they describe one moment of one copy of the index; a
  // long read, so that a replica's read timeout (QUERY_TIMEOUT_MS + 1 s) does not cut it short.
  const [totalRows, retrievableRows, liveRows, statusRows, sourceRows] = await reads.readLong('stats', (database) => {
    const counted = <T>(pick: (q: ReturnType<typeof statsQueries>) => PromiseLike<T>) => underTimeout(database, timeoutMs, (db) => pick(statsQueries(db, now)));
    return Promise.all([counted((q) => q.total), counted((q) => q.retrievable), counted((q) => q.live), counted((q) => q.byStatus), counted((q) => q.bySource)]);
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
 * callers arriving together before the first one finishes (they share its promise). Each
 * caller waits for it until its own deadline, then answers 503 (retry) while it goes on. A
 * failed measurement is not cached.
 */
export function statsRoute(deps: RouteDeps): AppRouteImplementation<Contract['getStats']> {
  const timeoutMs = deps.statsTimeoutMs ?? DEFAULT_STATS_TIMEOUT_MS;
  let cached: { at: number; data: Promise<StatsData>; measured?: StatsData } | undefined;
  return async ({ res }) => {
    const at = deps.clock.now().getTime();
    if (cached === undefined || at - cached.at >= STATS_TTL_MS) {
      const entry: NonNullable<typeof cached> = { at, data: measure(deps, timeoutMs) };
      cached = entry;
      entry.data.then(
        (data) => (entry.measured = data),
        () => {
          if (cached === entry) cached = undefined;
        },
      );
    }
    // Once measured, every caller of the window is answered at once: no wait to bound.
    const measuring = cached.data;
    const data = cached.measured ?? (await orQueryFailed(() => waitUntilDeadline(res, measuring)));
    return { status: 200, body: { object: 'stats', data, meta: { ...META, counts: COUNTS_NOTE } } };
  };
}
