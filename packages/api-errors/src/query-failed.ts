import { classifyDatabaseFailure } from '@domain-index/db';
import { ApiError } from './api-error';

/** The answer to a failure that is our own fault: generic, with nothing of the cause in it. */
export const internalError = (cause?: unknown) =>
  new ApiError('internal_error', 'an unexpected error occurred; it has been logged, please retry', undefined, {}, cause);

/**
 * The answer to a failed database call. 503 (`whenUnavailable`) only when the database could not
 * serve it now (gone, out of time, out of resources): a retry may succeed. When the database
 * refused the statement itself (a data exception, a syntax or type error), the same request fails
 * however often it is retried, so it is our defect: 500 `internal_error`, logged at error level.
 * The cause is kept for the log, never sent.
 */
export function databaseFault(cause: unknown, whenUnavailable: (cause: unknown) => ApiError): ApiError {
  return classifyDatabaseFailure(cause).kind === 'unavailable' ? whenUnavailable(cause) : internalError(cause);
}

const queryFailed = (cause: unknown) =>
  new ApiError('query_failed', 'the query could not complete; please retry', undefined, {}, cause);

/**
 * Runs a database step of a request: a failure becomes 503 `query_failed` when the database was
 * unavailable or out of time (never an empty 200), and 500 `internal_error` when it refused the
 * statement (see databaseFault).
 */
export async function orQueryFailed<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    throw databaseFault(cause, queryFailed);
  }
}
