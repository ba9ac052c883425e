import { sourceSyncs, sql, type Database } from '@domain-index/db';
import type { ImportSummary } from './import-batch';

/** How a sync of one source ended. */
export type SyncOutcome = 'applied' | 'rejected' | 'failed';

/** Records a source's last sync, for the worker's schedule and for `domain-index sources`. */
export async function recordSync(
  database: Database,
  source: string,
  startedAt: Date,
  finishedAt: Date,
  outcome: SyncOutcome,
  detail: ImportSummary | { reason: string },
): Promise<void> {
  const failed = outcome === 'applied' ? 0 : 1;
  const summary = 'rejectedRows' in detail ? { ...detail, rejectedRows: detail.rejectedRows.slice(0, 10) } : detail;
  await database.db
    .insert(sourceSyncs)
    .values({
      source,
      lastStartedAt: startedAt,
      lastFinishedAt: finishedAt,
      lastOutcome: outcome,
      lastSummary: summary,
      consecutiveFailures: failed,
    })
    .onConflictDoUpdate({
      target: sourceSyncs.source,
      set: {
        lastStartedAt: startedAt,
        lastFinishedAt: finishedAt,
        lastOutcome: outcome,
        lastSummary: summary,
        consecutiveFailures: failed === 0 ? 0 : sql`${sourceSyncs.consecutiveFailures} + 1`,
      },
    });
}
