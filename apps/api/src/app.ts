import { contract, PATH_PREFIX } from '@domain-index/contract';
import type { Database } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import express, { type Express } from 'express';
import type { Clock } from '@domain-index/runtime/clock';
import type { TrustProxy } from '@domain-index/config/config';
import { apiDocsRouter } from './api-docs/api-docs-router';
import { probes } from './ops/probes-router';
import { Readiness } from '@domain-index/runtime/readiness';
import { errorHandler } from './http/error-handler';
import { notFoundOrMethodNotAllowed, pathPattern } from './http/fallback';
import { authenticate, revokeLeakedKey } from './auth/authenticate';
import { PlanCache } from './auth/plan-cache';
import { parseQueryString } from '@domain-index/listings/query-parser';
import { enforceRateLimit } from './ratelimit/enforce-rate-limit';
import type { RateLimiter } from './ratelimit/rate-limiter';
import { rejectKeyInQuery } from './http/reject-key-in-query';
import { requestDeadline } from './http/request-deadline';
import { requestId } from './http/request-id';
import { requestLog } from './http/request-log';
import { revokeKeysInUrl } from './http/revoke-keys-in-url';
import { noStore, securityHeaders } from './http/security-headers';
import type { Logger } from '@domain-index/runtime/logger';
import { keyCheckWithLookup } from './listings/lookup-with-key';
import { lookupRoute } from './routes/lookup';
import { searchRoute } from './routes/search';
import { exportRoute } from './exports/export-route';
import { ListingExports } from './exports/listing-exports';
import { statsRoute } from './routes/stats';
import { alertRoutes } from './routes/alerts';
import { nameRoute } from './routes/names';
import type { RdapClient } from '@domain-index/rdap';
import { watchlistRoutes } from './routes/watchlists';
import { WatchlistActions } from '@domain-index/names/watchlist-actions';
import { alertDeliveryRoutes } from './routes/alert-deliveries';
import { AlertActions } from '@domain-index/alerts/alert-actions';
import { AlertContext, type AlertSettings } from '@domain-index/alerts/alert-deps';
import { jsonBody } from './http/json-body';
import { UNSUBSCRIBE_PATH, unsubscribeRouter } from './alerts/unsubscribe-router';
import { confirmEmailRouter } from './alerts/confirm-email-router';
import { CONFIRM_EMAIL_PATH } from '@domain-index/alerts/digest-recipients';
import { eventsRoute } from './routes/events';
import { EventCursorCodec } from '@domain-index/events/event-cursor';
import { CursorCodec } from './search/cursor';
import { argon2Passwords } from '@domain-index/accounts/passwords';
import type { DashboardOptions } from './dashboard/dashboard-deps';
import { dashboardRouter } from './dashboard/dashboard-router';
import { DASHBOARD } from './dashboard/layout';
import { countUsage } from './usage/count-usage';
import type { ApiMetrics } from './ops/api-metrics';
import { measureRequests } from './ops/request-metrics';
import { PrimaryReads, type ReadNodes } from './replicas/read-nodes';
import type { UsageRecorder } from './usage/usage-recorder';
import { recordRequests } from './request-log/record-requests';
import type { RequestLogRecorder } from './request-log/request-log-recorder';
import { sendJson } from './wire/send-json';
import { sequence } from './http/sequence';
import { afterResponse } from './http/after-response';
import { rootRouter, ROOT_ENDPOINT } from './http/root';
import { MCP_PATH, mcpRouter } from './mcp/mcp-router';

/** What the app needs from outside; tests pass their own to run several instances side by side. */
export interface AppDeps {
  database: Database;
  logger: Logger;
  clock: Clock;
  /** The configured marketplaces: valid `source` values and the keys of `by_source`. */
  sources: readonly SourceConfig[];
  countBudgetMs: number;
  queryTimeoutMs: number;
  /** Longest one export may stream (EXPORT_TIMEOUT_MS); 30 minutes without it. */
  exportTimeoutMs?: number | undefined;
  /** Longest one measurement of the stats may take (STATS_TIMEOUT_MS); 60 s without it. */
  statsTimeoutMs?: number | undefined;
  /** The alerts' secret box, webhook allow-list and whether email digests can be sent. */
  alerts?: AlertSettings | undefined;
  /** How long the change feed keeps events (EVENT_RETENTION_DAYS): named in a 410's message. */
  eventRetentionDays?: number | undefined;
  /** Signs search cursors; shared by every instance (see @domain-index/runtime/cursor-secret). */
  cursorSecret: Buffer;
  /** Per-key request counting: in-process, or Redis shared by every instance. */
  rateLimiter: RateLimiter;
  /** Registration checks for `GET /names/{domain}?refresh=true`; without it a refresh says checks are not configured. */
  rdap?: RdapClient | undefined;
  /** Requests and rows per key and hour for the dashboard; nothing is counted without it. */
  usage?: UsageRecorder | undefined;
  /** The dashboard's per-key request log; nothing is logged without it. */
  requestLog?: RequestLogRecorder | undefined;
  /** What /readyz answers; without it the instance is ready whenever the database answers. */
  readiness?: Readiness | undefined;
  /** The process's Prometheus metrics; this app observes its requests, statements and decisions there. */
  metrics: ApiMetrics;
  /** Where reads run; without it, on `database`. */
  reads?: ReadNodes | undefined;
  /** The key dashboard at /dashboard; not served without it. */
  dashboard?: DashboardOptions | undefined;
  /** Whose X-Forwarded-For gives the client address (the limits and the audit log); nobody's without it. */
  trustProxy?: TrustProxy | undefined;
  /** PUBLIC_URL when configured: the OpenAPI document's server; without it, each request's origin. */
  publicUrl?: string | undefined;
  /** The release's version (the CLI's), named to MCP clients; `dev` without it. */
  version?: string | undefined;
}

