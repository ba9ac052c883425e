import { sourceBatches, sourceSyncs, type Database, type SourceSyncRow } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import { redact, secretsOf } from '../feeds/request';
import type { SyncOutcome } from '../indexing/record-sync';
import { nextSyncDue } from '../indexing/sync-schedule';

/**
 * How a source stands, as `domain-index sources`, GET /health and the sync metrics all report
 * it: read from the database, so every process (and every one of several sync workers) says
 * the same thing whichever of them ran the sync.
 */
export interface SourceSyncState {
  source: string;
  /** How its last sync ended; undefined when it never synced. */
  lastOutcome: SyncOutcome | undefined;
  lastFinishedAt: Date | undefined;
  /** Its last applied batch, or a later sync that found the feed unchanged. */
  lastSuccess: Date | undefined;
  /** Rejected or failed syncs since the last success (0 once one succeeds). */
  consecutiveFailures: number;
  /**
   * When a worker syncs it next: its last sync plus its interval (the worker spreads that by up
   * to ±10%), or after a failed sync plus its retry delay (1, 5, 15, then every 60 minutes by
   * the failures in a row, at most the interval); undefined for a source that never synced,
   * which a worker syncs at once.
   */
  nextDue: Date | undefined;
  /** Why its last sync was rejected or failed, fit to show anyone; undefined after a success. */
  lastError: string | undefined;
}

const OUTCOMES: readonly SyncOutcome[] = ['applied', 'unchanged', 'rejected', 'failed'];

/** Every outcome a sync can record, in the order the metrics and the docs list them. */
export const SYNC_OUTCOMES = OUTCOMES;

/** Longest error text shown: a reason is one line, not a log. */
const MAX_ERROR_LENGTH = 300;

/** Drizzle's message for a failed statement: the SQL text, then its parameters. */
const FAILED_QUERY = /^failed query:/i;

/** Each configured source's sync state, from source_syncs and source_batches. */
export async function readSyncStates(
  database: Database,
  sources: readonly SourceConfig[],
): Promise<SourceSyncState[]> {
  const [syncs, batches] = await Promise.all([
    database.db.select().from(sourceSyncs),
    database.db.select().from(sourceBatches),
  ]);
  return sources.map((source) =>
    syncStateOf(
      source,
      syncs.find((row) => row.source === source.id),
      batches.find((row) => row.source === source.id)?.appliedAt,
    ),
  );
}

/** One source's state from its source_syncs row and the applied_at of its batch. */
export function syncStateOf(
  source: SourceConfig,
  sync: SourceSyncRow | undefined,
  appliedAt: Date | undefined,
): SourceSyncState {
  const lastOutcome = OUTCOMES.find((outcome) => outcome === sync?.lastOutcome);
  const lastFinishedAt = sync?.lastFinishedAt ?? undefined;
  const failedNow = lastOutcome === 'rejected' || lastOutcome === 'failed';
  return {
    source: source.id,
    lastOutcome,
    lastFinishedAt,
    lastSuccess: lastSuccess(sync, appliedAt),
    consecutiveFailures: sync?.consecutiveFailures ?? 0,
    nextDue:
      lastFinishedAt === undefined
        ? undefined
        : nextSyncDue(source.everyMinutes, {
            outcome: lastOutcome,
            finishedAt: lastFinishedAt,
            failuresInARow: sync?.consecutiveFailures ?? 0,
          }),
    lastError: failedNow ? reportableReason(sync?.lastSummary, secretsOf(source)) : undefined,
  };
}

/**
 * When the source last synced successfully: its last applied batch (written with the rows), or
 * a later sync that found the feed unchanged.
 */
export function lastSuccess(
  sync: { lastOutcome: string | null; lastFinishedAt: Date | null } | undefined,
  appliedAt: Date | undefined,
): Date | undefined {
  const checkedUnchanged =
    sync?.lastOutcome === 'unchanged' ? (sync.lastFinishedAt ?? undefined) : undefined;
  if (appliedAt === undefined) return checkedUnchanged;
  return checkedUnchanged !== undefined && checkedUnchanged > appliedAt
    ? checkedUnchanged
    : appliedAt;
}

/**
 * The recorded reason of a rejected or failed sync as it may be shown: its first line only,
 * never a statement's SQL or parameters (a database error recorded with Drizzle's message),
 * never a value of the source's secrets, at most 300 characters.
 */
export function reportableReason(summary: unknown, secrets: readonly string[] = []): string {
  const reason = typeof summary === 'object' && summary !== null && 'reason' in summary ? summary.reason : undefined;
  if (typeof reason !== 'string' || reason.trim() === '') return 'no reason was recorded';
  const line = redact(reason.trim().split('\n')[0]!.trim(), secrets);
  if (FAILED_QUERY.test(line)) return 'a database statement failed (the sync log has the details)';
  return line.length > MAX_ERROR_LENGTH ? `${line.slice(0, MAX_ERROR_LENGTH - 1)}…` : line;
}
