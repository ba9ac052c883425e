import compression from 'compression';
import type { RequestHandler } from 'express';
import { constants } from 'node:zlib';

/**
 * How responses are compressed, chosen by measurement (bench/src/compression.ts, BENCHMARKS.md):
 * a page of 50 domain objects is about 40 KB of repetitive JSON.
 */
const COMPRESSION = {
  /** Smaller bodies (errors, a lookup's one domain) cost more to compress than they save. */
  thresholdBytes: 1024,
  gzipLevel: 6,
  brotliQuality: 4,
} as const;

/** Whether an Accept-Encoding header accepts gzip (listed, and not with q=0). */
export function acceptsGzip(header: string): boolean {
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    return (coding === 'gzip' || coding === '*') && (q === undefined || Number(q) > 0);
  });
}

/**
 * The responses worth compressing as they go: search pages (about 40 KB for 50 rows). A lookup,
 * stats or an error is about 1 KB. The OpenAPI document and the reference page's script never
 * change, so they are compressed once (api-docs/precompressed.ts), not here.
 */
const WORTH_COMPRESSING = (path: string) => path === '/api/v1/domains';

/**
 * Compresses a response when the request asks for it (`Accept-Encoding: gzip` or `br`), and says
 * `Vary: Accept-Encoding` so caches keep them apart. A request that does not ask gets the body
 * as it is. The `compression` middleware (Express's own) streams through node:zlib and
 * negotiates the encoding; it would pick br whenever both are accepted, but through it br cost
 * the API 1.4 times gzip's CPU on a 200-row page for the same size (BENCHMARKS.md), so a
 * request that accepts gzip gets gzip, and br is served to those that ask for br alone.
 * The middleware costs every response it wraps (measured: lookups lost a quarter of their rate,
 * as it writes the headers apart from the body), so it wraps only the responses worth
 * compressing, and only when the request asks.
 */
export function compressResponses(): RequestHandler {
  const compress = compression({
    threshold: COMPRESSION.thresholdBytes,
    level: COMPRESSION.gzipLevel,
    brotli: { params: { [constants.BROTLI_PARAM_QUALITY]: COMPRESSION.brotliQuality } },
  });
  return (req, res, next) => {
    if (!WORTH_COMPRESSING(req.path)) {
      next();
      return;
    }
    res.vary('Accept-Encoding');
    const accepted = req.headers['accept-encoding'];
    if (accepted !== undefined && acceptsGzip(accepted)) {
      if (accepted !== 'gzip') req.headers['accept-encoding'] = 'gzip';
    } else if (accepted === undefined || !/\bbr\b/i.test(accepted)) {
      next();
      return;
    }
    compress(req, res, next);
  };
}
