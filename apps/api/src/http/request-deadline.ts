import { DeadlineExceededError, type Database } from '@domain-index/db';
import type { RequestHandler, Response } from 'express';
import { readsUntil, type ReadNodes } from '../replicas/read-nodes';

/**
 * Gives every request a deadline of `ms` from its arrival: each database statement it makes,
 * waiting for a connection included, is abandoned and cancelled when the deadline passes, and
 * the request answers 503 (`query_failed`, `key_lookup_unavailable`, `plan_lookup_unavailable`)
 * with Retry-After. With the database stalled (connections accepted but never answered, a
 * pooler paused), a request took up to 60 s before; now it takes `ms`, QUERY_TIMEOUT_MS.
 *
 * The deadline is kept on the response; handlers reach the database through `databaseOf` and
 * `readsOf`, whose views carry it to every statement (see @domain-index/db's deadline.ts for
 * why not through an AsyncLocalStorage scope).
 */
export function requestDeadline(ms: number): RequestHandler {
  return (_req, res, next) => {
    res.locals.deadline = Date.now() + ms;
    next();
  };
}

type Locals = Pick<Response, 'locals'>;

/** The request's deadline (epoch ms), or undefined for a request that has none. */
function deadlineOf(res: Locals): number | undefined {
  return res.locals.deadline as number | undefined;
}

/** The database as this request may use it: bound by its deadline. Made once per request. */
export function databaseOf(res: Locals, deps: { database: Database }): Database {
  const deadline = deadlineOf(res);
  if (deadline === undefined) return deps.database;
  return ((res.locals.database as Database | undefined) ??= deps.database.until(deadline));
}

/** The read nodes as this request may use them: every node's statements bound by its deadline. */
export function readsOf(res: Locals, deps: { reads: ReadNodes }): ReadNodes {
  const deadline = deadlineOf(res);
  if (deadline === undefined) return deps.reads;
  return ((res.locals.reads as ReadNodes | undefined) ??= readsUntil(deps.reads, deadline));
}

/**
 * Waits for work the request does not own (work shared by several requests, bounded by its own
 * timeout) until the request's deadline: past it, the request fails as a statement past its
 * deadline would (503, retry), and the work goes on for whoever asks next.
 */
export async function waitUntilDeadline<T>(res: Locals, work: Promise<T>): Promise<T> {
  const deadline = deadlineOf(res);
  if (deadline === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const passed = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceededError()), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, passed]);
  } finally {
    clearTimeout(timer);
  }
}
