import type { RequestHandler, Response } from 'express';
import { clientAddress } from './client-address';
import { keysInUrl } from './keys-in-url';

/** Revokes a leaked key: `where` it was seen (`path`, `query parameter search`), the key, the client address. */
export type RevokeLeaked = (where: string, key: string, address: string, res: Pick<Response, 'locals'>) => Promise<void>;

/**
 * Before any route: a valid API key anywhere in the URL (the path, any query parameter, on the
 * API, the dashboard or the docs) is revoked as leaked before the request goes on, so that its
 * answer, whatever it is, comes after the key stopped working. The access log redacts it.
 */
export function revokeKeysInUrl(revoke: RevokeLeaked): RequestHandler {
  return (req, res, next) => {
    const found = keysInUrl(req.path, req.query);
    if (found.length === 0) {
      next();
      return;
    }
    const address = clientAddress(req);
    Promise.all(found.map(({ where, key }) => revoke(where, key, address, res))).then(
      () => next(),
      () => next(),
    );
  };
}
