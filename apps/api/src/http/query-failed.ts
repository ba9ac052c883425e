import { ApiError } from './api-error';

/**
 * Runs a database step of a request; any failure becomes 503 `query_failed` (never an empty
 * 200). The cause is kept for the log, never sent.
 */
export async function orQueryFailed<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    throw new ApiError('query_failed', 'the query could not complete; please retry', undefined, {}, cause);
  }
}
