import { abortedBy, ConnectionError, DomainIndexError, errorFromResponse, parseRetryAfter, TimeoutError } from './errors';
import { readRateLimit, type RateLimitInfo } from './rate-limit';

/** Per-call options. */
export interface RequestOptions {
  /** Cancels the call (and a page walk) when aborted. */
  signal?: AbortSignal | undefined;
  /** Milliseconds before one attempt is abandoned. */
  timeout?: number | undefined;
  /**
   * Retries after a 429, a 5xx or a failed connection (a write: only when the API certainly
   * did not act on it; see the README's "Errors and retries").
   */
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

/** One call of the API. */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path under /api/v1, its parameters already encoded. */
  path: string;
  query?: URLSearchParams | undefined;
  /** A JSON body (POST, PATCH); none when undefined. */
  body?: unknown;
}

/**
 * Codes the API answers before a request reaches its endpoint (decisions.md, order of checks:
 * the key, the plan, the rate limit): the request did nothing, so sending it again is safe
 * whatever its method.
 */
const REFUSED_BEFORE_HANDLING: ReadonlySet<string> = new Set(['rate_limited', 'key_lookup_unavailable', 'plan_lookup_unavailable', 'rate_limit_unavailable']);

/** Failures to connect at all (refused, no such host, no connection in time): not a byte of the request was sent. */
const NOT_SENT: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** The `code`s of an error, its causes and, for an AggregateError (several addresses tried), its errors. */
function errorCodes(error: unknown, into: string[] = [], depth = 0): string[] {
  if (typeof error !== 'object' || error === null || depth > 5) return into;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') into.push(code);
  errorCodes(cause, into, depth + 1);
  if (Array.isArray(errors)) for (const inner of errors) errorCodes(inner, into, depth + 1);
  return into;
}

/** Whether a failed fetch certainly never sent the request: every code it carries is a failure to connect. */
export function neverSent(error: unknown): boolean {
  const codes = errorCodes(error);
  return codes.length > 0 && codes.every((code) => NOT_SENT.has(code));
}

/**
 * Calls the API once per attempt: the key goes in the Authorization header only, a body as
 * JSON. A GET is retried after 429, 5xx and connection failures, honouring Retry-After, else
 * with jittered exponential backoff. A write (POST, PATCH, DELETE) is retried only when the API
 * certainly did not act on it: a 429, a 503 of the authentication, plan or rate-limit step, or
 * a connection that was never made. After any other 5xx, a timeout or a connection lost
 * mid-request the write may have happened (the API takes no idempotency key), so the error is
 * thrown for the caller to check (e.g. list the alerts) rather than risk doing it twice.
 * Other 4xx are thrown at once as typed errors.
 */
