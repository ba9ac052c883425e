import type { FetchEventPage } from './event-page';
import { ConnectionError, DomainIndexError, parseRetryAfter } from './errors';
import type { Event, EventListEnvelope, EventParams } from './generated/api-types';

/** Options of `client.events.watch()`. */
export interface WatchOptions {
  /**
   * Called with the events of each page that has any (never with an empty list), in commit
   * order, and the cursor to store once they are handled. Awaited before the next request; an
   * error it throws stops the watch, which then rejects with that error.
   */
  onEvents: (events: Event[], nextCursor: string) => void | Promise<void>;
  /** Stops the watch, during a wait or a request: it then resolves. Without one, it runs until a non-retryable error. */
  signal?: AbortSignal | undefined;
  /** Milliseconds between polls once caught up. Default 30,000. */
  intervalMs?: number | undefined;
  /** The longest backoff between attempts after failures (a longer `Retry-After` is still honoured). Default 300,000. */
  maxBackoffMs?: number | undefined;
  /** Milliseconds before one request is abandoned and retried. Default: the client's `timeout`. */
  timeout?: number | undefined;
}

const DEFAULT_INTERVAL_MS = 30_000;
const DEFAULT_MAX_BACKOFF_MS = 300_000;
/** The backoff after the first failure; it doubles with each further one. */
const BACKOFF_BASE_MS = 500;

/** 429, 5xx and no response: worth another try later. Other errors (401, 400, 410) will not cure themselves. */
function isRetryable(error: unknown): error is DomainIndexError {
  if (error instanceof ConnectionError) return true;
  return error instanceof DomainIndexError && error.status !== undefined && (error.status === 429 || error.status >= 500);
}

/** How long to wait after `failures` failures in a row: jittered exponential backoff, at least the Retry-After. */
function delayAfter(error: DomainIndexError, failures: number, maxBackoffMs: number): number {
  const ceiling = Math.min(maxBackoffMs, BACKOFF_BASE_MS * 2 ** (failures - 1));
  // "equal jitter": half fixed, so the wait still grows, half random, so clients spread out
  const backoff = ceiling / 2 + Math.random() * (ceiling / 2);
  const retryAfter = error.headers === undefined ? undefined : parseRetryAfter(error.headers);
  return Math.max(backoff, (retryAfter ?? 0) * 1000);
}

/** Waits `ms`, or less when `signal` fires; never rejects, and leaves no timer or listener behind. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

function checkMilliseconds(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new DomainIndexError(`${name} must be a number of milliseconds >= 0, got ${String(value)}`);
  return value;
}

/**
 * Polls the change feed from `params.after` (default `now`) until `options.signal` fires:
 * pages back to back while `has_more`, then one poll every `intervalMs`. Retryable failures
 * (429, 5xx, no response) are retried without end, after a jittered exponential backoff capped
 * at `maxBackoffMs` and never sooner than the response's Retry-After; any other error rejects.
 * Resolves with the cursor to resume from: the last page's `next_cursor` (empty pages advance
 * it too), or `params.after` when no page arrived.
 */
export async function watchEvents(fetchPage: FetchEventPage, params: EventParams, options: WatchOptions): Promise<string> {
  if (typeof options.onEvents !== 'function') throw new DomainIndexError('watch() needs an onEvents callback');
  const intervalMs = checkMilliseconds('intervalMs', options.intervalMs ?? DEFAULT_INTERVAL_MS);
  const maxBackoffMs = checkMilliseconds('maxBackoffMs', options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS);
  const { signal } = options;
  let cursor = params.after ?? 'now';
  let failures = 0;
  while (!signal?.aborted) {
    let page: EventListEnvelope;
    try {
      // this loop does the retrying, with a backoff that suits a long-running poller
      page = await fetchPage({ ...params, after: cursor }, { signal, timeout: options.timeout, maxRetries: 0 });
    } catch (error) {
      if (signal?.aborted) break;
      if (!isRetryable(error)) throw error;
      failures += 1;
      await pause(delayAfter(error, failures, maxBackoffMs), signal);
      continue;
    }
    failures = 0;
    if (page.data.length > 0) await options.onEvents(page.data, page.pagination.next_cursor);
    cursor = page.pagination.next_cursor;
    if (!page.pagination.has_more) await pause(intervalMs, signal);
  }
  return cursor;
}
