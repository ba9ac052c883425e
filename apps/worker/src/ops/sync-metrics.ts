import type { Database } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SyncResult } from '../indexing/sync-source';
import { readSyncStates, SYNC_OUTCOMES } from './sync-state';

/**
 * The sync worker's Prometheus metrics, per source. The counters count what this worker did;
 * the state gauges (last success, last outcome, consecutive failures, next due) are read from
 * the database at start and again after every sync and on every turn of the worker's loop
 * (refresh), so that every one of several workers reports the source as it is, including the
 * one that skipped a source another worker held. The interval gauge lets an alert compare
 * (deploy/prometheus/alert-rules.yml).
 */
export class SyncMetrics {
  readonly rowsStaged: Counter<'source'>;
  readonly badRows: Counter<'source'>;
  readonly batches: Counter<'source' | 'outcome'>;
  readonly feedsUnchanged: Counter<'source'>;
  readonly lastSuccess: Gauge<'source'>;
  readonly interval: Gauge<'source'>;
  readonly lastOutcome: Gauge<'source' | 'outcome'>;
  readonly consecutiveFailures: Gauge<'source'>;
  readonly nextDue: Gauge<'source'>;
  readonly purged: Counter;
  private sources: readonly SourceConfig[] = [];

  constructor(readonly registry: Registry) {
    const registers = [registry];
    this.rowsStaged = new Counter({
      name: 'domain_index_sync_rows_staged_total',
      help: 'Valid feed rows staged for a batch, by source (rejected batches included).',
      labelNames: ['source'],
      registers,
    });
    this.badRows = new Counter({
      name: 'domain_index_sync_bad_rows_total',
      help: 'Feed rows refused as bad (reported with line and reason), by source.',
      labelNames: ['source'],
      registers,
    });
    this.batches = new Counter({
      name: 'domain_index_sync_batches_total',
      help: 'Sync batches by source and outcome: switched (the batch replaced the source rows), rejected (too many bad rows; previous batch kept) or failed (fetch or database; previous batch kept).',
      labelNames: ['source', 'outcome'],
      registers,
    });
    this.feedsUnchanged = new Counter({
      name: 'domain_index_sync_feeds_unchanged_total',
      help: 'Feeds skipped because they had not changed since the last applied batch, by source.',
      labelNames: ['source'],
      registers,
    });
    this.lastSuccess = new Gauge({
      name: 'domain_index_sync_last_success_timestamp_seconds',
      help: 'When the source last synced successfully (a batch switched, or the feed found unchanged), unix seconds. Absent for a source that never did.',
      labelNames: ['source'],
      registers,
    });
    this.interval = new Gauge({
      name: 'domain_index_sync_interval_seconds',
      help: 'The configured interval between syncs of the source.',
      labelNames: ['source'],
      registers,
    });
    this.lastOutcome = new Gauge({
      name: 'domain_index_sync_last_outcome',
      help: 'How the source\'s last sync ended: 1 for its outcome (applied, unchanged, rejected or failed), 0 for the others; all 0 before its first sync.',
      labelNames: ['source', 'outcome'],
      registers,
    });
    this.consecutiveFailures = new Gauge({
      name: 'domain_index_sync_consecutive_failures',
      help: 'Rejected or failed syncs of the source since its last success (0 once one succeeds).',
      labelNames: ['source'],
      registers,
    });
    this.nextDue = new Gauge({
      name: 'domain_index_sync_next_due_timestamp_seconds',
      help: 'When the source is due to sync next (its last sync plus its interval, or after a failed sync its retry delay of 1, 5, 15, then every 60 minutes, at most the interval), unix seconds. Absent for a source that never synced: it is due at once.',
      labelNames: ['source'],
      registers,
    });
    this.purged = new Counter({
      name: 'domain_index_purged_listings_total',
      help: 'Ended listings removed by the hourly purge.',
      registers,
    });
  }

  /** Sets every source's interval, starts its counters at 0 and its state from the database. */
  async initialise(database: Database, sources: readonly SourceConfig[]): Promise<void> {
    this.sources = sources;
    for (const { id: source, everyMinutes } of sources) {
      this.interval.set({ source }, everyMinutes * 60);
      this.rowsStaged.inc({ source }, 0);
      this.badRows.inc({ source }, 0);
      this.feedsUnchanged.inc({ source }, 0);
      for (const outcome of ['switched', 'rejected', 'failed'])
        this.batches.inc({ source, outcome }, 0);
    }
    await this.refresh(database);
  }

  /** Sets every source's state gauges from the database, whichever worker synced it. */
  async refresh(database: Database): Promise<void> {
    for (const state of await readSyncStates(database, this.sources)) {
      const { source } = state;
      if (state.lastSuccess === undefined) this.lastSuccess.remove({ source });
      else this.lastSuccess.set({ source }, state.lastSuccess.getTime() / 1000);
      for (const outcome of SYNC_OUTCOMES)
        this.lastOutcome.set({ source, outcome }, state.lastOutcome === outcome ? 1 : 0);
      this.consecutiveFailures.set({ source }, state.consecutiveFailures);
      if (state.nextDue === undefined) this.nextDue.remove({ source });
      else this.nextDue.set({ source }, state.nextDue.getTime() / 1000);
    }
  }

  /** Counts what one sync of `source` did, finished at `at`. */
  record(source: string, result: SyncResult, at: Date): void {
    if (result.status === 'skipped') return;
    if (result.status === 'failed') {
      this.batches.inc({ source, outcome: 'failed' });
      return;
    }
    if (result.status === 'unchanged') {
      // the index holds the feed's batch already: as good as a switch, and nothing was staged
      this.feedsUnchanged.inc({ source });
      this.lastSuccess.set({ source }, at.getTime() / 1000);
      return;
    }
    const { summary } = result;
    // rows a profile skipped (a currency without a rate) are neither staged nor bad
    this.rowsStaged.inc({ source }, Math.max(0, summary.rowsRead - summary.rejected - summary.skipped));
    this.badRows.inc({ source }, summary.rejected);
    this.batches.inc({ source, outcome: result.status === 'applied' ? 'switched' : 'rejected' });
    if (result.status === 'applied') this.lastSuccess.set({ source }, at.getTime() / 1000);
  }
}
