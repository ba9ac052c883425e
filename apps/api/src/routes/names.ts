import type { Contract, Name } from '@domain-index/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Response } from 'express';
import { ApiError } from '@domain-index/api-errors/api-error';
import { orQueryFailed } from '@domain-index/api-errors/query-failed';
import { parseNameInput } from '@domain-index/names/name-input';
import { readName, registrationRow } from '@domain-index/names/name-page';
import { recordCheck } from '@domain-index/names/registration-record';
import type { RouteDeps } from '../app';
import { META } from '../http/meta';
import { RateLimiterUnavailableError } from '../ratelimit/rate-limiter';
import { setRowsReturned } from '../usage/count-usage';
import { callerOf } from './alerts';
import { databaseOf, readsOf } from '../http/request-deadline';

/** A check younger than this is not repeated for `refresh=true`. */
export const REFRESH_AFTER_MS = 10 * 60_000;

/** What `refresh=true` says when this server has no registration checks configured. */
const NO_CHECKS: NonNullable<Name['refresh']> = { outcome: 'failed', message: 'registration checks are not configured on this server: the registration shown is the last one stored' };

/**
 * Asks RDAP about the name now, unless its last check is under 10 minutes old: counted against
 * the key's refreshes of the hour (its plan's rdap_refreshes_per_hour, in the rate limiter's
 * store, so across instances with Redis), and recorded as the worker records its own checks.
 */
async function refresh(deps: RouteDeps, res: Response, domainName: string): Promise<NonNullable<Name['refresh']>> {
  const now = deps.clock.now();
  const stored = await orQueryFailed(() => registrationRow(databaseOf(res, deps), domainName));
  if (stored?.checkedAt != null && now.getTime() - stored.checkedAt.getTime() < REFRESH_AFTER_MS) return { outcome: 'recent', message: null };
  if (deps.rdap === undefined) return NO_CHECKS;
  const { keyId, plan } = callerOf(res);
  const policy = { limit: plan.rdapRefreshesPerHour, windowSeconds: 3600 };
  const decision = await deps.rateLimiter.consume(`rdap-refresh:${keyId}`, policy, now).catch((error: unknown) => {
    if (error instanceof RateLimiterUnavailableError) {
      throw new ApiError('rate_limit_unavailable', 'the rate limiter is unavailable, so the refresh is refused rather than made uncounted; please retry', undefined, { 'Retry-After': '1' }, error);
    }
    throw error;
  });
  if (!decision.allowed) {
    const seconds = Math.max(1, Math.ceil(decision.resetAt - now.getTime() / 1000));
    throw new ApiError(
      'refresh_limit_reached',
      `your plan (${plan.id}) allows ${policy.limit} registration checks an hour and you have used them; the next is possible in ${seconds.toLocaleString('en-US')} s (the stored registration is returned without refresh=true)`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  }
  const result = await deps.rdap.check(domainName);
  await orQueryFailed(() => recordCheck(databaseOf(res, deps), domainName, result, deps.clock.now()));
  if ('registration' in result) return { outcome: 'checked', message: null };
  // the outcome and the registry's host: what failed and where, never a library's own text
  return { outcome: 'failed', message: `the registry at ${hostOf(result.server)} did not answer (${result.outcome}); the registration shown is the last one stored` };
}

function hostOf(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return 'its RDAP server';
  }
}

/**
 * GET /api/v1/names/{domain}: any valid name, listed or not, with every listing of it, its
 * registration and its history; read on a replica, or on the primary right after a refresh.
 */
export function nameRoute(deps: RouteDeps): AppRouteImplementation<Contract['getName']> {
  return async ({ params, query, res }) => {
    const input = parseNameInput(params.domain);
    if ('refused' in input) throw new ApiError('invalid_domain', input.refused);
    const refreshed = query.refresh === true ? await refresh(deps, res, input.domainName) : null;
    const reads = readsOf(res, deps);
    const read = refreshed?.outcome === 'checked' ? reads.readPrimary.bind(reads) : reads.read.bind(reads);
    const name = await orQueryFailed(() => read('name', (database) => readName(database, input.domainName, deps.clock.now())));
    setRowsReturned(res, name.listings.length);
    return { status: 200, body: { object: 'name', data: { ...name, refresh: refreshed }, meta: META } };
  };
}
