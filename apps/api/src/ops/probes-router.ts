import type { RequestHandler, Router } from 'express';
import { strictRouter } from '../http/strict-router';
import type { Readiness } from '@domain-index/runtime/readiness';

/**
 * GET /livez and GET /readyz, outside /api/v1: no key, no rate limit, and mounted before the
 * access log, so a balancer polling every second does not fill it. Liveness never touches the
 * database: a process that answers is alive. Bodies are one short line.
 */
export function probesRouter(readiness: Readiness): Router {
  const router = strictRouter();
  const plain = { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' };
  router.get('/livez', (_req, res) => {
    res.set(plain).send('ok\n');
  });
  router.get('/readyz', (_req, res, next) => {
    readiness.answer().then((answer) => {
      if (answer.ready) {
        res.set(plain).send('ready\n');
        return;
      }
      res.status(503).set({ ...plain, 'Retry-After': '1' }).send(`not ready: ${answer.reason ?? 'unknown'}\n`);
    }, next);
  });
  return router;
}

/** The paths probesRouter answers. */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/livez', '/readyz']);

/**
 * The probes as a step every request passes: a request for a probe goes to probesRouter, any
 * other goes on at once, without walking the router (Express makes a router's walk state per
 * request that enters it, and nearly every request is not a probe).
 */
export function probes(readiness: Readiness): RequestHandler {
  const router = probesRouter(readiness);
  return (req, res, next) => {
    if (PROBE_PATHS.has(req.path)) router(req, res, next);
    else next();
  };
}
