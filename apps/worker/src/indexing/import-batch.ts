import type { Database } from '@domain-index/db';
import { FeedFormatError, FeedSyntaxError, type SourceConfig } from '@domain-index/indexer';
import type { Clock } from '@domain-index/runtime/clock';
import { createStagingTable, dropDuplicates, stageFeed, type BatchInput, type RejectedRow } from './stage-batch';
import { refreshStatistics } from './refresh-statistics';
import { StagedNames } from './staged-names';
import { switchBatches } from './switch-batches';
import { dropWorkTable } from './work-tables';

export type { RejectedRow } from './stage-batch';

/** Share of bad rows above which a batch is rejected whole (decisions.md: 5%). */
export const DEFAULT_MAX_REJECTED_RATIO = 0.05;
/** At most this many rejected lines are kept for the summary; all are reported as they come. */
const KEPT_REJECTIONS = 100;
/**
 * Rows added or removed by a switch above which the table is vacuumed and analysed: fresh
 * planner statistics, and a visibility map that lets searches answer from indexes alone.
 */
const VACUUM_AFTER_ROWS = 10_000;

/** What one batch did. */
export interface ImportSummary {
  source: string;
  /** `applied`: the source now holds exactly the batch's valid rows; `rejected`: it kept the previous batch. */
  outcome: 'applied' | 'rejected';
  /** Why a batch was rejected. */
  reason?: string;
  rowsRead: number;
  inserted: number;
  updated: number;
  unchanged: number;
  removed: number;
  rejected: number;
  /** The first rejected rows (all of them went to `onRejected`). */
  rejectedRows: RejectedRow[];
  /**
   * Rows a profile left out on purpose (an amount in a currency without a rate): neither bad
   * nor loaded, and not counted toward the share of bad rows.
   */
  skipped: number;
  /** How many rows were skipped for each reason. */
  skippedReasons: Record<string, number>;
  /** When an applied batch was switched in: source_batches.applied_at. */
  appliedAt?: Date;
  seconds: number;
}

/** One source's batch: its configuration and where its rows come from. */
export type BatchSpec = { source: SourceConfig } & BatchInput;

interface CommonOptions {
  database: Database;
  clock: Clock;
  maxRejectedRatio?: number;
}

export type ImportOptions = CommonOptions &
  BatchSpec & {
    onRejected?: (row: RejectedRow) => void;
    /** Called after each chunk is staged, with the rows read so far. */
    onProgress?: (rowsRead: number) => void;
  };

/**
 * Imports one batch: the complete current listing set of one marketplace. The feed is streamed
 * into a staging table (never held in memory), validated row by row, and then switched in one
 * transaction: readers see the source's old rows or its new rows, never a mix and never none.
 * Too many bad rows (or no valid row at all) reject the batch and the index keeps the old set.
 */
export async function importBatch(options: ImportOptions): Promise<ImportSummary> {
  const { onRejected, onProgress, database, clock, maxRejectedRatio } = options;
  const [summary] = await importBatches({
    database,
    clock,
    ...(maxRejectedRatio !== undefined && { maxRejectedRatio }),
    batches: [options],
    ...(onRejected && { onRejected: (_source: string, row: RejectedRow) => onRejected(row) }),
    ...(onProgress && { onProgress: (_source: string, rowsRead: number) => onProgress(rowsRead) }),
  });
  return summary!;
}

/**
 * Imports several sources' batches side by side and switches the accepted ones together, in
 * one transaction. A rejected batch leaves its source's previous rows in place.
 */
export async function importBatches(
  options: CommonOptions & {
    batches: readonly BatchSpec[];
    onRejected?: (source: string, row: RejectedRow) => void;
    onProgress?: (source: string, rowsRead: number) => void;
  },
): Promise<ImportSummary[]> {
  const { database } = options;
  const started = performance.now();
  const tables: string[] = [];
  try {
    // Settle every batch before failing: the finally below must not drop a table still in use.
    const settled = await Promise.allSettled(
      options.batches.map(async (batch) => {
        const table = await createStagingTable(database);
        tables.push(table);
        return { table, summary: await stageBatch(options, batch, table) };
      }),
    );
    const staged = settled.map((result) => {
      if (result.status === 'rejected') throw result.reason;
      return result.value;
    });
    const accepted = staged.filter(({ summary }) => summary.reason === undefined);
    if (accepted.length > 0) {
      const appliedAt = options.clock.now();
      const counts = await switchBatches(
        database,
        accepted.map(({ table, summary }) => ({ sourceId: summary.source, table })),
        appliedAt,
      );
      accepted.forEach(({ summary }, i) => Object.assign(summary, counts[i], { outcome: 'applied', appliedAt }));
      const changed = counts.reduce((sum, c) => sum + c.inserted + c.removed, 0);
      if (changed > VACUUM_AFTER_ROWS) {
        // The batch is applied whatever happens here; autovacuum does the same work later.
        await refreshStatistics(database).catch(() => undefined);
      }
    }
    const seconds = Math.round((performance.now() - started) / 10) / 100;
    return staged.map(({ summary }) => ({ ...summary, seconds }));
  } finally {
    // A table that cannot be dropped now (the database went away) is left to its lapsing lease:
    // the outcome of the batch, or its own failure, is what the caller must hear.
    for (const table of tables) await dropWorkTable(database, table).catch(() => undefined);
  }
}

