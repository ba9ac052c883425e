import { sql, type Database } from '@domain-index/db';
import type { Logger } from '../logger';
import type { ApiMetrics } from '../ops/api-metrics';
import { loggedPath, loggedRequestId } from './logged-path';

/** How long the request log keeps a request. */
export const REQUEST_LOG_DAYS = 7;
/** How often an instance writes the requests it has seen. */
export const REQUEST_LOG_FLUSH_MS = 1_000;
/** The most requests an instance holds before writing them; more are dropped, and counted. */
export const REQUEST_LOG_BUFFER = 20_000;
/** Rows per insert: one JSON parameter each, far from any limit on parameters or message size. */
const ROWS_PER_INSERT = 2_000;
/** How often an instance deletes rows older than REQUEST_LOG_DAYS... */
const PRUNE_EVERY_MS = 10 * 60_000;
/** ...in statements of at most this many rows, at most PRUNE_ROUNDS of them each time. */
const PRUNE_BATCH = 5_000;
const PRUNE_ROUNDS = 20;

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

const INSERT_COLUMNS = sql.raw(
  'at, key_id, request_id, method, path, status, error_code, duration_ms, rows_returned',
);

/**
 * The per-key request log, written like the usage counts: a request costs one push into a
 * bounded buffer, and every REQUEST_LOG_FLUSH_MS the buffer goes to `request_log` in one
 * statement per ROWS_PER_INSERT rows (the rows as one JSON parameter). Paths are redacted at
 * that point (logged-path.ts). When the buffer is full (the database slow or away) a request is
 * dropped and counted in `domain_index_request_log_dropped_total`, so memory stays bounded.
 * Every PRUNE_EVERY_MS an instance also deletes what is older than REQUEST_LOG_DAYS, in bounded
 * statements, so no delete ever holds locks or builds WAL for long.
 */
export class RequestLogRecorder {
  private pending: SeenRequest[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;
  private lastPrune = 0;

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
      return;
    }
    this.pending.push(request);
    this.armTimer();
  }

  private armTimer(): void {
    if (this.closed) return;
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
      for (; written < batch.length; written += ROWS_PER_INSERT) {
        const rows = JSON.stringify(batch.slice(written, written + ROWS_PER_INSERT).map(toRow));
        const insert = () =>
          this.database.rows(sql`insert into request_log (${INSERT_COLUMNS})
            select to_timestamp(at / 1000.0), key_id, request_id, method, path, status, error_code, duration_ms, rows_returned
            from json_to_recordset(${rows}::json) as r(at double precision, key_id text, request_id text, method text, path text, status smallint, error_code text, duration_ms real, rows_returned integer)`);
        await (this.options.metrics === undefined
          ? insert()
          : this.options.metrics.timeQuery('request_log_flush', 'primary', insert));
      }
    } catch (error) {
      // Kept for the next flush as far as the buffer has room; the rest is dropped and counted.
      const unwritten = batch.slice(written);
      const room = Math.max(
        0,
        (this.options.maxBuffered ?? REQUEST_LOG_BUFFER) - this.pending.length,
      );
      this.pending = [...unwritten.slice(0, room), ...this.pending];
      if (unwritten.length > room)
        this.options.metrics?.requestLogDropped.inc(unwritten.length - room);
      this.logger.warn(
        { err: error, requests: unwritten.length },
        'could not write the request log; kept for the next flush',
      );
      this.armTimer();
      return;
    }
    await this.pruneNowAndThen();
  }

  private async pruneNowAndThen(): Promise<void> {
    const now = this.options.now?.() ?? new Date();
    if (now.getTime() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now.getTime();
    try {
      await this.prune(now);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not delete old request log rows; tried again later');
    }
  }

  /**
   * Deletes rows older than REQUEST_LOG_DAYS at `now`, PRUNE_BATCH at a time (found through the
   * BRIN index on `at`, deleted by their row address), for at most PRUNE_ROUNDS statements.
   * Returns how many went. Instances that prune at once delete different rows or the same ones:
   * either way nothing waits long.
   */
  async prune(now: Date): Promise<number> {
    const cutoff = new Date(now.getTime() - REQUEST_LOG_DAYS * 86_400_000).toISOString();
    let deleted = 0;
    for (let round = 0; round < PRUNE_ROUNDS; round += 1) {
      const prune = () =>
        this.database.rows<{ n: number }>(sql`with gone as (
            delete from request_log where ctid = any(array(
              select ctid from request_log where at < ${cutoff}::timestamptz limit ${PRUNE_BATCH}
            )) returning 1
          ) select count(*)::int as n from gone`);
      const [row] = await (this.options.metrics === undefined
        ? prune()
        : this.options.metrics.timeQuery('request_log_prune', 'primary', prune));
      deleted += row?.n ?? 0;
      if ((row?.n ?? 0) < PRUNE_BATCH) break;
    }
    return deleted;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

/** A row as the insert's JSON has it, redacted. */
function toRow(request: SeenRequest) {
  return {
    at: request.at,
    key_id: request.keyId,
    request_id: loggedRequestId(request.requestId),
    method: request.method,
    path: loggedPath(request.url),
    status: request.status,
    error_code: request.errorCode ?? null,
    duration_ms: Math.round(request.durationMs * 100) / 100,
    rows_returned: request.rows,
  };
}
