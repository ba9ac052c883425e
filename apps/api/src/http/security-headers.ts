import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** A year: long enough that a browser rarely asks over http, the usual value (and the preload lists' minimum). */
export const HSTS = 'max-age=31536000';

/**
 * Headers of every response the app writes, before anything else runs: the API's JSON and its
 * errors, the dashboard, the docs and the probes. `nosniff`: a browser takes each body as the
 * type it is sent with. HSTS only when PUBLIC_URL is https: browsers ignore it over http, and
 * sending it from a service reached over http would be a promise nobody keeps.
 */
export function securityHeaders(options: { https: boolean }): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (options.https) res.setHeader('Strict-Transport-Security', HSTS);
    next();
  };
}

/** `Cache-Control: no-store` on a response that carries a secret: no browser, proxy or client cache keeps it. */
export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  next();
}
