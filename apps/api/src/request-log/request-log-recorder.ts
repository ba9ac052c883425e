import { copyIn, copyTextRow, type Database } from '@domain-index/db';
import { failureLine } from '@domain-index/runtime/failure-line';
import type { Logger } from '@domain-index/runtime/logger';
import type { ApiMetrics } from '../ops/api-metrics';
import { loggedPath, loggedRequestId } from './logged-path';
import { dayOf, dropPartitionsBefore, ensurePartitions } from './partitions';

/** How long the request log keeps a request. */
export const REQUEST_LOG_DAYS = 7;
/** How often an instance writes the requests it has seen. */
export const REQUEST_LOG_FLUSH_MS = 1_000;
/** The most requests an instance holds before writing them; more are dropped, and counted. */
export const REQUEST_LOG_BUFFER = 20_000;
/** Rows per COPY: a few hundred kilobytes at most, sent as one piece. */
const ROWS_PER_COPY = 2_000;
/** How often an instance drops the days older than REQUEST_LOG_DAYS. */
const PRUNE_EVERY_MS = 10 * 60_000;
const DAY_MS = 86_400_000;

/** One request as the API saw it, before anything in it is redacted. */
export interface SeenRequest {
  /** When it arrived, ms since the epoch. */
  at: number;
  keyId: string;
  requestId: string;
  method: string;
  /** `req.originalUrl`: redacted when written, off the request path. */
  url: string;
  status: number;
  errorCode: string | undefined;
  durationMs: number;
  rows: number;
}

/** The columns a request's row fills, in the order of copyRow's values. */
const COPY_COLUMNS = ['at', 'key_id', 'request_id', 'method', 'path', 'status', 'error_code', 'duration_ms', 'rows_returned'] as const;

/** The requests as rows of COPY's text format, redacted. */
export function copyRows(requests: readonly SeenRequest[]): string {
  // joined, not concatenated: `+=` leaves a rope of pieces to flatten when it is sent
  return requests.map(copyRow).join('');
}

/**
 * The per-key request log, written like the usage counts: a request costs one push into a
 * bounded buffer, and every REQUEST_LOG_FLUSH_MS the buffer goes to `request_log` in one
 * COPY per ROWS_PER_COPY rows (COPY's text format: a fraction of PostgreSQL's cost of an insert
 * of the same rows as JSON, bench notes 80). Paths are redacted at
 * that point (logged-path.ts). When the buffer is full (the database slow or away) a request is
 * dropped and counted in `domain_index_request_log_dropped_total`, so memory stays bounded.
 * `request_log` is partitioned by day: the recorder makes a day's partition before its first
 * row (and tomorrow's ahead), and every PRUNE_EVERY_MS drops the days older than
 * REQUEST_LOG_DAYS, which costs the same however many rows they hold: no row is deleted one by one.
 */
export class RequestLogRecorder {
  private pending: SeenRequest[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;
  private lastPrune = 0;
  /** Flushes failed in a row: the first is logged, the streak's end says how many. */
  private failedFlushes = 0;
  /** Requests dropped for want of room since the streak began. */
  private droppedInStreak = 0;
  /** The days whose partition this instance has made, or seen made. */
  private readonly partitions = new Set<number>();

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly options: {
      flushEveryMs?: number;
      maxBuffered?: number;
      metrics?: ApiMetrics;
      /** The time pruning counts from; the system clock by default. */
      now?: () => Date;
    } = {},
  ) {}

  /** Remembers one request of a key; never waits, never throws. */
  record(request: SeenRequest): void {
    if (this.pending.length >= (this.options.maxBuffered ?? REQUEST_LOG_BUFFER)) {
      this.options.metrics?.requestLogDropped.inc();
      if (this.failedFlushes > 0) this.droppedInStreak += 1;
      return;
    }
    this.pending.push(request);
    this.armTimer();
  }

