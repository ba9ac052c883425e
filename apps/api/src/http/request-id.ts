import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { hasKeyLikeValue } from './keys-in-url';

/** An incoming id is echoed only when it is short and plain, so it is safe to log and return. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Gives every request an id and every response `X-Request-Id`. A client's own id is kept (so it
 * can find its request in our logs and its request log), unless it is shaped like one of our keys:
 * the id is written to the access log and echoed back, and a key must never be either.
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const usable = incoming !== undefined && WELL_FORMED.test(incoming) && !hasKeyLikeValue(incoming);
    const id = usable ? incoming : `req_${randomUUID()}`;
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}
