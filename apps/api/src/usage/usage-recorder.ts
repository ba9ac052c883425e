import { keyUsage, sql, type Database } from '@domain-index/db';
import type { Logger } from '@domain-index/runtime/logger';
import type { ApiMetrics } from '../ops/api-metrics';
import { outcomeOf, type Outcome } from './outcome';
import { usageHourOf } from '@domain-index/accounts/usage-hour';

/** One key's counts in one hour, as they are added to `key_usage`. */
interface Counts extends Record<Outcome, number> {
  keyId: string;
  hour: number;
  requests: number;
  rows: number;
}

const emptyCounts = (keyId: string, hour: number): Counts => ({
  keyId,
  hour,
  requests: 0,
  rows: 0,
  ok: 0,
  clientErrors: 0,
  rateLimited: 0,
  serverErrors: 0,
});

/** Adds `from`'s counts to `into`. */
function add(into: Counts, from: Counts): void {
  into.requests += from.requests;
  into.rows += from.rows;
  into.ok += from.ok;
  into.clientErrors += from.clientErrors;
  into.rateLimited += from.rateLimited;
  into.serverErrors += from.serverErrors;
}

/** How often an instance adds its counts to the shared table. */
export const USAGE_FLUSH_MS = 5_000;

/**
 * Requests (split by outcome: 2xx, 4xx, 429, 5xx) and rows returned per key and hour, counted in memory and added to `key_usage` in one
 * upsert every USAGE_FLUSH_MS: no write per API request, and every instance adds to the same
 * rows. A failed flush keeps its counts and tries again USAGE_FLUSH_MS later; `close` flushes
 * what is left, after any write still running.
 */
export class UsageRecorder {
  private pending = new Map<string, Counts>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly flushEveryMs = USAGE_FLUSH_MS,
    private readonly metrics?: ApiMetrics,
  ) {}

  /** Counts one request of a key, with the rows it returned and the status it was answered with. */
  record(keyId: string, rows: number, at: Date, status: number): void {
    const hour = usageHourOf(at);
    const id = `${keyId} ${hour}`;
    let entry = this.pending.get(id);
    if (entry === undefined) {
      entry = emptyCounts(keyId, hour);
      this.pending.set(id, entry);
    }
    entry.requests += 1;
    entry.rows += rows;
    entry[outcomeOf(status)] += 1;
    this.armTimer();
  }

  private armTimer(): void {
    if (this.closed) return;
    // flushed on the database itself, never a request's deadline view (long passed by then)
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.flushEveryMs).unref();
  }

  /** Adds the counts so far to the table, once every write already running has finished. */
  async flush(): Promise<void> {
    // A loop: another caller may start a write while this one waits, and each waiter must
    // see the table as it is once nothing is in flight (close() closes the pool after this).
    while (this.flushing !== undefined) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.write(batch).finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  private async write(batch: Counts[]): Promise<void> {
    const upsert = () =>
      this.database.db
        .insert(keyUsage)
        .values(
          batch.map((entry) => ({
            keyId: entry.keyId,
            hour: new Date(entry.hour),
            requests: entry.requests,
            rowsReturned: entry.rows,
            ok: entry.ok,
            clientErrors: entry.clientErrors,
            rateLimited: entry.rateLimited,
            serverErrors: entry.serverErrors,
          })),
        )
        .onConflictDoUpdate({
          target: [keyUsage.keyId, keyUsage.hour],
          set: {
            requests: sql`${keyUsage.requests} + excluded.requests`,
            rowsReturned: sql`${keyUsage.rowsReturned} + excluded.rows_returned`,
            ok: sql`${keyUsage.ok} + excluded.ok`,
            clientErrors: sql`${keyUsage.clientErrors} + excluded.client_errors`,
            rateLimited: sql`${keyUsage.rateLimited} + excluded.rate_limited`,
            serverErrors: sql`${keyUsage.serverErrors} + excluded.server_errors`,
          },
        });
    try {
      await (this.metrics === undefined ? upsert() : this.metrics.timeQuery('usage_flush', 'primary', upsert));
    } catch (error) {
      this.logger.warn({ err: error, entries: batch.length }, 'could not record key usage; kept for the next flush');
      for (const entry of batch) {
        const id = `${entry.keyId} ${entry.hour}`;
        const kept = this.pending.get(id);
        if (kept === undefined) this.pending.set(id, entry);
        else add(kept, entry);
      }
      // Kept counts would otherwise wait for the next request, or for shutdown.
      this.armTimer();
    }
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
