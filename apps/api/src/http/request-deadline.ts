import { withDeadline } from '@domain-index/db';
import type { RequestHandler } from 'express';

/**
 * Gives every request a deadline of `ms` from its arrival: each database statement it makes,
 * waiting for a connection included, is abandoned and cancelled when the deadline passes, and
 * the request answers 503 (`query_failed`, `key_lookup_unavailable`, `plan_lookup_unavailable`)
 * with Retry-After. With the database stalled (connections accepted but never answered, a
 * pooler paused), a request took up to 60 s before; now it takes `ms`, QUERY_TIMEOUT_MS.
 */
export function requestDeadline(ms: number): RequestHandler {
  return (_req, _res, next) => {
    withDeadline(ms, next);
  };
}
