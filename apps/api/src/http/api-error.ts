import { ERROR_STATUS, type ApiErrorBody, type ErrorCode } from '@domain-index/contract';
import type { Response } from 'express';

/** Seconds a client should wait before retrying a 5xx when nothing more precise is known. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * An error that becomes one error-envelope response. Thrown anywhere in a request's chain;
 * the error handler turns it into the response.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    /** Headers that belong to this answer, e.g. Retry-After of a 429. */
    readonly headers: Readonly<Record<string, string>> = {},
    /** What went wrong underneath, for the log only. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.status = ERROR_STATUS[code];
  }

  /** The `error` object of the envelope: `param` only where decisions.md puts it. */
  toBody(): ApiErrorBody {
    return this.param === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, param: this.param };
  }
}

/** Writes an error envelope. Every 5xx carries Retry-After. */
export function sendError(res: Response, error: ApiError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  if (error.status >= 500 && !res.hasHeader('Retry-After')) {
    res.setHeader('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS));
  }
  res.status(error.status).json({ error: error.toBody() });
}