  private armTimer(): void {
    if (this.closed) return;
    // on the database itself, never a request's deadline view: a long request (an export)
    // records after its QUERY_TIMEOUT_MS deadline, and a flush bound by it would fail
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.options.flushEveryMs ?? REQUEST_LOG_FLUSH_MS).unref();
  }

  /** Writes the requests so far, once every write already running has finished. */
  async flush(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.flushing = this.write(batch).finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  private async write(batch: SeenRequest[]): Promise<void> {
    let written = 0;
    try {
      // the partitions of the batch's days, and of tomorrow, made before their first row
      const days = new Set(batch.map((request) => dayOf(request.at)));
      days.add(dayOf(this.now().getTime() + DAY_MS));
      const missing = [...days].filter((day) => !this.partitions.has(day));
      if (missing.length > 0) {
        await this.timed(() => ensurePartitions(this.database, missing));
        for (const day of missing) this.partitions.add(day);
      }
      for (; written < batch.length; written += ROWS_PER_COPY) {
        const rows = batch.slice(written, written + ROWS_PER_COPY);
        await this.timed(() => copyIn(this.database, 'request_log', COPY_COLUMNS, copyRows(rows)));
      }
    } catch (error) {
      // A partition may have gone (dropped by hand, or another instance): made again next time.
      this.partitions.clear();
      // Kept for the next flush as far as the buffer has room; the rest is dropped and counted.
      const unwritten = batch.slice(written);
      const room = Math.max(
        0,
        (this.options.maxBuffered ?? REQUEST_LOG_BUFFER) - this.pending.length,
      );
      this.pending = [...unwritten.slice(0, room), ...this.pending];
      const dropped = Math.max(0, unwritten.length - room);
      if (dropped > 0) this.options.metrics?.requestLogDropped.inc(dropped);
      this.droppedInStreak += dropped;
      // One line a streak, no stack: a saturated database fails a flush every second, and the
      // failure counts in domain_index_db_query_errors_total{kind="request_log_flush"}.
      if (this.failedFlushes === 0)
        this.logger.warn(
          { reason: failureLine(error), requests: unwritten.length },
          'could not write the request log; kept for the next flush (logged once until a flush succeeds)',
        );
      this.failedFlushes += 1;
      this.armTimer();
      return;
    }
    if (this.failedFlushes > 0) {
      this.logger.info(
        { failedFlushes: this.failedFlushes, dropped: this.droppedInStreak },
        'the request log is written again',
      );
      this.failedFlushes = 0;
      this.droppedInStreak = 0;
    }
    await this.pruneNowAndThen();
  }

  /** Runs one statement of a flush, timed and counted as `request_log_flush` when metrics are on. */
  private timed<T>(run: () => Promise<T>): Promise<T> {
    return this.options.metrics === undefined
      ? run()
      : this.options.metrics.timeQuery('request_log_flush', 'primary', run);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  private async pruneNowAndThen(): Promise<void> {
    const now = this.now();
    if (now.getTime() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now.getTime();
    try {
      await this.prune(now);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not delete old request log rows; tried again later');
    }
  }

  /**
   * Drops the partitions of the days older than REQUEST_LOG_DAYS at `now` (a day is dropped once
   * all of it is older). Returns their names.
   */
  async prune(now: Date): Promise<string[]> {
    const cutoff = now.getTime() - REQUEST_LOG_DAYS * DAY_MS;
    const drop = () => dropPartitionsBefore(this.database, cutoff);
    const dropped = await (this.options.metrics === undefined
      ? drop()
      : this.options.metrics.timeQuery('request_log_prune', 'primary', drop));
    for (const day of this.partitions) if (day + DAY_MS <= cutoff) this.partitions.delete(day);
    return dropped;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

/** A request as one row of COPY's text format, redacted (COPY_COLUMNS order). */
function copyRow(request: SeenRequest): string {
  return copyTextRow([
    new Date(request.at).toISOString(),
    request.keyId,
    loggedRequestId(request.requestId),
    request.method,
    loggedPath(request.url),
    request.status,
    request.errorCode ?? null,
    Math.round(request.durationMs * 100) / 100,
    request.rows,
  ]);
}
