import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { EXPORT_CONTENT_TYPES, EXPORT_LIMITS, exportCost, type ExportQuery } from '@domain-index/contract';
import { inSnapshot } from '@domain-index/db';
import type { Response } from 'express';
import { ApiError } from '@domain-index/api-errors/api-error';
import { databaseFault } from '@domain-index/api-errors/query-failed';
import type { RouteDeps } from '../app';
import { RateLimiterUnavailableError } from '../ratelimit/rate-limiter';
import { negotiateCoding } from '../wire/content-coding';
import { ExportBody, ExportStopped } from './export-body';
import { exportStatements } from './export-statements';

/** EXPORT_TIMEOUT_MS when nobody configured it: 30 minutes. */
export const DEFAULT_EXPORT_TIMEOUT_MS = 30 * 60_000;
/** Rows fetched from the cursor at a time: one page is what a paused export holds in memory. */
export const EXPORT_PAGE_ROWS = 500;
/** A slot of a process that died is freed after this; a running export renews its lease. */
const SLOT_LEASE_MS = 60_000;
/**
 * gzip's level for exports: 3, not zlib's 6. An export is megabytes to gigabytes compressed while
 * it streams, so gzip's speed sets its rate. Levels 1-3 are zlib's fast strategy, 4-9 its lazy
 * one: on 60 MB of exported rows (5M listings) level 3 compressed JSON lines at 205 MB/s against
 * 120 at level 4 with 2 % more bytes, and CSV at 96 against 74 MB/s with the same bytes.
 */
const EXPORT_GZIP_LEVEL = 3;
/** Seconds a refused concurrent export is told to wait. */
const BUSY_RETRY_AFTER = 10;

const countTimedOut = (cause: unknown) => new ApiError('query_failed', 'the export could not count its rows within its time limit; narrow the filters', undefined, {}, cause);
const queryFailed = (cause: unknown) => new ApiError('query_failed', 'the export could not start; please retry', undefined, {}, cause);
export const limiterUnavailable = (cause: unknown) =>
  new ApiError('rate_limit_unavailable', 'the rate limiter is unavailable, so the export is refused rather than served unmetered; please retry', undefined, { 'Retry-After': '5' }, cause);

