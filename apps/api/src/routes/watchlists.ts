import type { Contract } from '@domain-index/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Request, Response } from 'express';
import { ownerOfKey } from '@domain-index/alerts/alert-store';
import { orQueryFailed } from '@domain-index/api-errors/query-failed';
import type { WatchlistActions, WatchlistActor } from '@domain-index/names/watchlist-actions';
import type { RouteDeps } from '../app';
import { callerOf } from './alerts';
import { databaseOf } from '../http/request-deadline';

type Handlers = Pick<
  { [K in keyof Contract]: AppRouteImplementation<Contract[K]> },
  'createWatchlist' | 'listWatchlists' | 'getWatchlist' | 'updateWatchlist' | 'deleteWatchlist' | 'addWatchedDomains' | 'listWatchedDomains' | 'removeWatchedDomain'
>;

/** The key acting on watchlists: they belong to its account, or to it without one (as alerts). */
async function watchActor(deps: Pick<RouteDeps, 'database'>, req: Pick<Request, 'ip'>, res: Response): Promise<WatchlistActor> {
  const { keyId } = callerOf(res);
  const { owner } = await orQueryFailed(() => ownerOfKey(databaseOf(res, deps), keyId));
  return { owner, keyId, ip: req.ip };
}

/** The plan's number of watched names, as WatchlistActions checks it. */
const watchPlan = (res: Response) => {
  const { plan } = callerOf(res);
  return { id: plan.id, watchLimit: plan.watchLimit };
};

/**
 * The watchlist endpoints over the rules of WatchlistActions: another owner's watchlist answers
 * 404 exactly as a made-up id does, for every verb.
 */
export function watchlistRoutes(deps: RouteDeps, actions: WatchlistActions): Handlers {
  /** The actions on this request's view of the database, bounded by its deadline. */
  const acting = (res: Response) => actions.on(databaseOf(res, deps));
  return {
    createWatchlist: async ({ body, req, res }) => ({ status: 201, body: await acting(res).create(await watchActor(deps, req, res), watchPlan(res), body) }),

    listWatchlists: async ({ req, res }) => ({ status: 200, body: { object: 'list', data: await acting(res).list((await watchActor(deps, req, res)).owner) } }),

    getWatchlist: async ({ params, req, res }) => ({ status: 200, body: await acting(res).get((await watchActor(deps, req, res)).owner, params.id) }),

    updateWatchlist: async ({ params, body, req, res }) => ({ status: 200, body: await acting(res).rename(await watchActor(deps, req, res), params.id, body.name) }),

    deleteWatchlist: async ({ params, req, res }) => {
      const { id } = await acting(res).delete(await watchActor(deps, req, res), params.id);
      return { status: 200, body: { object: 'watchlist', id, deleted: true } };
    },

    addWatchedDomains: async ({ params, body, req, res }) => ({ status: 200, body: await acting(res).addDomains(await watchActor(deps, req, res), watchPlan(res), params.id, body.domains) }),

    listWatchedDomains: async ({ params, query, req, res }) => {
      const { items, nextCursor } = await acting(res).domains((await watchActor(deps, req, res)).owner, params.id, { after: query.after, limit: query.limit });
      return { status: 200, body: { object: 'list', data: items, pagination: { page_size: query.limit, next_cursor: nextCursor, has_more: nextCursor !== null } } };
    },

    removeWatchedDomain: async ({ params, req, res }) => {
      const { domainName } = await acting(res).removeDomain(await watchActor(deps, req, res), params.id, params.domain);
      return { status: 200, body: { object: 'watched_domain', domain_name: domainName, deleted: true } };
    },
  };
}
