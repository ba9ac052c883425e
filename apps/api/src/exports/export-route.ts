import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import {
  CSV_HEADER,
  csvField,
  EXPORT_CONTENT_TYPES,
  EXPORT_LIMITS,
  exportCost,
  type Contract,
  type ExportFormat,
} from '@domain-index/contract';
import { classifyDatabaseFailure, inSnapshot, withDeadline } from '@domain-index/db';
import { DOMAIN_WIDTH, domainFromValues } from '@domain-index/listings/domain-values';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Response } from 'express';
import { ApiError } from '@domain-index/api-errors/api-error';
import { databaseFault } from '@domain-index/api-errors/query-failed';
import type { RouteDeps } from '../app';
import type { Caller } from '../auth/authenticate';
import { RateLimiterUnavailableError } from '../ratelimit/rate-limiter';
import { setRowsReturned } from '../usage/count-usage';
import { negotiateCoding } from '../wire/content-coding';
import { exportStatements } from './export-statements';

/** EXPORT_TIMEOUT_MS when nobody configured it: 30 minutes. */
export const DEFAULT_EXPORT_TIMEOUT_MS = 30 * 60_000;
/** Rows fetched from the cursor at a time: one page is what a paused export holds in memory. */
export const EXPORT_PAGE_ROWS = 500;
/** Bytes the body buffers before it waits for the socket (Node's default is 16 KiB). */
const BODY_HIGH_WATER_MARK = 64 * 1024;
/** A slot of a process that died is freed after this; a running export renews its lease. */
const SLOT_LEASE_MS = 60_000;
/** SQLSTATE of a statement cancelled by its statement_timeout (or by us). */
const STATEMENT_TIMEOUT = '57014';
/** Seconds a refused concurrent export is told to wait. */
const BUSY_RETRY_AFTER = 10;

const queryFailed = (cause: unknown) => new ApiError('query_failed', 'the export could not start; please retry', undefined, {}, cause);
const limiterUnavailable = (cause: unknown) =>
  new ApiError('rate_limit_unavailable', 'the rate limiter is unavailable, so the export is refused rather than served unmetered; please retry', undefined, { 'Retry-After': '5' }, cause);

/** Why an export stopped before its last row; named in its error line, never with driver text. */
class ExportStopped extends Error {
  override readonly name = 'ExportStopped';
  constructor(readonly why: 'timeout' | 'client_gone') {
    super(why === 'timeout' ? 'the export ran past EXPORT_TIMEOUT_MS' : 'the client went away');
  }
}

/** One CSV record from a row's values in select order (the header's order). */
function csvValues(values: readonly unknown[]): string {
  // the driver's values of the domain's columns: text, numbers, booleans and nulls only
  const fields = values as readonly (string | number | boolean | null)[];
  let line = csvField(fields[0]);
  for (let i = 1; i < DOMAIN_WIDTH; i += 1) line += `,${csvField(fields[i])}`;
  return `${line}\r\n`;
}

/** A page of rows as the format's text: the very bytes the search writes for JSONL (JSON.stringify of the same object). */
const RENDER: Readonly<Record<ExportFormat, (rows: readonly unknown[][]) => string>> = {
  csv: (rows) => {
    let text = '';
    for (const values of rows) text += csvValues(values);
    return text;
  },
  jsonl: (rows) => {
    let text = '';
    for (const values of rows) text += `${JSON.stringify(domainFromValues(values))}\n`;
    return text;
  },
};

/**
 * A 200 whose body is a stream: ts-rest's Express adapter pipes a Stream body to the response
 * instead of serialising it; the contract types the body as the text it is on the wire.
 */
const streamed = (body: Readable) => ({ status: 200 as const, body: body as unknown as string });

/** A failure's SQLSTATE or driver code for the log: never its message, which may hold SQL. */
function failureCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown';
}

