import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import { acceptsGzip } from '../http/compress-responses';

/**
 * A body that never changes, compressed once, on its first request, and kept: the reference
 * page's script is 1.1 MB, public and unmetered, and compressing it on every request let anyone
 * spend the API's CPU for free. gzip when accepted, brotli when asked for alone (as for search
 * pages, compress-responses.ts), else the body as it is; `Vary: Accept-Encoding` either way.
 */
export class Precompressed {
  private gzip: Buffer | undefined;
  private brotli: Buffer | undefined;

  constructor(private readonly body: Buffer) {}

  send(req: Request, res: Response): void {
    res.vary('Accept-Encoding');
    const accepted = req.headers['accept-encoding'];
    if (accepted !== undefined && acceptsGzip(accepted)) {
      this.gzip ??= gzipSync(this.body, { level: 9 });
      res.setHeader('Content-Encoding', 'gzip');
      res.end(this.gzip);
    } else if (accepted !== undefined && /\bbr\b/i.test(accepted)) {
      this.brotli ??= brotliCompressSync(this.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } });
      res.setHeader('Content-Encoding', 'br');
      res.end(this.brotli);
    } else {
      res.end(this.body);
    }
  }
}