/** `20261121T120000Z`: the snapshot's time in a file name. */
const stamp = (now: Date) => now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** One export as its caller (the API's route, the dashboard) asks for it. */
export interface ExportRequest {
  query: ExportQuery;
  /** HEAD: the count and the headers, no rows, no slot and no charge. */
  head: boolean;
  /** The request's Accept-Encoding: gzip when it takes it. */
  acceptEncoding: string | undefined;
  /** Whose running exports this one counts among (a key's, an account's): at most EXPORT_LIMITS.concurrentPerKey at once. */
  slot: string;
  /** Who is told "already running" when the slots are taken, and of what kind: ['this key', 'one key']. */
  holder: readonly [who: string, kind: string];
  /**
   * Called with the row count, in the snapshot, before any row is sent: throws an ApiError to
   * refuse (the plan's cap, the cost against the hourly limit).
   */
  charge(count: number, now: Date): Promise<void>;
}

/** An export whose count is known and whose rows are on their way: the body to send, encoded as asked. */
export interface StartedExport {
  count: number;
  body: Readable;
}

/**
 * Every row a search with the same filters finds, in its order, streamed as CSV or JSON lines
 * from one snapshot (one REPEATABLE READ read-only transaction, on a replica when one is usable).
 * The count comes first, in that snapshot: it decides the cost and the plan's cap (the caller's
 * `charge`) and the headers, all before any row is sent. Then the cursor is read a page at a
 * time, each page only when the socket has taken the one before. Shared by the API's route and
 * the dashboard's download, so both stream, stop and fail the same way.
 */
export class ListingExports {
  private readonly timeoutMs: number;

  constructor(private readonly deps: RouteDeps) {
    this.timeoutMs = deps.exportTimeoutMs ?? DEFAULT_EXPORT_TIMEOUT_MS;
  }

  /** Starts an export: resolves once the count is known and the headers are set, or rejects with an ApiError before any row. */
  async start(res: Response, request: ExportRequest): Promise<StartedExport> {
    const { deps, timeoutMs } = this;
    const { query, head } = request;
    const format = query.format!;
    const now = deps.clock.now();
    // A client that left before the export began (while its key was checked) closed the
    // response already, and a listener added after 'close' never hears it: the export then
    // waited on a socket nobody reads until its timeout, holding a connection and a slot.
    const abort = new AbortController();
    const clientGone = () => {
      if (!res.writableFinished) abort.abort(new ExportStopped('client_gone'));
    };
    res.on('close', clientGone);
    if (res.closed) clientGone();
    const release = head ? undefined : await this.takeSlot(request);

    const timer = setTimeout(() => abort.abort(new ExportStopped('timeout')), timeoutMs);
    timer.unref();

    let announce!: (count: number) => void;
    let refuse!: (error: unknown) => void;
    const counted = new Promise<number>((resolve, reject) => {
      announce = resolve;
      refuse = reject;
    });
    const body = new ExportBody(format, query.summary === true, res, abort.signal, deps);
    let streaming = false;

    // no request deadline: an export bounds itself (its timer aborts it, its snapshot's
    // statement_timeout is the backstop), for up to EXPORT_TIMEOUT_MS
    const run = deps.reads.readLong('export', (database) => {
      const statements = exportStatements(database, query, now);
      // the server's own timeout a little later than ours, so ours ends it with its reason; the server's is the backstop
      return inSnapshot(database, { statementTimeoutMs: timeoutMs + 1_000, signal: abort.signal }, async (snapshot) => {
        const count = await snapshot.count(statements.count);
        if (!head) await request.charge(count, now);
        streaming = !head;
        announce(count);
        if (head) return;
        await body.fill(snapshot.pages(statements.rows, EXPORT_PAGE_ROWS));
      });
    });
    void run
      .then(
        () => body.finish(),
        (error: unknown) => {
          if (!streaming) refuse(error);
          else body.fail(error);
        },
      )
      .finally(() => {
        clearTimeout(timer);
        void release?.();
      });

    let count: number;
    try {
      count = await counted;
    } catch (error) {
      // the client left before the count: nobody to answer, and no fault to log (the access
      // log says the request was aborted); nothing was charged
      if (error instanceof ExportStopped && error.why === 'client_gone') return { count: 0, body: Readable.from([]) };
      // the count itself outlasted EXPORT_TIMEOUT_MS, and was cancelled at it
      if (error instanceof ExportStopped) throw countTimedOut(error);
      if (error instanceof ApiError) throw error;
      throw databaseFault(error, queryFailed);
    }
    res.setHeader('Content-Type', EXPORT_CONTENT_TYPES[format]);
    res.setHeader('Content-Disposition', `attachment; filename="domains-${stamp(now)}.${format}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Total-Count', String(count));
    res.setHeader('X-Export-Cost', String(exportCost(count)));
    res.vary('Accept-Encoding');
    if (head) return { count, body: Readable.from([]) };
    const coding = negotiateCoding(request.acceptEncoding);
    if (coding !== 'gzip') return { count, body };
    res.setHeader('Content-Encoding', 'gzip');
    // gzip passes on each 16 KiB it has compressed: a client sees rows arrive while the export runs
    const gzip = createGzip({ level: EXPORT_GZIP_LEVEL });
    body.on('error', (error) => gzip.destroy(error));
    return { count, body: body.pipe(gzip) };
  }

  /** One of the holder's export slots, or 429 when all are taken. */
  private async takeSlot(request: ExportRequest): Promise<() => Promise<void>> {
    let release;
    try {
      release = await this.deps.rateLimiter.acquireSlot(request.slot, EXPORT_LIMITS.concurrentPerKey, SLOT_LEASE_MS);
    } catch (error) {
      if (error instanceof RateLimiterUnavailableError) throw limiterUnavailable(error);
      throw error;
    }
    if (release === undefined) {
      throw new ApiError('rate_limited', `${request.holder[0]} already has ${EXPORT_LIMITS.concurrentPerKey} exports running, the most ${request.holder[1]} may run at once; retry when one has finished`, undefined, {
        'Retry-After': String(BUSY_RETRY_AFTER),
      });
    }
    return release;
  }
}
