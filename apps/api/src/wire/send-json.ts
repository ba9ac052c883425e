import { contract } from '@domain-index/contract';
import type { AppRoute } from '@ts-rest/core';
import type { Request, RequestHandler, Response } from 'express';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { serializeListEnvelope, serializeLookupEnvelope, type Serialize } from './compiled-json';
import { negotiateCoding, type ContentCoding } from './content-coding';

/**
 * How JSON bodies are compressed, chosen by measurement (bench/src/compression.ts,
 * BENCHMARKS.md "Response compression").
 */
export const COMPRESSION = {
  /**
   * Smaller bodies are sent as they are: a lookup (about 1.1 KB), stats and error envelopes
   * would save a few hundred bytes for the CPU of a compression each.
   */
  thresholdBytes: 2048,
  gzipLevel: 6,
  brotliQuality: 4,
} as const;

/** The compiled serializer of each route's 200 body (compiled-json.ts); others use JSON.stringify. */
const SERIALIZERS = new Map<AppRoute, Serialize<never>>([
  [contract.searchDomains, serializeListEnvelope],
  [contract.getDomain, serializeLookupEnvelope],
]);

const compressors: Record<
  ContentCoding,
  (body: Buffer, done: (error: Error | null, result: Buffer) => void) => void
> = {
  gzip: (body, done) => gzip(body, { level: COMPRESSION.gzipLevel }, done),
  br: (body, done) =>
    brotliCompress(
      body,
      {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: COMPRESSION.brotliQuality,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      },
      done,
    ),
};

/** Ends a response with a complete body, its length known. */
function end(req: Request, res: Response, body: Buffer): void {
  res.setHeader('Content-Length', body.length);
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

/**
 * Sends a JSON body, compressed when the request asks (content-coding.ts) and the body is worth
 * it. The whole body is compressed in one call, on libuv's thread pool, so the event loop goes on
 * with other requests meanwhile; the `compression` middleware this replaces streamed the body
 * through zlib in pieces and wrapped every response's write and end, which cost a lookup a
 * quarter of its rate. `Vary: Accept-Encoding` is on every JSON response, compressed or not,
 * since the same URL may be answered either way.
 */
function sendBody(req: Request, res: Response, text: string): void {
  const body = Buffer.from(text, 'utf8');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.vary('Accept-Encoding');
  const coding =
    body.length >= COMPRESSION.thresholdBytes
      ? negotiateCoding(req.headers['accept-encoding'])
      : undefined;
  if (coding === undefined || req.method === 'HEAD') {
    end(req, res, body);
    return;
  }
  compressors[coding](body, (error, compressed) => {
    if (error !== null) {
      end(req, res, body);
      return;
    }
    res.setHeader('Content-Encoding', coding);
    end(req, res, compressed);
  });
}

/**
 * Installs the API's `res.json`: a 200 of a contract route is written by the serializer compiled
 * from its response schema, anything else (errors) by `JSON.stringify`; then `sendBody`. It
 * replaces Express's own, which serialises with `JSON.stringify` and sends through `res.send`
 * (content negotiation of the charset, freshness checks, an ETag when enabled): none of which a
 * JSON API answer needs.
 */
export function sendJson(): RequestHandler {
  return (req, res, next) => {
    res.json = (body: unknown) => {
      const route = (req as Request & { tsRestRoute?: AppRoute }).tsRestRoute;
      const serialize =
        res.statusCode === 200 && route !== undefined ? SERIALIZERS.get(route) : undefined;
      sendBody(req, res, serialize === undefined ? JSON.stringify(body) : serialize(body as never));
      return res;
    };
    next();
  };
}