export async function requestJson<T>(settings: TransportSettings, request: ApiRequest, options: RequestOptions = {}): Promise<T> {
  const { method, path, query, body } = request;
  const url = `${settings.baseUrl}/api/v1${path}${query !== undefined && [...query.keys()].length > 0 ? `?${query.toString()}` : ''}`;
  const idempotent = method === 'GET';
  const maxRetries = options.maxRetries ?? settings.maxRetries;
  const timeout = options.timeout ?? settings.timeout;
  const headers: Record<string, string> = {
    Authorization: `Bearer ${settings.apiKey}`,
    Accept: 'application/json',
    // A page of 50 domains is about 40 KB of JSON and 4 KB gzipped; every fetch decodes gzip.
    'Accept-Encoding': 'gzip',
  };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) headers['Content-Type'] = 'application/json';
  for (let attempt = 0; ; attempt += 1) {
    if (options.signal?.aborted) throw abortedBy(options.signal);
    const attemptAbort = attemptSignal(options.signal, timeout);
    let failure: DomainIndexError;
    try {
      const response = await settings.fetch(url, {
        method,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
        signal: attemptAbort.signal,
      });
      const rateLimit = readRateLimit(response.headers);
      if (rateLimit !== undefined) settings.onRateLimit(rateLimit);
      let answer: unknown;
      try {
        answer = await response.json();
      } catch (error) {
        // cut off while reading: a timeout or an abort, handled below like one before the answer
        if (attemptAbort.signal.aborted) throw error;
        answer = undefined;
      }
      if (response.ok) {
        if (answer === undefined) throw new DomainIndexError(`the response (HTTP ${response.status}) is not JSON`, { status: response.status, requestId: response.headers.get('x-request-id') ?? undefined, headers: response.headers });
        return answer as T;
      }
      failure = errorFromResponse(response.status, answer, response.headers);
      const retryable =
        response.status === 429 ||
        (response.status >= 500 && (idempotent || (failure.rawCode !== undefined && REFUSED_BEFORE_HANDLING.has(failure.rawCode))));
      if (!retryable || attempt >= maxRetries) throw failure;
      const retryAfter = parseRetryAfter(response.headers);
      if (retryAfter !== undefined && retryAfter > settings.maxRetryAfter) throw failure;
      attemptAbort.stopTimer();
      await sleep(retryAfter === undefined ? backoffMs(attempt) : retryAfter * 1000, options.signal);
      continue;
    } catch (error) {
      if (error instanceof DomainIndexError && !(error instanceof ConnectionError)) throw error;
      if (options.signal?.aborted) throw abortedBy(options.signal);
      failure = attemptAbort.timedOut()
        ? new TimeoutError(`no response within ${timeout} ms`, { cause: error })
        : error instanceof ConnectionError
          ? error
          : new ConnectionError(`could not reach ${settings.baseUrl}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      const sendAgain = idempotent || (!attemptAbort.timedOut() && neverSent(error));
      if (!sendAgain || attempt >= maxRetries) throw failure;
      await sleep(backoffMs(attempt), options.signal);
    } finally {
      attemptAbort.release();
    }
  }
}

/**
 * One attempt's abort signal: aborted when its timeout passes or the caller's signal aborts.
 * `stopTimer` ends the timeout alone (an answer has started); `release` also stops following the
 * caller's signal, once nothing of the attempt is left to cancel.
 */
function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number): { signal: AbortSignal; timedOut: () => boolean; stopTimer: () => void; release: () => void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const forwardAbort = () => controller.abort();
  caller?.addEventListener('abort', forwardAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    stopTimer: () => clearTimeout(timer),
    release: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', forwardAbort);
    },
  };
}

/** GETs one resource (see requestJson). */
export function getJson<T>(settings: TransportSettings, path: string, query: URLSearchParams | undefined, options: RequestOptions = {}): Promise<T> {
  return requestJson<T>(settings, { method: 'GET', path, query }, options);
}

/**
 * GETs a streamed body (an export): retried like any GET until the answer starts (429, 5xx, a
 * failed connection), then handed over as it arrives, gzip already decoded by fetch. `timeout`
 * bounds the wait for the answer to start, not the stream; `signal` cancels both.
 */
export async function getStream(settings: TransportSettings, path: string, query: URLSearchParams, options: RequestOptions = {}): Promise<Response> {
  const url = `${settings.baseUrl}/api/v1${path}?${query.toString()}`;
  const maxRetries = options.maxRetries ?? settings.maxRetries;
  const timeout = options.timeout ?? settings.timeout;
  const headers = { Authorization: `Bearer ${settings.apiKey}`, 'Accept-Encoding': 'gzip' };
  for (let attempt = 0; ; attempt += 1) {
    if (options.signal?.aborted) throw abortedBy(options.signal);
    const attemptAbort = attemptSignal(options.signal, timeout);
    let failure: DomainIndexError;
    try {
      const response = await settings.fetch(url, { method: 'GET', headers, signal: attemptAbort.signal });
      // the caller's signal still cancels the stream; the timeout bounded only its start
      attemptAbort.stopTimer();
      const rateLimit = readRateLimit(response.headers);
      if (rateLimit !== undefined) settings.onRateLimit(rateLimit);
      if (response.ok) return response;
      attemptAbort.release();
      let answer: unknown;
      try {
        answer = await response.json();
      } catch {
        answer = undefined;
      }
      failure = errorFromResponse(response.status, answer, response.headers);
      if (!(response.status === 429 || response.status >= 500) || attempt >= maxRetries) throw failure;
      const retryAfter = parseRetryAfter(response.headers);
      if (retryAfter !== undefined && retryAfter > settings.maxRetryAfter) throw failure;
      await sleep(retryAfter === undefined ? backoffMs(attempt) : retryAfter * 1000, options.signal);
    } catch (error) {
      attemptAbort.release();
      if (error instanceof DomainIndexError && !(error instanceof ConnectionError)) throw error;
      if (options.signal?.aborted) throw abortedBy(options.signal);
      failure = attemptAbort.timedOut()
        ? new TimeoutError(`no response within ${timeout} ms`, { cause: error })
        : new ConnectionError(`could not reach ${settings.baseUrl}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      if (attempt >= maxRetries) throw failure;
      await sleep(backoffMs(attempt), options.signal);
    }
  }
}
