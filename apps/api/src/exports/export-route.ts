import type { Contract } from '@domain-index/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Response } from 'express';
import type { Readable } from 'node:stream';
import type { RouteDeps } from '../app';
import type { Caller } from '../auth/authenticate';
import { chargeExport } from './export-charge';
import type { ListingExports } from './listing-exports';

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
export function exportRoute(
  deps: RouteDeps,
  exports: ListingExports,
): AppRouteImplementation<Contract['exportDomains']> {
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

/** A key's export is counted against its own hourly allowance, beside the request the rate-limit step counted. */
async function chargeFor(
  deps: RouteDeps,
  caller: Caller,
  res: Response,
  count: number,
  now: Date,
): Promise<void> {
  const { plan } = caller;
  await chargeExport(
    deps.rateLimiter,
    {
      bucket: caller.keyId,
      planId: plan.id,
      exportRowsMax: plan.exportRowsMax,
      limit: plan.limit,
      windowSeconds: plan.windowSeconds,
      alreadyCounted: 1,
      words: {
        noun: 'export',
        holder: 'this key has',
        narrow: 'narrow the filters',
        retry: (seconds) => `retry after ${seconds} s`,
      },
      onDecision: (remaining, secondsToReset) => {
        res.setHeader('X-RateLimit-Remaining', String(remaining));
        res.setHeader('RateLimit', `"hourly";r=${remaining};t=${secondsToReset}`);
      },
    },
    count,
    now,
  );
}
