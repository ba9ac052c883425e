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
function end(req: Request, res: Response, body: Buffer | string): void {
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

/**
 * Sends a JSON body, compressed when the request asks (content-coding.ts) and the body is worth
 * it. The whole body is compressed in one call, on libuv's thread pool, so the event loop goes on
 * with other requests meanwhile; the `compression` middleware this replaces streamed the body
 * through zlib in pieces and wrapped every response's write and end, which cost a lookup a
 * quarter of its rate. A body sent as it is goes as the string it is: Node writes the headers
 * and a string body in one write, where a Buffer takes a writev of two (measured: a lookup's
 * API CPU, BENCHMARKS.md). `Vary: Accept-Encoding` is on every body large enough to be
 * compressed, compressed or not, since the same URL may be answered either way.
 */
function sendBody(req: Request, res: Response, text: string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  // UTF-16 length: at most the byte length, so no body of the threshold's bytes is missed by much
  if (text.length < COMPRESSION.thresholdBytes) {
    end(req, res, text);
    return;
  }
  res.vary('Accept-Encoding');
  const coding = negotiateCoding(req.headers['accept-encoding']);
  if (coding === undefined || req.method === 'HEAD') {
    end(req, res, text);
    return;
  }
  const body = Buffer.from(text, 'utf8');
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
