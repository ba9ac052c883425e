import type { Router } from 'express';
import { strictRouter } from '../../http/strict-router';
import type { DashboardDeps } from '../dashboard-deps';
import { alertActionRoutes } from './alert-actions-routes';
import { alertDownload } from './alert-download';
import { alertPage } from './alert-page';
import { alertsListPage } from './alerts-list-page';
import { secretRevealPage } from './secret-reveal';

/**
 * The alerts' pages, mounted by dashboard-router.ts under the signed-in paths (NAV's `/alerts`):
 * the list and its form, the page that shows a new secret once, an alert's page, its actions,
 * and the download of the listings its filter matches.
 * The secret's page comes first: `/alerts/new/<id>` is not an alert's action.
 */
export function alertsPages(deps: DashboardDeps): Router {
  const router = strictRouter();
  router.use(alertsListPage(deps));
  router.use(secretRevealPage(deps));
  router.use(alertPage(deps));
  router.use(alertActionRoutes(deps));
  router.use(alertDownload(deps));
  return router;
}
