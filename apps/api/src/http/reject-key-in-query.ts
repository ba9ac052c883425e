import { KEY_LIKE_PARAMS } from '@domain-index/contract';
import type { NextFunction } from 'express';
import { ApiError } from '@domain-index/api-errors/api-error';
import { hasKeyLikeValue } from './keys-in-url';

const KEY_LIKE = new Set<string>(KEY_LIKE_PARAMS);

/** Whether a query parameter's name looks like an API key (compared lowercased). */
export function isKeyLikeParam(name: string): boolean {
  return KEY_LIKE.has(name.toLowerCase());
}

/** What an answer calls a parameter whose name is itself a key: the name is never echoed. */
const REDACTED_NAME = '[redacted]';

/** The first query parameter named like a key, or holding a value that starts like one, if any. */
function keyLikeParam(query: Readonly<Record<string, unknown>>): string | undefined {
  for (const [name, value] of Object.entries(query)) {
    if (hasKeyLikeValue(name)) return REDACTED_NAME;
    if (isKeyLikeParam(name)) return name;
    for (const one of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (typeof one === 'string' && hasKeyLikeValue(one)) return name;
    }
  }
  return undefined;
}

/**
 * The first check of every API request: a key must never travel in a URL. A key-like parameter
 * (named `api_key`, `token`, ..., or with a `dix_live_`/`dix_test_` value, whatever its name)
 * rejects the request (400 `api_key_in_query`) before anything else runs. A valid key in it has
 * been revoked already, before routing (revoke-keys-in-url.ts).
 */
export function rejectKeyInQuery(): (req: { query: object }, res: unknown, next: NextFunction) => void {
  return (req, _res, next) => {
    const param = keyLikeParam(req.query as Record<string, unknown>);
    if (param === undefined) {
      next();
      return;
    }
    // "any valid key": the parameter may hold no key of ours, but one that was is revoked already
    next(new ApiError('api_key_in_query', `${param} must not be sent in the URL: any valid key sent in a URL has been revoked; create a new one and send it in the Authorization header`, param));
  };
}
