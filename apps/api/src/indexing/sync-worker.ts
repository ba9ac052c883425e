import { setTimeout as sleep } from 'node:timers/promises';
import { sourceSyncs, type Database } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import { purgeEnded } from './purge';
import { syncSource, type SyncSourceOptions } from './sync-source';
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
 * jittered. Ended listings are purged on their own schedule.
 */
export async function runSyncWorker(options: SyncWorkerOptions): Promise<void> {
  const { database, clock, logger, signal } = options;
  const random = options.random ?? Math.random;
  const due = await initialSchedule(database, options.sources, clock.now(), random);
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
    due.set(sourceId, clock.now().getTime() + jittered(source.everyMinutes, random));
  }
  logger.info('sync worker stopped');
}

async function initialSchedule(
  database: Database,
  sources: readonly SourceConfig[],
  now: Date,
  random: () => number,
): Promise<Map<string, number>> {
  const rows = await database.db.select().from(sourceSyncs);
  const last = new Map(rows.map((row) => [row.source, row.lastFinishedAt?.getTime()]));
  const due = new Map<string, number>();
  for (const source of sources) {
    const finished = last.get(source.id);
    due.set(source.id, finished === undefined ? now.getTime() : finished + jittered(source.everyMinutes, random));
  }
  return due;
}
