import { KEY_LIKE_PARAMS } from '@domain-index/contract';
import type { NextFunction, Request } from 'express';
import { ApiError } from './api-error';
import { clientAddress } from './client-address';

const KEY_LIKE = new Set<string>(KEY_LIKE_PARAMS);

/** Whether a query parameter's name looks like an API key (compared lowercased). */
export function isKeyLikeParam(name: string): boolean {
  return KEY_LIKE.has(name.toLowerCase());
}

/** The first query parameter whose name looks like an API key, if any. */
function keyLikeParam(query: object): string | undefined {
  return Object.keys(query).find(isKeyLikeParam);
}

/**
 * The first check of every request: a key must never travel in a URL. A key-like parameter
 * rejects the request (400 `api_key_in_query`) before anything else runs.
 */
export function rejectKeyInQuery(
  onLeak?: (param: string, value: unknown, address: string) => Promise<void>,
): (req: { query: object } & Pick<Request, 'ip' | 'socket'>, res: unknown, next: NextFunction) => void {
  return (req, _res, next) => {
    const param = keyLikeParam(req.query);
    if (param === undefined) {
      next();
      return;
    }
    const reject = () =>
      next(new ApiError('api_key_in_query', `${param} must not be sent in the URL: send the key in the Authorization header, and treat a key sent in a URL as leaked`, param));
    if (onLeak === undefined) reject();
    else onLeak(param, (req.query as Record<string, unknown>)[param], clientAddress(req)).then(reject, reject);
  };
}
