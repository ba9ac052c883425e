import type { Response } from 'express';
import type { ApiError } from '@domain-index/api-errors/api-error';

/** Seconds a client should wait before retrying a 5xx when nothing more precise is known. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** Writes an error envelope. Every 5xx carries Retry-After. */
export function sendError(res: Response, error: ApiError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  if (error.status >= 500 && !res.hasHeader('Retry-After')) {
    res.setHeader('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS));
  }
  // for the error-code metric (ops/request-metrics.ts)
  res.locals.errorCode = error.code;
  res.status(error.status).json({ error: error.toBody() });
}
