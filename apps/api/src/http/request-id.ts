import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/** An incoming id is echoed only when it is short and plain, so it is safe to log and return. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

/** Gives every request an id and every response `X-Request-Id`. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const id = incoming !== undefined && WELL_FORMED.test(incoming) ? incoming : `req_${randomUUID()}`;
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}
