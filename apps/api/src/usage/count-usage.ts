import type { RequestHandler, Response } from 'express';
import type { Caller } from '../auth/authenticate';
import type { Clock } from '@domain-index/runtime/clock';
import type { UsageRecorder } from './usage-recorder';

/** Routes say how many rows a response returned; a request without this returned none. */
export function setRowsReturned(res: Pick<Response, 'locals'>, rows: number): void {
  res.locals.rowsReturned = rows;
}

/**
 * Counts every request that authenticated (whatever its answer, as the rate limit does) for its
 * key, by outcome, once its response is finished: one in-memory increment, flushed in batches.
 */
export function countUsage(usage: UsageRecorder, clock: Clock): RequestHandler {
  return (_req, res, next) => {
    // a response finishes once: `on` spares the wrapper `once` allocates per request
    res.on('finish', () => {
      const caller = res.locals.caller as Caller | undefined;
      if (caller !== undefined) usage.record(caller.keyId, (res.locals.rowsReturned as number | undefined) ?? 0, clock.now(), res.statusCode);
    });
    next();
  };
}
