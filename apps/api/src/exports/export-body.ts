import { Readable } from 'node:stream';
import { CSV_HEADER, csvField, type ExportFormat } from '@domain-index/contract';
import { classifyDatabaseFailure } from '@domain-index/db';
import { DOMAIN_WIDTH, domainFromValues } from '@domain-index/listings/domain-values';
import type { Logger } from '@domain-index/runtime/logger';
import type { Response } from 'express';
import type { ApiMetrics } from '../ops/api-metrics';
import { setRowsReturned } from '../usage/count-usage';
import { serializeDomain } from '../wire/compiled-json';

/** Bytes the body buffers before it waits for the socket (Node's default is 16 KiB). */
const BODY_HIGH_WATER_MARK = 64 * 1024;
/** SQLSTATE of a statement cancelled by its statement_timeout (or by us). */
const STATEMENT_TIMEOUT = '57014';

/** Why an export stopped before its last row; named in its error line, never with driver text. */
export class ExportStopped extends Error {
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

/**
 * A page of rows as the format's text. JSON lines: each row's domain object written by the
 * serializer compiled from its schema (wire/compiled-json.ts), byte for byte what the search
 * writes for it, in about 60 % of JSON.stringify's time.
 */
const RENDER: Readonly<Record<ExportFormat, (rows: readonly unknown[][]) => string>> = {
  csv: (rows) => {
    let text = '';
    for (const values of rows) text += csvValues(values);
    return text;
  },
  jsonl: (rows) => {
    let text = '';
    for (const values of rows) text += `${serializeDomain(domainFromValues(values))}\n`;
    return text;
  },
};

/** A failure's SQLSTATE or driver code for the log: never its message, which may hold SQL. */
function failureCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown';
}

/** What the body reports to: the rows streamed, and a stop part-way. */
export interface ExportBodyDeps {
  metrics: Pick<ApiMetrics, 'exportRows'>;
  logger: Logger;
}

/**
 * The body of an export: pages of rows rendered as they come off the cursor, each pushed only
 * when the socket has taken enough of the one before (the stream's high-water mark), so a slow
 * reader holds the cursor, not memory.
 */
export class ExportBody extends Readable {
  private wake: (() => void) | undefined;
  private rows = 0;

  constructor(
    private readonly format: ExportFormat,
    private readonly summary: boolean,
    private readonly res: Response,
    private readonly signal: AbortSignal,
    private readonly deps: ExportBodyDeps,
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
    // the client's leaving cancels the statement: the driver's error then names the cancel, not why
    const reason: unknown = error instanceof ExportStopped ? error : this.signal.reason;
    const gone = reason instanceof ExportStopped && reason.why === 'client_gone';
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
