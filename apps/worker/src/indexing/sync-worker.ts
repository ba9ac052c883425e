import { setTimeout as sleep } from 'node:timers/promises';
import { eq, sourceSyncs, type Database } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import { purgeEnded } from './purge';
import { syncSource, type SyncSourceOptions } from './sync-source';
import { retriesEarly, retryDelayMs } from './sync-schedule';
import type { SyncMetrics } from '../ops/sync-metrics';
import type { EventHousekeeping } from '../events/event-housekeeping';

export interface SyncWorkerOptions extends SyncSourceOptions {
  sources: readonly SourceConfig[];
  retentionDays: number;
  /** How often ended listings are purged. */
  purgeEveryMs?: number;
  /** Aborting stops the worker after the sync in flight. */
  signal: AbortSignal;
  /** Counts every sync's outcome and each purge, for the admin listener's /metrics. */
  metrics?: SyncMetrics;
  /** Called once the schedule is read and the first syncs are about to run. */
  onStarted?: () => void;
  /** The change feed's time-driven events and retention, run between syncs. */
  events?: EventHousekeeping;
  /** The delays before a failed source is tried again (SYNC_RETRY_DELAYS_MS); tests shorten them. */
  retryDelaysMs?: readonly number[];
}

/** The loop wakes at least this often, to refresh the metrics' view of every source's state. */
const MAX_SLEEP_MS = 15_000;

/** Spreads each schedule by up to ±10% so that many sources do not all fire together. */
function jittered(everyMinutes: number, random: () => number): number {
  return everyMinutes * 60_000 * (0.9 + 0.2 * random());
}

/**
 * Runs every configured source on its own schedule until aborted. A source that never synced
 * (or whose last sync is older than its interval) is due at once; afterwards every interval,
 * jittered, or after a failed sync at its retry delay (sync-schedule). Ended listings are purged
 * on their own schedule.
 */
export async function runSyncWorker(options: SyncWorkerOptions): Promise<void> {
  const { database, clock, logger, signal } = options;
  const random = options.random ?? Math.random;
  const failures = new Map<string, number>();
  const due = await initialSchedule(database, options.sources, clock.now(), random, failures, options.retryDelaysMs);
  const purgeEveryMs = options.purgeEveryMs ?? 3_600_000;
  let nextPurge = clock.now().getTime();
  // Every worker reports each source as the database has it, even one another worker synced.
  const refreshMetrics = async () => {
    await options.metrics?.refresh(database).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not read the sources\' sync state for the metrics');
    });
  };
  logger.info({ sources: options.sources.map((source) => source.id) }, 'sync worker started');
  options.onStarted?.();
  while (!signal.aborted) {
    await options.events?.tick();
    const now = clock.now().getTime();
    if (now >= nextPurge) {
      try {
        const purged = await purgeEnded(database, clock.now(), options.retentionDays);
        options.metrics?.purged.inc(purged);
        logger.info({ purged, retentionDays: options.retentionDays }, 'purged ended listings');
      } catch (error) {
        logger.error({ err: error }, 'purge failed; will retry at the next purge time');
      }
      nextPurge = now + purgeEveryMs;
    }
    const next = [...due.entries()].sort((a, b) => a[1] - b[1])[0];
    if (next === undefined) break;
    const [sourceId, at] = next;
    const wait = Math.min(at, nextPurge, options.events?.nextDue ?? Infinity) - clock.now().getTime();
    if (wait > 0) {
      await refreshMetrics();
      await sleep(Math.min(wait, MAX_SLEEP_MS), undefined, { signal }).catch(() => undefined);
      continue;
    }
    const source = options.sources.find((candidate) => candidate.id === sourceId)!;
    const result = await syncSource(source, options);
    options.metrics?.record(source.id, result, clock.now());
    await refreshMetrics();
    if (result.status === 'applied' || result.status === 'unchanged') failures.set(sourceId, 0);
    // the recorded count (another worker's failures included), else ours when it could not be recorded
    else if (result.status !== 'skipped') failures.set(sourceId, (await recordedFailures(database, sourceId)) ?? (failures.get(sourceId) ?? 0) + 1);
    due.set(sourceId, dueAfter(source, result.status, failures.get(sourceId) ?? 0, clock.now().getTime(), random, options.retryDelaysMs));
  }
  logger.info('sync worker stopped');
}

/**
 * When a source is due after a sync that ended at `at`: a failed one at its retry delay, any
 * other at its interval, jittered. Retries are not jittered: a worker syncs one source at a
 * time, so its retries cannot pile up.
 */
function dueAfter(
  source: SourceConfig,
  outcome: string | null,
  failuresInARow: number,
  at: number,
  random: () => number,
  retryDelaysMs: readonly number[] | undefined,
): number {
  if (retriesEarly(outcome)) return at + retryDelayMs(failuresInARow, source.everyMinutes, retryDelaysMs);
  return at + jittered(source.everyMinutes, random);
}

/** The failures in a row recorded for a source; undefined when they cannot be read. */
async function recordedFailures(database: Database, source: string): Promise<number | undefined> {
  try {
    const [row] = await database.db.select({ failures: sourceSyncs.consecutiveFailures }).from(sourceSyncs).where(eq(sourceSyncs.source, source));
    return row?.failures;
  } catch {
    return undefined;
  }
}

async function initialSchedule(
  database: Database,
  sources: readonly SourceConfig[],
  now: Date,
  random: () => number,
  failures: Map<string, number>,
  retryDelaysMs: readonly number[] | undefined,
): Promise<Map<string, number>> {
  const rows = await database.db.select().from(sourceSyncs);
  const due = new Map<string, number>();
  for (const source of sources) {
    const row = rows.find((candidate) => candidate.source === source.id);
    failures.set(source.id, row?.consecutiveFailures ?? 0);
    const finished = row?.lastFinishedAt ?? undefined;
    due.set(source.id, finished === undefined ? now.getTime() : dueAfter(source, row?.lastOutcome ?? null, row?.consecutiveFailures ?? 0, finished.getTime(), random, retryDelaysMs));
  }
  return due;
}
