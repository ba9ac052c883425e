import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import { negotiateCoding } from '../wire/content-coding';

/**
 * A body that never changes, compressed once, on its first request, and kept: the reference
 * page's script is 1.1 MB, public and unmetered, and compressing it on every request let anyone
 * spend the API's CPU for free. Encoded as the API's JSON is (wire/content-coding.ts), else the
 * body as it is; `Vary: Accept-Encoding` either way.
 */
export class Precompressed {
  private gzip: Buffer | undefined;
  private brotli: Buffer | undefined;

  constructor(private readonly body: Buffer) {}

  send(req: Request, res: Response): void {
    res.vary('Accept-Encoding');
    const coding = negotiateCoding(req.headers['accept-encoding']);
    if (coding === 'gzip') {
      this.gzip ??= gzipSync(this.body, { level: 9 });
      res.setHeader('Content-Encoding', 'gzip');
      res.end(this.gzip);
    } else if (coding === 'br') {
      this.brotli ??= brotliCompressSync(this.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } });
      res.setHeader('Content-Encoding', 'br');
      res.end(this.brotli);
    } else {
      res.end(this.body);
    }
  }
}
