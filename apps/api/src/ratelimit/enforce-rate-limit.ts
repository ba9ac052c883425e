import type { NextFunction, Response } from 'express';
import type { Caller } from '../auth/authenticate';
import type { Clock } from '@domain-index/runtime/clock';
import { ApiError } from '@domain-index/api-errors/api-error';
import type { ApiMetrics } from '../ops/api-metrics';
import { RateLimiterUnavailableError, type RateLimiter } from './rate-limiter';
import { requestNow } from '../http/request-now';

/** Seconds to wait when the rate-limit store is down. */
const UNAVAILABLE_RETRY_AFTER = 5;

/**
 * Step 4 of decisions.md: the request counts against its key's window, whatever follows.
 * Rate-limit headers go on every response from here on: the limit and window always, the live
 * usage when it is known; the IETF draft fields alongside.
 */
export function enforceRateLimit(deps: { rateLimiter: RateLimiter; clock: Clock; metrics: ApiMetrics }) {
  return (_req: unknown, res: Response, next: NextFunction): void => {
    const { keyId, plan } = res.locals.caller as Caller;
    res.setHeader('X-RateLimit-Limit', String(plan.limit));
    res.setHeader('X-RateLimit-Window', String(plan.windowSeconds));
    res.setHeader('RateLimit-Policy', `"hourly";q=${plan.limit};w=${plan.windowSeconds}`);
    const now = requestNow(res, deps.clock);
    deps.rateLimiter.consume(keyId, { limit: plan.limit, windowSeconds: plan.windowSeconds }, now).then(
      (decision) => {
        const secondsToReset = Math.max(0, Math.ceil(decision.resetAt - now.getTime() / 1000));
        res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
        res.setHeader('X-RateLimit-Reset', String(decision.resetAt));
        res.setHeader('RateLimit', `"hourly";r=${decision.remaining};t=${secondsToReset}`);
        deps.metrics.rateLimitDecisions.inc({ decision: decision.allowed ? 'allowed' : 'limited' });
        if (decision.allowed) {
          next();
          return;
        }
        next(
          new ApiError('rate_limited', `this key has used its ${plan.limit} requests of the current window; retry after ${secondsToReset} s`, undefined, {
            'Retry-After': String(secondsToReset),
          }),
        );
      },
      (error: unknown) => {
        if (!(error instanceof RateLimiterUnavailableError)) {
          next(error);
          return;
        }
        deps.metrics.rateLimitDecisions.inc({ decision: 'unavailable' });
        next(
          new ApiError('rate_limit_unavailable', 'the rate limiter is unavailable, so the request is refused rather than served unmetered; please retry', undefined, {
            'Retry-After': String(UNAVAILABLE_RETRY_AFTER),
          }, error),
        );
      },
    );
  };
}
