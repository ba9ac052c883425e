import type { Router } from 'express';
import { strictRouter } from '../../http/strict-router';
import type { DashboardDeps } from '../dashboard-deps';
import { watchlistPage } from './watchlist-page';
import { watchlistsListPage } from './watchlists-list-page';

/** The watchlists' pages, mounted by dashboard-router.ts under the signed-in paths (NAV's `/watchlists`). */
export function watchlistsPages(deps: DashboardDeps): Router {
  const router = strictRouter();
  router.use(watchlistsListPage(deps));
  router.use(watchlistPage(deps));
  return router;
}
