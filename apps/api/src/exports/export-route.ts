import { EXPORT_LIMITS, exportCost, type Contract } from '@domain-index/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Response } from 'express';
import type { Readable } from 'node:stream';
import { ApiError } from '@domain-index/api-errors/api-error';
import type { RouteDeps } from '../app';
import type { Caller } from '../auth/authenticate';
import { RateLimiterUnavailableError } from '../ratelimit/rate-limiter';
import { limiterUnavailable, type ListingExports } from './listing-exports';

/**
 * A 200 whose body is a stream: ts-rest's Express adapter pipes a Stream body to the response
 * instead of serialising it; the contract types the body as the text it is on the wire.
 */
const streamed = (body: Readable) => ({ status: 200 as const, body: body as unknown as string });

/**
 * GET (and HEAD) /api/v1/exports/domains: the export of listing-exports.ts for the calling key.
 * Its count decides the cost (one request per started 1,000 rows against the key's hourly
 * limit, 429 when it does not fit), the plan's cap (403 export_too_large) and HEAD's
 * X-Total-Count, all before any row is sent; a key runs at most two exports at once.
 */
export function exportRoute(deps: RouteDeps, exports: ListingExports): AppRouteImplementation<Contract['exportDomains']> {
  return async ({ query, req, res }) => {
    const caller = res.locals.caller as Caller;
    const started = await exports.start(res, {
      query,
      head: req.method === 'HEAD',
      acceptEncoding: req.headers['accept-encoding'],
      slot: `export:${caller.keyId}`,
      holder: ['this key', 'one key'],
      charge: (count, now) => chargeFor(deps, caller, res, count, now),
    });
    return streamed(started.body);
  };
}

/**
 * The cost of an export, beyond the one request the rate-limit step counted already: one request
 * per started 1,000 rows, all of it or none; and the plan's cap on one export's rows.
 */
async function chargeFor(deps: RouteDeps, caller: Caller, res: Response, count: number, now: Date): Promise<void> {
  const { plan } = caller;
  if (plan.exportRowsMax !== null && count > plan.exportRowsMax) {
    throw new ApiError('export_too_large', `this export would stream ${count} rows and your plan (${plan.id}) allows ${plan.exportRowsMax} per export: narrow the filters, or move to a plan with more`);
  }
  const cost = exportCost(count);
  if (cost <= 1) return;
  let decision;
  try {
    decision = await deps.rateLimiter.reserve(caller.keyId, { limit: plan.limit, windowSeconds: plan.windowSeconds }, now, cost - 1);
  } catch (error) {
    if (error instanceof RateLimiterUnavailableError) throw limiterUnavailable(error);
    throw error;
  }
  const secondsToReset = Math.max(0, Math.ceil(decision.resetAt - now.getTime() / 1000));
  res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit', `"hourly";r=${decision.remaining};t=${secondsToReset}`);
  if (!decision.allowed) {
    throw new ApiError(
      'rate_limited',
      `this export would stream ${count} rows, which costs ${cost} requests (one per started ${EXPORT_LIMITS.rowsPerRequest} rows); this key has ${decision.remaining + 1} left in the current window, this request included: retry after ${secondsToReset} s, or narrow the filters`,
      undefined,
      { 'Retry-After': String(secondsToReset) },
    );
  }
}

