/**
 * Deadlines on database work: a request's statements must finish by the request's deadline.
 * The deadline is carried explicitly, by a view of the database (`Database.until`), not by an
 * AsyncLocalStorage scope: on Node 20 a single scope entered anywhere turns on promise hooks
 * for every promise of the process after it (their cost per lookup: bench/notes/80).
 */

/**
 * Thrown by a statement that could not finish (or start) before the deadline of the work it
 * belongs to. The database did not answer in time, so a retry may succeed: it is classified as
 * `unavailable`, like a statement timeout.
 */
export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';
  /** Read by classifyDatabaseFailure, as a driver's own code would be. */
  readonly code = 'DEADLINE_EXCEEDED';

  constructor(budgetMs?: number) {
    super(budgetMs === undefined ? 'the deadline passed before the database answered' : `the database did not answer within ${budgetMs} ms`);
  }
}

/** Whether a failure is a deadline that passed, however wrapped (Drizzle keeps the driver's error as `cause`). */
export function isDeadlineExceeded(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if (current instanceof DeadlineExceededError) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
