import type { Request, RequestHandler } from 'express';
import type { ApiMetrics } from './api-metrics';
import { UNMATCHED_ROUTE } from './api-metrics';

/**
 * The `route` label: the pattern of the route that answered (for the API, the contract's path,
 * `/api/v1/domains/:domain`), never the raw URL, so the number of series cannot grow with the
 * paths people send. Anything no route took shares one value.
 */
function routeLabel(req: Request): string {
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}` : UNMATCHED_ROUTE;
}

/**
 * Observes every finished response: its duration by method, route and status, and, for an
 * error envelope, its code (set by sendError). Mounted after the probes, which are not measured.
 */
export function measureRequests(metrics: ApiMetrics): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.once('finish', () => {
      metrics.requestDuration.observe(
        { method: req.method, route: routeLabel(req), status: String(res.statusCode) },
        (performance.now() - started) / 1000,
      );
      const code: unknown = res.locals.errorCode;
      if (typeof code === 'string') metrics.errorResponses.inc({ code });
    });
    next();
  };
}
