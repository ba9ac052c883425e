import { queryErrorToApiError } from '@domain-index/contract';
import { classifyDatabaseFailure, poolerMisconfiguration } from '@domain-index/db';
import type { ErrorRequestHandler, Request, Response } from 'express';
import { RequestValidationError } from '@ts-rest/express';
import type { z } from 'zod';
import type { Logger } from '@domain-index/runtime/logger';
import { ApiError } from '@domain-index/api-errors/api-error';
import { sendError } from './send-error';
import { internalError } from '@domain-index/api-errors/query-failed';
import { failureLine } from '@domain-index/runtime/failure-line';
import { routeLabel } from '../ops/request-metrics';
import { redactUrl } from './request-log';

/**
 * The last handler: every failure leaves as an error envelope. Unexpected errors are logged
 * with their detail and answered with a generic 500 that carries no stack, SQL or driver text;
 * an expected refusal (503: the database or Redis away, a query past its deadline) is one
 * warning line naming the code, the failure and the route.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (error instanceof ApiError) {
      // A 5xx's cause (driver text, a timeout) is for the operator's log, never the response.
      if (error.code === 'internal_error') {
        logDefect(logger, error.cause, req, res);
      } else if (error.status >= 500) {
        // expected while a dependency is away: one line, no stack, no statement; repeats are counted (logger.ts)
        logger.warn({ code: error.code, failure: error.cause === undefined ? undefined : failureLine(error.cause), route: routeLabel(req, res), requestId: res.locals.requestId }, 'request refused by a service fault');
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
      if (error.body !== null) {
        sendError(res, bodyError(error.body));
        return;
      }
    }
    if (isUndecodablePath(error)) {
      sendError(res, undecodablePathError(req.path));
      return;
    }
    logDefect(logger, error, req, res);
    sendError(res, internalError());
  };
}

/**
 * A 500 is our defect, so it is logged at error level with what an operator needs to find it
 * (the path redacted as the access log has it: a mailed link's token is in its path):
 * for a statement the database refused, its SQLSTATE and routine; and the names of the query
 * parameters in force (not their values, which are the customer's).
 */
function logDefect(logger: Logger, cause: unknown, req: Request, res: Response): void {
  const params = Object.keys(req.query);
  const failure = classifyDatabaseFailure(cause);
  const pooler = poolerMisconfiguration(cause);
  if (pooler !== undefined) {
    // not a statement of ours at fault but the deployment: the line names the fix
    logger.error({ sqlstate: failure.sqlstate, requestId: res.locals.requestId, path: redactUrl(req.path) }, pooler);
    return;
  }
  if (failure.sqlstate !== undefined) {
    const { sqlstate, routine, message } = failure;
    logger.error({ sqlstate, routine, params, requestId: res.locals.requestId, path: redactUrl(req.path) }, `the database refused a statement we built: ${message}`);
    return;
  }
  logger.error({ err: cause, params, requestId: res.locals.requestId, path: redactUrl(req.path) }, 'unexpected failure');
}

/** Express answers a path segment it cannot percent-decode with a 400 error. */
function isUndecodablePath(error: unknown): boolean {
  return error instanceof URIError || (error instanceof Error && 'status' in error && error.status === 400);
}

/**
 * The error for a path Express could not percent-decode, worded for the parameter at fault:
 * the domain of a lookup, or the alert or delivery id of an alert's path.
 */
function undecodablePathError(path: string): ApiError {
  if (/^\/api\/v1\/domains\//.test(path)) return new ApiError('invalid_domain', 'the domain in the path is not valid percent-encoded text');
  // /api/v1/alerts/:id/deliveries/:deliveryId/resend: the id is the fifth segment
  const param = canDecode(path.split('/')[4] ?? '') ? 'deliveryId' : 'id';
  return new ApiError('invalid_parameter', `${param} in the path is not valid percent-encoded text`, param);
}

function canDecode(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** A JSON body of the wrong shape: 400 naming the first field at fault (`body` for the body as a whole). */
export function bodyError(error: z.ZodError): ApiError {
  const unknown = error.issues.find((issue) => issue.code === 'unrecognized_keys');
  if (unknown !== undefined && unknown.code === 'unrecognized_keys') {
    const field = unknown.keys[0] ?? 'body';
    return new ApiError('invalid_parameter', `${field} is not a field of this body`, field);
  }
  const issue = error.issues[0];
  const field = typeof issue?.path[0] === 'string' ? issue.path[0] : 'body';
  const message = issue === undefined ? 'is not valid' : issue.code === 'invalid_type' && issue.received === 'undefined' ? 'is required' : issue.message;
  return new ApiError('invalid_parameter', field === 'body' ? `body: ${message === 'Required' ? 'send a JSON object' : message}` : `${field} ${message}`, field);
}
