import { queryErrorToApiError } from '@domain-index/contract';
import type { ErrorRequestHandler } from 'express';
import { RequestValidationError } from '@ts-rest/express';
import type { Logger } from '../logger';
import { ApiError, sendError } from './api-error';

/**
 * The last handler: every failure leaves as an error envelope. Unexpected errors are logged
 * with their detail and answered with a generic 500 that carries no stack, SQL or driver text.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (error instanceof ApiError) {
      // A 5xx's cause (driver text, a timeout) is for the operator's log, never the response.
      if (error.status >= 500) {
        logger.warn({ err: error.cause, code: error.code, requestId: res.locals.requestId, path: req.path }, 'request refused by a service fault');
      }
      sendError(res, error);
      return;
    }
    if (error instanceof RequestValidationError) {
      if (error.query !== null) {
        const body = queryErrorToApiError(error.query);
        sendError(res, new ApiError(body.code, body.message, body.param));
        return;
      }
    }
    if (isUndecodablePath(error)) {
      sendError(res, new ApiError('invalid_domain', 'the domain in the path is not valid percent-encoded text'));
      return;
    }
    logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, 'unexpected failure');
    sendError(res, new ApiError('internal_error', 'an unexpected error occurred; it has been logged, please retry'));
  };
}

/** Express answers a path segment it cannot percent-decode with a 400 error. */
function isUndecodablePath(error: unknown): boolean {
  return error instanceof URIError || (error instanceof Error && 'status' in error && error.status === 400);
}
