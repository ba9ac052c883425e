import { DEFAULT_SERVER_URL, openApiDocument } from '@domain-index/contract/openapi';
import type { Request } from 'express';
import { Precompressed } from './precompressed';

/** Stands for the server's address in the document's text until a request fills it in. */
const ORIGIN_MARK = 'http://domain-index-origin.invalid';

/** Hosts of at most a few origins are kept compressed: a Host header is whatever a client sends. */
const MAX_CACHED_ORIGINS = 16;

/** A Host header that can stand in a URL as it is: a name or an IP literal, and a port. */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The OpenAPI document as served: its `servers` entry and its code samples name the address
 * the customer uses, PUBLIC_URL when configured, else the request's own origin (its Host, and
 * its scheme as Express sees it, which follows X-Forwarded-Proto from a trusted proxy). The
 * text is made once; a request only joins it around its origin.
 */
export class OpenApiBody {
  private readonly publicUrl: string | undefined;
  private readonly parts: string[];
  private readonly bodies = new Map<string, Precompressed>();

  constructor(publicUrl: string | undefined) {
    this.publicUrl = publicUrl?.replace(/\/+$/, '');
    // written into the code samples as it is, between quotes
    const host =
      this.publicUrl === undefined ? undefined : /^https?:\/\/(.+)$/.exec(this.publicUrl)?.[1];
    if (this.publicUrl !== undefined && (host === undefined || !HOST.test(host)))
      throw new Error('the public URL must be http(s):// and a host');
    this.parts = `${JSON.stringify(openApiDocument({ serverUrl: ORIGIN_MARK }), null, 2)}\n`.split(
      ORIGIN_MARK,
    );
  }

  /** The server address a request's document names. */
  originOf(req: Request): string {
    if (this.publicUrl !== undefined) return this.publicUrl;
    const host = req.get('host');
    return host !== undefined && HOST.test(host) ? `${req.protocol}://${host}` : DEFAULT_SERVER_URL;
  }

  /** The document for a request, compressed as it asks. */
  bodyFor(req: Request): Precompressed {
    const origin = this.originOf(req);
    const cached = this.bodies.get(origin);
    if (cached !== undefined) return cached;
    // inside a JSON string: the origin's characters escaped as JSON escapes them
    const body = new Precompressed(
      Buffer.from(this.parts.join(JSON.stringify(origin).slice(1, -1))),
    );
    if (this.bodies.size < MAX_CACHED_ORIGINS) this.bodies.set(origin, body);
    return body;
  }
}
