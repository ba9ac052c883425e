import { pipeline, Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { FeedFetchError } from './fetch-error';
import { redact, shownUrl, type FeedRequest } from './request';

/** Default time to wait for a feed server's response headers. */
export const RESPONSE_TIMEOUT_MS = 60_000;
/** Default time to wait for the next bytes of a response body. */
export const IDLE_TIMEOUT_MS = 60_000;

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
  signal?: AbortSignal;
}

/** A response: not modified since the validators sent, or a body with the new validators. */
export type FetchResult = { notModified: true } | { notModified: false; body: Readable; etag?: string; lastModified?: string };

/**
 * Fetches one feed URL with the source's headers (a User-Agent always) and query. Timeouts:
 * `responseMs` for the headers, `idleMs` between body chunks (a download may take long, but
 * must not stall). 5xx, 429, timeouts and network failures are retryable; other statuses are
 * not. 304 answers a conditional request. Messages never hold a secret or a query string.
 */
export async function fetchFeed(url: string, options: FetchOptions): Promise<FetchResult> {
  const { request } = options;
  const responseMs = options.responseMs ?? RESPONSE_TIMEOUT_MS;
  const idleMs = options.idleMs ?? IDLE_TIMEOUT_MS;
  const shown = shownUrl(url);
  const controller = new AbortController();
  const signal = options.signal === undefined ? controller.signal : AbortSignal.any([controller.signal, options.signal]);
  const headers: Record<string, string> = { ...request.headers };
  if (options.conditional?.etag !== undefined) headers['if-none-match'] = options.conditional.etag;
  if (options.conditional?.lastModified !== undefined) headers['if-modified-since'] = options.conditional.lastModified;
  let timedOut = false;
  const responseTimer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, responseMs);
  let response: Response;
  try {
    response = await fetch(url, { headers, signal, redirect: 'follow' });
  } catch (error) {
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
  const body = idleGuard(idleMs, shown, controller);
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

/** Passes chunks on; fails (and aborts the request) when none comes for `idleMs`. */
function idleGuard(idleMs: number, shown: string, controller: AbortController): Transform {
  let timer: NodeJS.Timeout | undefined;
  const guard: Transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
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
