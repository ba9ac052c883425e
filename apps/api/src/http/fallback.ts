import type { RequestHandler } from 'express';
import { ApiError } from './api-error';
import { redactUrl } from './request-log';

/**
 * Answers what no route took: 405 when the path is an endpoint but the method is not GET/HEAD
 * (OPTIONS preflights included, so no CORS headers ever go out), 404 otherwise, naming the path
 * with its secrets redacted (a key or a link's token is never echoed).
 */
export function notFoundOrMethodNotAllowed(endpointPatterns: readonly RegExp[]): RequestHandler {
  return (req, res, next) => {
    if (endpointPatterns.some((pattern) => pattern.test(req.path))) {
      res.setHeader('Allow', 'GET, HEAD');
      next(new ApiError('method_not_allowed', `${req.method} is not allowed here; use GET`));
      return;
    }
    next(new ApiError('not_found', `no endpoint at ${redactUrl(req.path)}; see /api/v1/domains, /api/v1/domains/{domain} and /api/v1/stats`));
  };
}

/**
 * Turns a ts-rest path such as `/api/v1/domains/:domain` into a matcher of request paths: the
 * one spelling Express routes (case-sensitive, no trailing slash), so that a path that is not an
 * endpoint is 404, not 405.
 */
export function pathPattern(path: string): RegExp {
  const body = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}$`);
}
