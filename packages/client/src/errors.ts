import { ERROR_STATUS, type ErrorCode } from './generated/api-types';

/** What an error was built from. */
interface ErrorDetails {
  status?: number | undefined;
  code?: string | undefined;
  param?: string | undefined;
  requestId?: string | undefined;
  headers?: Headers | undefined;
  cause?: unknown;
}

/**
 * Base class of every error this client throws. API errors carry the HTTP `status`, the
 * machine-readable `code`, the offending `param` (for parameter errors), the `requestId` to
 * quote to support, and the response `headers`. A code this version does not know arrives as
 * this class itself, never as a crash.
 */
export class DomainIndexError extends Error {
  override readonly name: string = 'DomainIndexError';
  /** HTTP status; undefined when no response arrived. */
  readonly status: number | undefined;
  /** Error code from the API's error envelope, e.g. `invalid_parameter`. */
  readonly code: string | undefined;
  /** The parameter at fault, for `invalid_parameter`, `unknown_parameter`, `api_key_in_query`. */
  readonly param: string | undefined;
  /** The `X-Request-Id` of the response. */
  readonly requestId: string | undefined;
  /** Headers of the response. */
  readonly headers: Headers | undefined;

  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.code = details.code;
    this.param = details.param;
    this.requestId = details.requestId;
    this.headers = details.headers;
  }
}

/** 400 or 405: the request must be changed (a bad parameter, a key in the URL, a bad domain). */
export class InvalidRequestError extends DomainIndexError {
  override readonly name = 'InvalidRequestError';
}

/** 401: the API key is missing, malformed, unknown or revoked. */
export class AuthenticationError extends DomainIndexError {
  override readonly name = 'AuthenticationError';
}

/** 404: the domain is not currently listed (a correct answer, not a fault), or no such path. */
export class NotFoundError extends DomainIndexError {
  override readonly name = 'NotFoundError';
}

/** 429: the key's rate limit is used up. */
export class RateLimitError extends DomainIndexError {
  override readonly name = 'RateLimitError';
  /** Seconds until the window resets, from `Retry-After`. */
  readonly retryAfter: number | undefined;
  constructor(message: string, details: ErrorDetails & { retryAfter?: number | undefined }) {
    super(message, details);
    this.retryAfter = details.retryAfter;
  }
}

/** 5xx: a fault on the service side; retrying later is worthwhile. */
export class ServiceUnavailableError extends DomainIndexError {
  override readonly name: string = 'ServiceUnavailableError';
}

/**
 * 500 `internal_error`: a defect on the service side, not an outage. It is retried like any
 * 5xx (a fix or a restart may land meanwhile), and is a ServiceUnavailableError too, so code
 * that handles 5xx handles it; catch this class to tell it apart, e.g. to stop retrying at once.
 */
export class InternalServerError extends ServiceUnavailableError {
  override readonly name = 'InternalServerError';
}

/** No response: the connection failed. */
export class ConnectionError extends DomainIndexError {
  override readonly name: string = 'ConnectionError';
}

/** No response within the timeout. */
export class TimeoutError extends ConnectionError {
  override readonly name = 'TimeoutError';
}

/** Seconds of a `Retry-After` header (delta seconds or an HTTP date). */
export function parseRetryAfter(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

const isKnownCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code);

/** The error for an API response: the family of its code, or the base class for a code unknown here. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): DomainIndexError {
  const error = (body as { error?: { code?: unknown; message?: unknown; param?: unknown } } | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : undefined;
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  const details: ErrorDetails = {
    status,
    code,
    param: typeof error?.param === 'string' ? error.param : undefined,
    requestId: headers.get('x-request-id') ?? undefined,
    headers,
  };
  if (!isKnownCode(code)) return new DomainIndexError(message, details);
  const family = ERROR_STATUS[code];
  if (family === 400 || family === 405) return new InvalidRequestError(message, details);
  if (family === 401) return new AuthenticationError(message, details);
  if (family === 404) return new NotFoundError(message, details);
  if (family === 429) return new RateLimitError(message, { ...details, retryAfter: parseRetryAfter(headers) });
  if (code === 'internal_error') return new InternalServerError(message, details);
  return new ServiceUnavailableError(message, details);
}
