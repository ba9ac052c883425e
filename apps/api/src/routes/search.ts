import type { Contract } from '@domain-index/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { AppDeps } from '../app';
import { ApiError } from '../http/api-error';

/** GET /api/v1/domains. */
export function searchRoute(_deps: AppDeps): AppRouteImplementation<Contract['searchDomains']> {
  return () => {
    throw new ApiError('query_failed', 'search is not available yet');
  };
}