/** The dependencies as the routes see them: every optional one settled. */
export type RouteDeps = Omit<AppDeps, 'reads'> & { reads: ReadNodes };

/** Builds the Express app of the API; `listen` is the caller's business. */
export function createApp(appDeps: AppDeps): Express {
  const deps: RouteDeps = { ...appDeps, reads: appDeps.reads ?? new PrimaryReads(appDeps.database, appDeps.metrics) };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', parseQueryString);
  // Behind a balancer every request comes from the balancer: only a configured proxy's
  // X-Forwarded-For may say who the client is (req.ip, for the limits and the audit log).
  app.set('trust proxy', deps.trustProxy ?? false);
  // One spelling of every path, in every router (see http/strict-router.ts): `/Dashboard` and
  // `/api/v1/stats/` are 404, so redaction and route labels see the paths they expect.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  // What every request passes before its route, in this order, as one layer (http/sequence.ts):
  // the security headers first, on every response; then the probes, before the access log, the
  // request id and everything else.
  app.use(
    sequence([
      securityHeaders({ https: deps.dashboard?.publicUrl.startsWith('https://') === true }),
      probes(deps.readiness ?? new Readiness(deps.database, { phase: 'ready' })),
      // the metrics, the usage counts and the request log, from one listener per request
      afterResponse([
        measureRequests(deps.metrics),
        ...(deps.usage === undefined ? [] : [countUsage(deps.usage, deps.clock)]),
        ...(deps.requestLog === undefined ? [] : [recordRequests(deps.requestLog, deps.clock)]),
      ], deps.logger),
      requestDeadline(deps.queryTimeoutMs),
      requestId(),
      requestLog(deps.logger),
      revokeKeysInUrl(revokeLeakedKey(deps)),
      sendJson(),
    ]),
  );
  // One service for alerts behind the API and the dashboard alike.
  const alertActions = new AlertActions(deps, new AlertContext(deps.database, deps.alerts));
  const watchlistActions = new WatchlistActions(deps);
  // One export machinery behind the API's exports and the dashboard's downloads.
  const listingExports = new ListingExports(deps);
  // Answers about alerts carry signing secrets (create, rotate, a first webhook) and webhook URLs
  // (a token in the path): no cache keeps any of them, errors included.
  app.use(`${PATH_PREFIX}/alerts`, noStore);
  app.use(PATH_PREFIX, ...jsonBody());

  const s = initServer();
  const router = s.router(contract, {
    searchDomains: searchRoute(deps, new CursorCodec(deps.cursorSecret)),
    exportDomains: exportRoute(deps, listingExports),
    getDomain: lookupRoute(deps),
    listEvents: eventsRoute(deps, new EventCursorCodec(deps.cursorSecret)),
    ...alertRoutes(deps, alertActions),
    ...alertDeliveryRoutes(deps, alertActions),
    getName: nameRoute(deps),
    ...watchlistRoutes(deps, watchlistActions),
    getStats: statsRoute(deps),
  });
  createExpressEndpoints(contract, router, app, {
    logInitialization: false,
    // After a route matched and before its parameters are validated, in the order of
    // decisions.md: key in the URL (revoked already by revokeKeysInUrl), authentication and
    // plan, rate limit.
    globalMiddleware: [
      rejectKeyInQuery(),
      authenticate({ ...deps, plans: new PlanCache(deps.reads, deps.clock), keyCheck: keyCheckWithLookup(deps) }),
      enforceRateLimit(deps),
    ],
    // Validation failures go to errorHandler, which answers them in the error envelope.
    requestValidationErrorHandler: (error, _req, _res, next) => {
      next(error);
    },
  });

  // The pages come after the API's routes: their paths never meet /api/v1, so an API request
  // (nearly all of the traffic) no longer walks through their routers on its way.
  if (deps.dashboard !== undefined) app.use(DASHBOARD, dashboardRouter({ ...deps, passwords: argon2Passwords, alerts: alertActions, watchlists: watchlistActions, listingExports, ...deps.dashboard }));
  app.use(apiDocsRouter({ publicUrl: deps.publicUrl }));
  app.use(rootRouter({ dashboard: deps.dashboard !== undefined }));
  app.use(UNSUBSCRIBE_PATH, unsubscribeRouter({ database: deps.database, clock: deps.clock, secret: deps.cursorSecret }));
  app.use(CONFIRM_EMAIL_PATH, confirmEmailRouter({ database: deps.database, clock: deps.clock }));
  app.use(MCP_PATH, mcpRouter(deps));

  const endpoints = [...Object.values(contract).map((route) => ({ pattern: pathPattern(route.path), methods: [route.method] })), ROOT_ENDPOINT];
  app.use(notFoundOrMethodNotAllowed(endpoints));
  app.use(errorHandler(deps.logger));
  return app;
}
