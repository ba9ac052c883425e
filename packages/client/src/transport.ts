import { abortedBy, ConnectionError, DomainIndexError, errorFromResponse, parseRetryAfter, TimeoutError } from './errors';
import { readRateLimit, type RateLimitInfo } from './rate-limit';

/** Per-call options. */
export interface RequestOptions {
  /** Cancels the call (and a page walk) when aborted. */
  signal?: AbortSignal | undefined;
  /** Milliseconds before one attempt is abandoned. */
  timeout?: number | undefined;
  /** Retries after a 429, a 5xx or a failed connection. */
  maxRetries?: number | undefined;
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

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedBy(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedBy(signal!));
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
    if (options.signal?.aborted) throw abortedBy(options.signal);
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
      let body: unknown;
      try {
        body = await response.json();
      } catch (error) {
        // cut off while reading: a timeout or an abort, handled below like one before the answer
        if (controller.signal.aborted) throw error;
        body = undefined;
      }
      if (response.ok) {
        if (body === undefined) throw new DomainIndexError(`the response (HTTP ${response.status}) is not JSON`, { status: response.status, requestId: response.headers.get('x-request-id') ?? undefined, headers: response.headers });
        return body as T;
      }
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
      if (options.signal?.aborted) throw abortedBy(options.signal);
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
