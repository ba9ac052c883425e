import type { Contract } from '@domain-index/contract';
import { listings, and, asc, desc, eq, sql } from '@domain-index/db';
import { parseLookupDomain } from '@domain-index/indexer';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { AppDeps } from '../app';
import { ApiError } from '../http/api-error';
import { META } from '../http/meta';
import { orQueryFailed } from '../http/query-failed';
import { notEnded } from '../listings/not-ended';
import { toDomain } from '../listings/to-domain';

/**
 * The listing a lookup returns when several marketplaces list the name (decisions.md):
 * auction, then available, then dropping; then the most recently checked; then the source id
 * so that the choice is total.
 */
const statusPreference = sql`case ${listings.status} when 'auction' then 0 when 'available' then 1 else 2 end`;

/** GET /api/v1/domains/{domain}: one listed domain, only lowercased, never converted. */
export function lookupRoute(deps: AppDeps): AppRouteImplementation<Contract['getDomain']> {
  return async ({ params }) => {
    const name = parseLookupDomain(params.domain);
    if (name === null) {
      throw new ApiError('invalid_domain', `${params.domain.toLowerCase()} is not a valid domain name`);
    }
    const now = deps.clock.now();
    const [row] = await orQueryFailed(() =>
      deps.database.db
        .select()
        .from(listings)
        .where(and(eq(listings.domainName, name.domainName), notEnded(now)))
        .orderBy(statusPreference, desc(listings.lastCheckedAt), asc(listings.source))
        .limit(1),
    );
    if (row === undefined) {
      throw new ApiError('domain_not_found', `${name.domainName} is not currently listed on any supported marketplace`);
    }
    return { status: 200, body: { object: 'domain', data: toDomain(row), meta: META } };
  };
}
