import { sourceSyncs, sql, type Database } from '@domain-index/db';
import type { FeedValidators } from '../feeds/validators';
import type { ImportSummary } from './import-batch';

/** How a sync of one source ended. `unchanged`: the feed is the applied batch's, nothing was switched. */
export type SyncOutcome = 'applied' | 'rejected' | 'failed' | 'unchanged';

/**
 * Records a source's last sync, for the worker's schedule and for `domain-index sources`.
 * `validators` describe the feed of a batch just applied (undefined leaves those recorded).
 */
export async function recordSync(
  database: Database,
  source: string,
  startedAt: Date,
  finishedAt: Date,
  outcome: SyncOutcome,
  detail: ImportSummary | { reason: string },
  validators?: FeedValidators,
): Promise<void> {
  const failed = outcome === 'applied' || outcome === 'unchanged' ? 0 : 1;
  const summary = 'rejectedRows' in detail ? { ...detail, rejectedRows: detail.rejectedRows.slice(0, 10) } : detail;
  const feedValidators = validators === undefined ? {} : { feedValidators: validators };
  await database.db
    .insert(sourceSyncs)
    .values({
      source,
      lastStartedAt: startedAt,
      lastFinishedAt: finishedAt,
      lastOutcome: outcome,
      lastSummary: summary,
      consecutiveFailures: failed,
      ...feedValidators,
    })
    .onConflictDoUpdate({
      target: sourceSyncs.source,
      set: {
        lastStartedAt: startedAt,
        lastFinishedAt: finishedAt,
        lastOutcome: outcome,
        lastSummary: summary,
        consecutiveFailures: failed === 0 ? 0 : sql`${sourceSyncs.consecutiveFailures} + 1`,
        ...feedValidators,
      },
    });
}
