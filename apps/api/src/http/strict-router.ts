import { Router } from 'express';

/**
 * A router that matches one spelling of each path: case-sensitive, and a trailing slash is
 * another path. Express's routers do not inherit the app's `case sensitive routing` and `strict
 * routing`; with the defaults, `/DASHBOARD/Set-Password/<token>` reached the set-password page
 * while the access log's redaction and the metrics' route labels looked for the lowercase path.
 */
export function strictRouter(): Router {
  return Router({ caseSensitive: true, strict: true });
}