/** `20261121T120000Z`: the snapshot's time in a file name. */
const stamp = (now: Date) => now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/**
 * GET (and HEAD) /api/v1/exports/domains: every row a search with the same filters finds, in its
 * order, streamed as CSV or JSON lines from one snapshot (one REPEATABLE READ read-only
 * transaction, on a replica when one is usable). The count comes first, in that snapshot: it
 * decides the cost (one request per started 1,000 rows, 429 when it does not fit), the plan's
 * cap (403 export_too_large) and HEAD's X-Total-Count, all before any row is sent. Then the
 * cursor is read a page at a time, each page only when the socket has taken the one before.
 */
export function exportRoute(deps: RouteDeps): AppRouteImplementation<Contract['exportDomains']> {
  const timeoutMs = deps.exportTimeoutMs ?? DEFAULT_EXPORT_TIMEOUT_MS;
  return async ({ query, req, res }) => {
    const caller = res.locals.caller as Caller;
    const format = query.format!;
    const head = req.method === 'HEAD';
    const now = deps.clock.now();
    let release: (() => Promise<void>) | undefined;
    if (!head) {
      try {
        release = await deps.rateLimiter.acquireSlot(`export:${caller.keyId}`, EXPORT_LIMITS.concurrentPerKey, SLOT_LEASE_MS);
      } catch (error) {
        if (error instanceof RateLimiterUnavailableError) throw limiterUnavailable(error);
        throw error;
      }
      if (release === undefined) {
        throw new ApiError('rate_limited', `this key already has ${EXPORT_LIMITS.concurrentPerKey} exports running, the most one key may run at once; retry when one has finished`, undefined, {
          'Retry-After': String(BUSY_RETRY_AFTER),
        });
      }
    }

    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new ExportStopped('timeout')), timeoutMs);
    timer.unref();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort(new ExportStopped('client_gone'));
    });

    let announce!: (count: number) => void;
    let refuse!: (error: unknown) => void;
    const counted = new Promise<number>((resolve, reject) => {
      announce = resolve;
      refuse = reject;
    });
    const body = new ExportBody(format, query.summary === true, res, abort.signal, deps);
    let streaming = false;

    const run = withDeadline(timeoutMs + 1_000, () =>
      deps.reads.readLong('export', (database) => {
        const statements = exportStatements(database, query, now);
        // the server's own timeout a little later than ours, so ours ends it with its reason; the server's is the backstop
        return inSnapshot(database, { statementTimeoutMs: timeoutMs + 1_000, signal: abort.signal }, async (snapshot) => {
          const count = await snapshot.count(statements.count);
          if (!head) await chargeFor(deps, caller, res, count, now);
          streaming = !head;
          announce(count);
          if (head) return;
          await body.fill(snapshot.pages(statements.rows, EXPORT_PAGE_ROWS));
        });
      }),
    );
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
      if (error instanceof ApiError) throw error;
      throw databaseFault(error, queryFailed);
    }
    res.setHeader('Content-Type', EXPORT_CONTENT_TYPES[format]);
    res.setHeader('Content-Disposition', `attachment; filename="domains-${stamp(now)}.${format}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Total-Count', String(count));
    res.setHeader('X-Export-Cost', String(exportCost(count)));
    res.vary('Accept-Encoding');
    if (head) return streamed(Readable.from([]));
    const coding = negotiateCoding(req.headers['accept-encoding']);
    if (coding !== 'gzip') return streamed(body);
    res.setHeader('Content-Encoding', 'gzip');
    // flushed per page: a client sees rows arrive while the export runs, not at its end
    const gzip = createGzip({ level: 6 });
    body.on('error', (error) => gzip.destroy(error));
    return streamed(body.pipe(gzip));
  };
}

/**
 * The cost of an export, beyond the one request the rate-limit step counted already: one request
 * per started 1,000 rows, all of it or none; and the plan's cap on one export's rows.
 */
async function chargeFor(deps: RouteDeps, caller: Caller, res: Response, count: number, now: Date): Promise<void> {
  const { plan } = caller;
  if (plan.exportRowsMax !== null && count > plan.exportRowsMax) {
    throw new ApiError('export_too_large', `this export would stream ${count} rows and your plan (${plan.id}) allows ${plan.exportRowsMax} per export: narrow the filters, or move to a plan with more`);
  }
  const cost = exportCost(count);
  if (cost <= 1) return;
  let decision;
  try {
    decision = await deps.rateLimiter.reserve(caller.keyId, { limit: plan.limit, windowSeconds: plan.windowSeconds }, now, cost - 1);
  } catch (error) {
    if (error instanceof RateLimiterUnavailableError) throw limiterUnavailable(error);
    throw error;
  }
  const secondsToReset = Math.max(0, Math.ceil(decision.resetAt - now.getTime() / 1000));
  res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit', `"hourly";r=${decision.remaining};t=${secondsToReset}`);
  if (!decision.allowed) {
    throw new ApiError(
      'rate_limited',
      `this export would stream ${count} rows, which costs ${cost} requests (one per started ${EXPORT_LIMITS.rowsPerRequest} rows); this key has ${decision.remaining + 1} left in the current window, this request included: retry after ${secondsToReset} s, or narrow the filters`,
      undefined,
      { 'Retry-After': String(secondsToReset) },
    );
  }
}

/**
 * The body of an export: pages of rows rendered as they come off the cursor, each pushed only
 * when the socket has taken enough of the one before (the stream's high-water mark), so a slow
 * reader holds the cursor, not memory.
 */
class ExportBody extends Readable {
  private wake: (() => void) | undefined;
  private rows = 0;

  constructor(
    private readonly format: ExportFormat,
    private readonly summary: boolean,
    private readonly res: Response,
    private readonly signal: AbortSignal,
    private readonly deps: RouteDeps,
  ) {
    super({ highWaterMark: BODY_HIGH_WATER_MARK });
    signal.addEventListener('abort', () => this.resume_(), { once: true });
  }

  override _read(): void {
    this.resume_();
  }

  private resume_(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async fill(pages: AsyncIterable<unknown[][]>): Promise<void> {
    if (this.format === 'csv') await this.write(CSV_HEADER);
    const render = RENDER[this.format];
    for await (const rows of pages) {
      this.rows += rows.length;
      this.deps.metrics.exportRows.inc({ format: this.format }, rows.length);
      setRowsReturned(this.res, this.rows);
      await this.write(render(rows));
    }
  }

  private async write(text: string): Promise<void> {
    if (this.signal.aborted) throw this.signal.reason;
    if (!this.push(text)) await new Promise<void>((resolve) => (this.wake = resolve));
    if (this.signal.aborted) throw this.signal.reason;
  }

  finish(): void {
    if (this.destroyed) return;
    if (this.summary) this.push(`${JSON.stringify({ object: 'export_summary', rows: this.rows })}\n`);
    this.push(null);
  }

  /**
   * Ends an export that failed part-way so that it cannot pass for complete: JSON lines end with
   * an error envelope on a line of its own; CSV, which has no place for one, is cut off (the
   * chunked body never gets its last chunk, and a client reports it incomplete).
   */
  fail(error: unknown): void {
    if (this.destroyed) return;
    const gone = error instanceof ExportStopped && error.why === 'client_gone';
    if (gone) {
      this.destroy();
      return;
    }
    const timedOut =
      error instanceof ExportStopped ||
      (this.signal.reason instanceof ExportStopped && this.signal.reason.why === 'timeout') ||
      classifyDatabaseFailure(error).sqlstate === STATEMENT_TIMEOUT;
    this.deps.logger.warn({ rows: this.rows, format: this.format, requestId: this.res.locals.requestId, failure: timedOut ? 'timeout' : failureCode(error) }, 'an export stopped part-way');
    if (this.format === 'jsonl') {
      const message = timedOut
        ? `the export ran past its time limit after ${this.rows} rows and is incomplete; narrow the filters`
        : `the export stopped after ${this.rows} rows and is incomplete; please retry`;
      this.push(`${JSON.stringify({ error: { code: 'query_failed', message } })}\n`);
      this.push(null);
      return;
    }
    this.res.destroy();
    this.destroy();
  }
}
