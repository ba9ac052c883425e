import { AsyncLocalStorage } from 'node:async_hooks';

/** What a piece of work has to finish by: an absolute time in epoch milliseconds. */
interface DeadlineScope {
  readonly at: number;
}

const scopes = new AsyncLocalStorage<DeadlineScope | undefined>();

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

/**
 * Runs `work` with a deadline `ms` from now: every PostgreSQL statement it sends (directly or
 * through Drizzle, in a transaction or not) is abandoned and cancelled on the server when the
 * deadline passes, and a statement it would send later fails at once. Waiting for a connection
 * counts: a pool stalled on a database that accepts connections but never answers fails the
 * work at its deadline, not at the driver's connect timeout.
 */
export function withDeadline<T>(ms: number, work: () => T): T {
  return scopes.run({ at: Date.now() + ms }, work);
}

/**
 * Runs `work` outside any deadline: background work that a request started but that must not
 * die with it (a flush of counters, a timer created on the request's path).
 */
export function withoutDeadline<T>(work: () => T): T {
  return scopes.run(undefined, work);
}

/** The deadline in force here (epoch ms), or undefined. */
export function currentDeadline(): number | undefined {
  return scopes.getStore()?.at;
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
