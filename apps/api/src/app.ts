import { contract } from '@domain-index/contract';
import type { Database } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import express, { type Express } from 'express';
import type { Clock } from './clock';
import { errorHandler } from './http/error-handler';
import { notFoundOrMethodNotAllowed, pathPattern } from './http/fallback';
import { authenticate, revokeLeakedKey } from './auth/authenticate';
import { PlanCache } from './auth/plan-cache';
import { parseQueryString } from './http/query-parser';
import { enforceRateLimit } from './ratelimit/enforce-rate-limit';
import type { RateLimiter } from './ratelimit/rate-limiter';
import { rejectKeyInQuery } from './http/reject-key-in-query';
import { requestId } from './http/request-id';
import { requestLog } from './http/request-log';
import type { Logger } from './logger';
import { keyCheckWithLookup } from './listings/lookup-with-key';
import { lookupRoute } from './routes/lookup';
import { searchRoute } from './routes/search';
import { statsRoute } from './routes/stats';
import { CursorCodec } from './search/cursor';

/** What the app needs from outside; tests pass their own to run several instances side by side. */
export interface AppDeps {
  database: Database;
  logger: Logger;
  clock: Clock;
  /** The configured marketplaces: valid `source` values and the keys of `by_source`. */
  sources: readonly SourceConfig[];
  countBudgetMs: number;
  queryTimeoutMs: number;
  /** Signs search cursors; shared by every instance (see search/cursor-secret.ts). */
  cursorSecret: Buffer;
  /** Per-key request counting: in-process, or Redis shared by every instance. */
  rateLimiter: RateLimiter;
}

/** Builds the Express app of the API; `listen` is the caller's business. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', parseQueryString);

  app.use(requestId());
  app.use(requestLog(deps.logger));

  const s = initServer();
  const router = s.router(contract, {
    searchDomains: searchRoute(deps, new CursorCodec(deps.cursorSecret)),
    getDomain: lookupRoute(deps),
    getStats: statsRoute(deps),
  });
  createExpressEndpoints(contract, router, app, {
    logInitialization: false,
    // After a route matched and before its parameters are validated, in the order of
    // decisions.md: key in the URL, authentication and plan, rate limit.
    globalMiddleware: [
      rejectKeyInQuery(revokeLeakedKey(deps)),
      authenticate({ ...deps, plans: new PlanCache(deps.database, deps.clock), keyCheck: keyCheckWithLookup(deps) }),
      enforceRateLimit(deps),
    ],
    // Validation failures go to errorHandler, which answers them in the error envelope.
    requestValidationErrorHandler: (error, _req, _res, next) => {
      next(error);
    },
  });

  const endpoints = Object.values(contract).map((route) => pathPattern(route.path));
  app.use(notFoundOrMethodNotAllowed(endpoints));
  app.use(errorHandler(deps.logger));
  return app;
}
