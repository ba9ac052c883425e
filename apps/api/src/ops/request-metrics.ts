import type { Request, RequestHandler, Response } from 'express';
import type { ApiMetrics } from './api-metrics';
import { UNMATCHED_ROUTE } from './api-metrics';
import type { Finisher } from '../http/after-response';

/**
 * Marks the requests that reach a router mounted at `base` (a literal of our code), for the
 * route label: Express's `req.baseUrl` is the part of the request's own path that matched the
 * mount, not the mount's pattern, so it cannot be the label.
 */
export function routesUnder(base: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.routeBase = base;
    next();
  };
}

/**
 * The `route` label: the pattern of the route that answered (for the API, the contract's path,
 * `/api/v1/domains/:domain`; in the dashboard, `/dashboard` and the route's own pattern), built
 * from our code's literals only, never from the URL, so the number of series cannot grow with
 * the paths people send. Anything no route took shares one value.
 */
export function routeLabel(req: Request, res: Response): string {
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string') return UNMATCHED_ROUTE;
  const base: unknown = res.locals.routeBase;
  return typeof base === 'string' ? `${base}${path}` : path;
}

/**
 * Observes every finished response: its duration by method, route and status, and, for an
 * error envelope, its code (set by sendError). Run after the probes, which are not measured.
 */
export function measureRequests(metrics: ApiMetrics): Finisher {
  return (req, res, durationMs) => {
    metrics.requestDuration.observe({ method: req.method, route: routeLabel(req, res), status: String(res.statusCode) }, durationMs / 1000);
    const code: unknown = res.locals.errorCode;
    if (typeof code === 'string') metrics.errorResponses.inc({ code });
  };
}
