import type { RequestHandler } from 'express';
import { ApiError } from '@domain-index/api-errors/api-error';
import { redactUrl } from './request-log';

/** An endpoint's path as a matcher, with the methods it takes. */
export interface EndpointMethods {
  pattern: RegExp;
  methods: readonly string[];
}

/**
 * Answers what no route took: 405 when the path is an endpoint but not of this method (OPTIONS
 * preflights included, so no CORS headers ever go out), with the methods it takes in `Allow`
 * (GET brings HEAD), 404 otherwise, naming the path with its secrets redacted (a key or a
 * link's token is never echoed).
 */
export function notFoundOrMethodNotAllowed(endpoints: readonly EndpointMethods[]): RequestHandler {
  return (req, res, next) => {
    const methods = [...new Set(endpoints.filter((endpoint) => endpoint.pattern.test(req.path)).flatMap((endpoint) => endpoint.methods))];
    if (methods.length > 0) {
      const allowed = methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));
      res.setHeader('Allow', allowed.join(', '));
      next(new ApiError('method_not_allowed', `${req.method} is not allowed here; use ${methods.join(' or ')}`));
      return;
    }
    next(new ApiError('not_found', `no endpoint at ${redactUrl(req.path)}; see /api/v1/domains, /api/v1/domains/{domain}, /api/v1/events, /api/v1/alerts and /api/v1/stats`));
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
