import type { Contract } from '@domain-index/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { RouteDeps } from '../app';
import { ApiError } from '@domain-index/api-errors/api-error';
import { META } from '../http/meta';
import { orQueryFailed } from '@domain-index/api-errors/query-failed';
import { findListing } from '../listings/lookup-query';
import { prefetchedListing } from '../listings/lookup-with-key';
import { lookupNameOf } from '../listings/lookup-name';
import { setRowsReturned } from '../usage/count-usage';
import { readsOf } from '../http/request-deadline';
import { requestNow } from '../http/request-now';

/** GET /api/v1/domains/{domain}: one listed domain, only lowercased, never converted. */
export function lookupRoute(deps: RouteDeps): AppRouteImplementation<Contract['getDomain']> {
  return async ({ params, res }) => {
    const name = lookupNameOf(res, params.domain);
    if (name === null) {
      throw new ApiError('invalid_domain', `${params.domain.toLowerCase()} is not a valid domain name`);
    }
    // Usually read already, in one statement with the key (listings/lookup-with-key.ts).
    const prefetched = prefetchedListing(res, name.domainName);
    const domain = prefetched !== undefined ? prefetched.domain : await orQueryFailed(() => readsOf(res, deps).read('lookup', (database) => findListing(database, name.domainName, requestNow(res, deps.clock))));
    if (domain === undefined) {
      throw new ApiError('domain_not_found', `${name.domainName} is not currently listed on any supported marketplace`);
    }
    setRowsReturned(res, 1);
    return { status: 200, body: { object: 'domain', data: domain, meta: META } };
  };
}
