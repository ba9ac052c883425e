import { pipeline, Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { FeedFetchError } from './fetch-error';
import { originOf, redact, shownUrl, withQuery, type FeedRequest } from './request';

/** Default time to wait for a feed server's response headers. */
const RESPONSE_TIMEOUT_MS = 60_000;
/** Default time to wait for the next bytes of a response body. */
const IDLE_TIMEOUT_MS = 60_000;

/** Default largest download: the whole feed is spooled to disk before it is read. */
export const MAX_DOWNLOAD_BYTES = 16 * 2 ** 30;

/** Validators of the feed last applied, for a conditional GET. */
export interface Conditional {
  etag?: string;
  lastModified?: string;
}

export interface FetchOptions {
  request: FeedRequest;
  conditional?: Conditional;
  responseMs?: number;
  idleMs?: number;
  /** Largest body read; over it, the fetch fails without retry. */
  maxBytes?: number;
  signal?: AbortSignal;
}

/** A response: not modified since the validators sent, or a body with the new validators. */
export type FetchResult = { notModified: true } | { notModified: false; body: Readable; etag?: string; lastModified?: string };

/** Redirects followed before a fetch gives up (as curl's --max-redirs, browsers allow 20). */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches one feed URL with the source's headers (a User-Agent always) and query. Timeouts:
 * `responseMs` for the headers, `idleMs` between body chunks (a download may take long, but
 * must not stall). 5xx, 429, timeouts and network failures are retryable; other statuses are
 * not. 304 answers a conditional request. Messages never hold a secret or a query string.
 *
 * Redirects are followed here, not by fetch: the source's headers and query parameters (its
 * credentials) go to the feed's own origin only. A redirect or a next-page link to another
 * host gets the User-Agent and nothing else, so a marketplace that sends a download to a CDN
 * never hands that CDN the key.
 */
export async function fetchFeed(url: string, options: FetchOptions): Promise<FetchResult> {
  const { request } = options;
  const responseMs = options.responseMs ?? RESPONSE_TIMEOUT_MS;
  const idleMs = options.idleMs ?? IDLE_TIMEOUT_MS;
  const shown = shownUrl(url);
  const controller = new AbortController();
  const signal = options.signal === undefined ? controller.signal : AbortSignal.any([controller.signal, options.signal]);
  const conditional: Record<string, string> = {};
  if (options.conditional?.etag !== undefined) conditional['if-none-match'] = options.conditional.etag;
  if (options.conditional?.lastModified !== undefined) conditional['if-modified-since'] = options.conditional.lastModified;
  const trusted = (target: string) => request.origin !== '' && originOf(target) === request.origin;
  let timedOut = false;
  const responseTimer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, responseMs);
  let response: Response;
  try {
    let target = trusted(url) ? withQuery(url, request.query) : url;
    for (let redirects = 0; ; redirects += 1) {
      const headers = trusted(target) ? { ...request.headers, ...conditional } : { 'user-agent': request.headers['user-agent']!, ...conditional };
      response = await fetch(target, { headers, signal, redirect: 'manual' });
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) break;
      await response.body?.cancel();
      if (redirects === MAX_REDIRECTS) throw new FeedFetchError(`fetching ${shown} was redirected more than ${MAX_REDIRECTS} times`, false);
      const next = new URL(location, target);
      if (next.protocol !== 'https:' && next.protocol !== 'http:') {
        throw new FeedFetchError(`fetching ${shown} was redirected to a ${next.protocol} URL, which is not fetched`, false);
      }
      target = next.href;
    }
  } catch (error) {
    if (error instanceof FeedFetchError) throw error;
    const reason = timedOut ? `no response within ${responseMs} ms` : redact(error instanceof Error ? describe(error) : String(error), request.secrets);
    throw new FeedFetchError(`cannot fetch ${shown}: ${reason}`, true);
  } finally {
    clearTimeout(responseTimer);
  }
  if (response.status === 304 && options.conditional !== undefined) {
    await response.body?.cancel();
    return { notModified: true };
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    const retryable = response.status >= 500 || response.status === 429;
    throw new FeedFetchError(`fetching ${shown} answered HTTP ${response.status}`, retryable);
  }
  const maxBytes = options.maxBytes ?? MAX_DOWNLOAD_BYTES;
  const tooLarge = () => new FeedFetchError(`${shown} is over the ${maxBytes} bytes a download may have (maxDownloadBytes)`, false);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body.cancel();
    throw tooLarge();
  }
  const body = bodyGuard(idleMs, maxBytes, shown, controller, tooLarge);
  // a network error reaches the reader through the guard; a reader that stops early cancels the download
  pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), body, () => undefined);
  const etag = response.headers.get('etag') ?? undefined;
  const lastModified = response.headers.get('last-modified') ?? undefined;
  return { notModified: false, body, ...(etag !== undefined && { etag }), ...(lastModified !== undefined && { lastModified }) };
}

/** An error and its causes in one line (fetch's own message is only "fetch failed"). */
function describe(error: Error): string {
  const cause = error.cause instanceof Error ? `: ${describe(error.cause)}` : '';
  return `${error.message}${cause}`;
}

/**
 * Passes chunks on; fails (and aborts the request) when none comes for `idleMs`, or when more
 * than `maxBytes` came (a server that does not say the length, or says it wrong).
 */
function bodyGuard(idleMs: number, maxBytes: number, shown: string, controller: AbortController, tooLarge: () => Error): Transform {
  let timer: NodeJS.Timeout | undefined;
  let bytes = 0;
  const guard: Transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        clearTimeout(timer);
        controller.abort();
        done(tooLarge());
        return;
      }
      arm();
      done(null, chunk);
    },
    flush(done) {
      clearTimeout(timer);
      done();
    },
    destroy(error, done) {
      clearTimeout(timer);
      done(error);
    },
  });
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      guard.destroy(new FeedFetchError(`fetching ${shown}: no data for ${idleMs} ms`, true));
      controller.abort();
    }, idleMs);
  };
  arm();
  return guard;
}
