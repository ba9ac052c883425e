import type { SyncOutcome } from './record-sync';

/**
 * How long after a failed sync a source is tried again, by its failures in a row: 1, 5 and 15
 * minutes, then every 60 minutes (the last delay repeats).
 */
export const SYNC_RETRY_DELAYS_MS: readonly number[] = [1, 5, 15, 60].map((minutes) => minutes * 60_000);

/**
 * Whether a sync that ended so is tried again early. Only `failed` (the fetch, or the database
 * while importing) is: an outage of a minute should not leave a source stale for an interval.
 * A `rejected` batch is not: the feed was read whole and was bad (too many bad rows, a corrupt
 * or cut archive), fetching it again gives the same bytes until the marketplace publishes its
 * next feed on its own schedule, and each try downloads and stages the whole feed again.
 */
export function retriesEarly(outcome: string | null | undefined): boolean {
  return outcome === 'failed';
}

/**
 * The delay from a failed sync to the next attempt: the schedule's step for that many failures
 * in a row (1 = the first failure), never longer than the source's interval.
 */
export function retryDelayMs(failuresInARow: number, everyMinutes: number, delaysMs: readonly number[] = SYNC_RETRY_DELAYS_MS): number {
  const interval = everyMinutes * 60_000;
  const step = delaysMs[Math.min(Math.max(failuresInARow, 1), delaysMs.length) - 1] ?? interval;
  return Math.min(step, interval);
}

/** How a source's last sync ended, as far as its schedule cares. */
export interface LastSync {
  outcome: SyncOutcome | undefined;
  finishedAt: Date;
  /** Rejected or failed syncs since the last success, this one included. */
  failuresInARow: number;
}

/**
 * When a source is due after its last sync: after a failure, its retry delay; else its interval
 * (which a worker spreads by up to ±10%).
 */
export function nextSyncDue(everyMinutes: number, last: LastSync, delaysMs: readonly number[] = SYNC_RETRY_DELAYS_MS): Date {
  const delay = retriesEarly(last.outcome) ? retryDelayMs(last.failuresInARow, everyMinutes, delaysMs) : everyMinutes * 60_000;
  return new Date(last.finishedAt.getTime() + delay);
}
