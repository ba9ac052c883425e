import { sourceBatches, sourceSyncs, type Database } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SyncResult } from '../indexing/sync-source';
import { lastSuccess } from './health';

/**
 * The sync worker's Prometheus metrics, per source. The last-success gauge starts from the
 * database, so a restarted worker does not look like a source that never synced, and the
 * interval gauge lets an alert compare the two (deploy/prometheus/alert-rules.yml).
 */
export class SyncMetrics {
  readonly rowsStaged: Counter<'source'>;
  readonly badRows: Counter<'source'>;
  readonly batches: Counter<'source' | 'outcome'>;
  readonly feedsUnchanged: Counter<'source'>;
  readonly lastSuccess: Gauge<'source'>;
  readonly interval: Gauge<'source'>;
  readonly purged: Counter;

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
    this.purged = new Counter({
      name: 'domain_index_purged_listings_total',
      help: 'Ended listings removed by the hourly purge.',
      registers,
    });
  }

  /** Sets every source's interval, starts its counters at 0 and its last success from the database. */
  async initialise(database: Database, sources: readonly SourceConfig[]): Promise<void> {
    const [syncs, batches] = await Promise.all([
      database.db.select().from(sourceSyncs),
      database.db.select().from(sourceBatches),
    ]);
    for (const { id: source, everyMinutes } of sources) {
      this.interval.set({ source }, everyMinutes * 60);
      this.rowsStaged.inc({ source }, 0);
      this.badRows.inc({ source }, 0);
      this.feedsUnchanged.inc({ source }, 0);
      for (const outcome of ['switched', 'rejected', 'failed'])
        this.batches.inc({ source, outcome }, 0);
      const success = lastSuccess(
        syncs.find((row) => row.source === source),
        batches.find((row) => row.source === source)?.appliedAt,
      );
      if (success !== undefined) this.lastSuccess.set({ source }, success.getTime() / 1000);
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
