import type { Response } from 'express';
import type { Finisher } from '../http/after-response';
import type { Caller } from '../auth/authenticate';
import type { Clock } from '@domain-index/runtime/clock';
import type { UsageRecorder } from './usage-recorder';
import { requestNow } from '../http/request-now';

/** Routes say how many rows a response returned; a request without this returned none. */
export function setRowsReturned(res: Pick<Response, 'locals'>, rows: number): void {
  res.locals.rowsReturned = rows;
}

/**
 * Counts every request that authenticated (whatever its answer, as the rate limit does) for its
 * key, by outcome, once its response is finished: one in-memory increment, flushed in batches.
 */
export function countUsage(usage: UsageRecorder, clock: Clock): Finisher {
  return (_req, res) => {
    const caller = res.locals.caller as Caller | undefined;
    if (caller !== undefined) usage.record(caller.keyId, (res.locals.rowsReturned as number | undefined) ?? 0, requestNow(res, clock), res.statusCode);
  };
}
