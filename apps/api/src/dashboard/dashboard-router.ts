import express, { type ErrorRequestHandler, type NextFunction, type Request, type Response, type Router } from 'express';
import { findAccount } from '@domain-index/accounts/account-store';
import { redactUrl } from '../http/request-log';
import { strictRouter } from '../http/strict-router';
import { sessionAccount } from '@domain-index/accounts/sessions';
import { routesUnder } from '../ops/request-metrics';
import { accountPages } from './account-pages';
import { dashboardAssets } from './assets';
import { auditPage } from './audit-page';
import { handle, signedIn, type DashboardDeps } from './dashboard-deps';
import { html } from '@domain-index/html/html';
import { keysPages } from './keys-pages';
import { forgotPasswordPages } from './forgot-password-pages';
import { DASHBOARD, NAV, page } from './layout';
import { requestsPage } from './requests-page';
import { alertsPages } from './alerts/alerts-router';
import { watchlistsPages } from './watchlists/watchlists-router';
import { sendNotFound } from './not-found';
import { usagePage } from './usage-page';
import { dashboardHeaders, sameOriginOnly } from './security';
import { FORM_LIMITS, requestRefusal } from './request-refusal';
import { readSessionCookie } from './session-cookie';
import { signInPages } from './sign-in-pages';
import { databaseOf } from '../http/request-deadline';

/** The paths only a signed-in account may open (and those below them); a signed-out visitor is sent to sign in. */
const SIGNED_IN_ONLY = NAV.map((entry) => entry.path);

/**
 * The key dashboard, mounted at /dashboard by createApp: server-rendered pages whose every
 * action is a form that posts (then redirects, or shows a new key once), so it works without
 * JavaScript. Nothing under /api/v1 changes.
 */
export function dashboardRouter(deps: DashboardDeps): Router {
  const router = strictRouter();
  const secure = deps.publicUrl.startsWith('https://');
  router.use(routesUnder(DASHBOARD));
  router.use(dashboardHeaders);
  router.use('/assets', dashboardAssets());
  // a pasted list of up to 1,000 names needs more room than other forms; parsed once, here first
  router.use('/watchlists', express.urlencoded({ extended: false, limit: FORM_LIMITS.namesBytes, parameterLimit: FORM_LIMITS.fields }));
  router.use(express.urlencoded({ extended: false, limit: FORM_LIMITS.bytes, parameterLimit: FORM_LIMITS.fields }));
  router.use(sameOriginOnly(new URL(deps.publicUrl).origin));
  // The signed-in account, when the session cookie names a live session of an enabled account.
  router.use(
    handle(async (req, res) => {
      const token = readSessionCookie(req, secure);
      if (token === undefined) return;
      const accountId = await sessionAccount(databaseOf(res, deps), token, deps.clock.now());
      const account = accountId === undefined ? undefined : await findAccount(databaseOf(res, deps), accountId);
      if (account === undefined || account.disabledAt !== null) return;
      res.locals.account = account;
      res.locals.sessionToken = token;
    }, true),
  );
  router.get('/', (_req, res) => {
    res.redirect(303, signedIn(res) === undefined ? `${DASHBOARD}/sign-in` : `${DASHBOARD}/keys`);
  });
  router.use(signInPages(deps));
  router.use(forgotPasswordPages(deps));
  // Only under the signed-in paths: any other path is a 404, signed in or not.
  router.use(SIGNED_IN_ONLY, (_req: Request, res: Response, next: NextFunction) => {
    if (signedIn(res) === undefined) res.redirect(303, `${DASHBOARD}/sign-in`);
    else next();
  });
  router.use(keysPages(deps));
  router.use(usagePage(deps));
  router.use(requestsPage(deps));
  router.use(alertsPages(deps));
  router.use(watchlistsPages(deps));
  router.use(auditPage(deps));
  router.use(accountPages(deps));
  router.use((_req: Request, res: Response) => {
    sendNotFound(res);
  });
  const failed: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const refusal = requestRefusal(error);
    if (refusal !== undefined) {
      res.status(refusal.status).send(page({ title: refusal.title, email: signedIn(res)?.email, body: html`<p>${refusal.fix}</p>` }));
      return;
    }
    // The URL redacted: a set-password path carries a live one-time token.
    deps.logger.error({ err: error, url: redactUrl(req.originalUrl) }, 'dashboard page failed');
    res.status(500).setHeader('Retry-After', '5');
    res.send(page({ title: 'Something went wrong', body: html`<p>The page could not be shown. It has been logged; please try again in a moment.</p>` }));
  };
  router.use(failed);
  return router;
}
