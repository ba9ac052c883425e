import type { Contract, Name } from '@domain-index/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import { ApiError } from '@domain-index/api-errors/api-error';
import { orQueryFailed } from '@domain-index/api-errors/query-failed';
import { parseNameInput } from '@domain-index/names/name-input';
import { readName } from '@domain-index/names/name-page';
import type { RouteDeps } from '../app';
import { META } from '../http/meta';
import { setRowsReturned } from '../usage/count-usage';

/** What `?refresh=true` says when this server has no registration checks configured. */
const NO_CHECKS: Name['refresh'] = { outcome: 'failed', message: 'registration checks are not configured on this server: the registration shown is the last one stored' };

/**
 * GET /api/v1/names/{domain}: any valid name, listed or not, with every listing of it, its
 * registration and its history, read on a replica when there are replicas.
 */
export function nameRoute(deps: RouteDeps): AppRouteImplementation<Contract['getName']> {
  return async ({ params, query, res }) => {
    const input = parseNameInput(params.domain);
    if ('refused' in input) throw new ApiError('invalid_domain', input.refused);
    const name = await orQueryFailed(() => deps.reads.read('name', (database) => readName(database, input.domainName, deps.clock.now())));
    setRowsReturned(res, name.listings.length);
    return { status: 200, body: { object: 'name', data: { ...name, refresh: query.refresh === true ? NO_CHECKS : null }, meta: META } };
  };
}