/** A summary with nothing read yet, rejected until the batch proves good. */
export function rejectedSummary(source: string, reason?: string): ImportSummary {
  return {
    source,
    outcome: 'rejected',
    ...(reason !== undefined && { reason }),
    rowsRead: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    removed: 0,
    rejected: 0,
    rejectedRows: [],
    skipped: 0,
    skippedReasons: {},
    seconds: 0,
  };
}

/**
 * Why a batch is rejected when reading its feed failed with `error`, or undefined when the
 * failure is not the feed's content (a database or network error, which may be retried). A
 * feed that cannot be read is the marketplace's file, not a passing fault: fetching it again
 * would give the same bytes.
 */
export function unreadableFeedReason(error: unknown): string | undefined {
  if (error instanceof FeedSyntaxError) return `the feed is unreadable: ${error.message}`;
  if (error instanceof FeedFormatError) return `the feed does not match its profile: ${error.message}`;
  return undefined;
}

/**
 * Stages one batch and decides whether it may be switched in: it may not when the feed is
 * unreadable, when over the allowed share of its rows are bad, or when no row is valid. A
 * summary without a `reason` is a batch ready to switch.
 */
async function stageBatch(
  options: CommonOptions & {
    onRejected?: (source: string, row: RejectedRow) => void;
    onProgress?: (source: string, rowsRead: number) => void;
  },
  batch: BatchSpec,
  table: string,
): Promise<ImportSummary> {
  const { database } = options;
  const maxRatio = options.maxRejectedRatio ?? DEFAULT_MAX_REJECTED_RATIO;
  const summary = rejectedSummary(batch.source.id);
  const reject = (row: RejectedRow) => {
    summary.rejected += 1;
    if (summary.rejectedRows.length < KEPT_REJECTIONS) summary.rejectedRows.push(row);
    options.onRejected?.(batch.source.id, row);
  };
  const skip = (row: RejectedRow) => {
    summary.skipped += 1;
    summary.skippedReasons[row.reason] = (summary.skippedReasons[row.reason] ?? 0) + 1;
  };
  const names = new StagedNames();
  try {
    summary.rowsRead = await stageFeed(
      database,
      table,
      batch.source,
      batch,
      reject,
      (rowsRead) => {
        summary.rowsRead = rowsRead;
        options.onProgress?.(batch.source.id, rowsRead);
      },
      undefined,
      skip,
      names,
    );
  } catch (error) {
    const reason = unreadableFeedReason(error);
    if (reason !== undefined) return { ...summary, reason };
    throw error;
  }
  // no two staged names share a hash: no name is listed twice, and there is nothing to drop
  const duplicates = names.mayRepeat ? await dropDuplicates(database, table) : { count: 0, described: [] };
  for (const duplicate of duplicates.described) reject(duplicate);
  summary.rejected += duplicates.count - duplicates.described.length;

  // skipped rows are neither good nor bad: the share is of the rows the batch tried to load
  const reason = batchRejection(summary.rowsRead - summary.skipped, summary.rejected, maxRatio);
  return reason === undefined ? summary : { ...summary, reason };
}

/**
 * Why a batch of `considered` rows (skipped rows left out), `rejected` of them bad, may not be
 * switched in: over `maxRatio` of them bad, or none good. Undefined when it may.
 */
export function batchRejection(considered: number, rejected: number, maxRatio = DEFAULT_MAX_REJECTED_RATIO): string | undefined {
  if (considered > 0 && rejected / considered > maxRatio) {
    const percent = ((rejected / considered) * 100).toFixed(1);
    return `${rejected} of ${considered} rows (${percent}%) are bad, over the ${maxRatio * 100}% limit; the previous batch is kept`;
  }
  if (considered - rejected <= 0) return 'the feed has no valid row; the previous batch is kept';
  return undefined;
}
