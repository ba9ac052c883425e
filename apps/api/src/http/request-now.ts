import type { Response } from 'express';
import type { Clock } from '@domain-index/runtime/clock';

/**
 * The time of a request, read from the clock the first time a step asks and shared by every
 * step after it: the key check, the plan, the rate limit, the listing's "now", the usage hour
 * and the request log all see one instant. Each step used to read the clock itself, making a
 * Date each time, six per lookup (bench/notes/80).
 */
export function requestNow(res: Pick<Response, 'locals'>, clock: Clock): Date {
  return ((res.locals.now as Date | undefined) ??= clock.now());
}
