import { ConnectionError, DomainIndexError, errorFromResponse, parseRetryAfter, TimeoutError } from './errors';
import { readRateLimit, type RateLimitInfo } from './rate-limit';

/** Per-call options. */
export interface RequestOptions {
  /** Cancels the call (and a page walk) when aborted. */
  signal?: AbortSignal;
  /** Milliseconds before one attempt is abandoned. */
  timeout?: number;
  /** Retries after a 429, a 5xx or a failed connection. */
  maxRetries?: number;
}

/** How the transport behaves; the client's options after defaults. */
export interface TransportSettings {
  apiKey: string;
  baseUrl: string;
  timeout: number;
  maxRetries: number;
  /** A Retry-After longer than this (seconds) is not waited out: the error is thrown at once. */
  maxRetryAfter: number;
  fetch: typeof fetch;
  onRateLimit: (info: RateLimitInfo) => void;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

/** Exponential backoff with ±25% jitter, capped. */
function backoffMs(attempt: number): number {
  const base = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return base * (0.75 + Math.random() * 0.5);
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted.', 'AbortError');
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * GETs one resource: the key goes in the Authorization header only; 429, 5xx and connection
 * failures are retried, honouring Retry-After, else with jittered exponential backoff; other
 * 4xx are thrown at once as typed errors.
 */
export async function getJson<T>(
  settings: TransportSettings,
  path: string,
  query: URLSearchParams | undefined,
  options: RequestOptions = {},
): Promise<T> {
  const url = `${settings.baseUrl}/api/v1${path}${query !== undefined && [...query.keys()].length > 0 ? `?${query.toString()}` : ''}`;
  const maxRetries = options.maxRetries ?? settings.maxRetries;
  const timeout = options.timeout ?? settings.timeout;
  for (let attempt = 0; ; attempt += 1) {
    if (options.signal?.aborted) throw abortError(options.signal);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    const forwardAbort = () => controller.abort();
    options.signal?.addEventListener('abort', forwardAbort, { once: true });
    let failure: DomainIndexError;
    try {
      const response = await settings.fetch(url, {
        method: 'GET',
        // A page of 50 domains is about 40 KB of JSON and 4 KB gzipped; every fetch decodes gzip.
        headers: { Authorization: `Bearer ${settings.apiKey}`, Accept: 'application/json', 'Accept-Encoding': 'gzip' },
        signal: controller.signal,
      });
      const rateLimit = readRateLimit(response.headers);
      if (rateLimit !== undefined) settings.onRateLimit(rateLimit);
      const body: unknown = await response.json().catch(() => undefined);
      if (response.ok) return body as T;
      failure = errorFromResponse(response.status, body, response.headers);
      const retryable = response.status === 429 || response.status >= 500;
      if (!retryable || attempt >= maxRetries) throw failure;
      const retryAfter = parseRetryAfter(response.headers);
      if (retryAfter !== undefined && retryAfter > settings.maxRetryAfter) throw failure;
      clearTimeout(timer);
      await sleep(retryAfter === undefined ? backoffMs(attempt) : retryAfter * 1000, options.signal);
      continue;
    } catch (error) {
      if (error instanceof DomainIndexError && !(error instanceof ConnectionError)) throw error;
      if (options.signal?.aborted) throw abortError(options.signal);
      failure = timedOut
        ? new TimeoutError(`no response within ${timeout} ms`, { cause: error })
        : error instanceof ConnectionError
          ? error
          : new ConnectionError(`could not reach ${settings.baseUrl}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      if (attempt >= maxRetries) throw failure;
      await sleep(backoffMs(attempt), options.signal);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', forwardAbort);
    }
  }
}
