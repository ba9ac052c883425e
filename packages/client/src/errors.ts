import { ERROR_STATUS, type ErrorCode } from './generated/api-types';

/** The error codes answered with one of the given statuses. */
export type ErrorCodeOf<Status extends number> = { [Code in ErrorCode]: (typeof ERROR_STATUS)[Code] extends Status ? Code : never }[ErrorCode];

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
 * Where an error records the kinds it is (its class and their ancestors). A registered symbol,
 * so the ESM and the CommonJS build, loaded side by side in one program, read each other's.
 */
const KINDS = Symbol.for('@domain-index/client/error-kinds');

/** The kinds of an error class and of the classes it extends, as `instanceof` checks them. */
function kindsOf(errorClass: unknown): string[] {
  const kinds: string[] = [];
  for (let current = errorClass; typeof current === 'function'; current = Object.getPrototypeOf(current)) {
    if (Object.hasOwn(current, 'kind')) kinds.push(String((current as unknown as { kind: unknown }).kind));
  }
  return kinds;
}

const isKnownCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code);

/**
 * Base class of every error this client throws. API errors carry the HTTP `status`, the
 * machine-readable `code`, the offending `param` (for parameter errors), the `requestId` to
 * quote to support, and the response `headers`. A code this version does not know arrives as
 * this class itself, with `code` undefined and the text in `rawCode`, never as a crash.
 *
 * `instanceof` works for this class and each subclass whichever build made the error: a
 * program that loads the client both as an ES module and through `require` (two copies of
 * every class) still gets `true` from either copy.
 */
export class DomainIndexError extends Error {
  /** The name `instanceof` recognises this class by in every build of the client. */
  static readonly kind: string = 'DomainIndexError';
  override readonly name: string = 'DomainIndexError';
  /** HTTP status; undefined when no response arrived. */
  readonly status: number | undefined;
  /**
   * Error code from the API's error envelope, e.g. `invalid_parameter`; undefined when no
   * response arrived, or for a code this version of the client does not know (see `rawCode`).
   */
  readonly code: ErrorCode | undefined;
  /** The code exactly as the API sent it, including one this version does not know. */
  readonly rawCode: string | undefined;
  /** The parameter at fault, for `invalid_parameter`, `unknown_parameter`, `api_key_in_query`. */
  readonly param: string | undefined;
  /** The `X-Request-Id` of the response. */
  readonly requestId: string | undefined;
  /** Headers of the response. */
  readonly headers: Headers | undefined;

  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.code = isKnownCode(details.code) ? details.code : undefined;
    this.rawCode = details.code;
    this.param = details.param;
    this.requestId = details.requestId;
    this.headers = details.headers;
    Object.defineProperty(this, KINDS, { value: kindsOf(new.target), enumerable: false });
  }

  /** `instanceof` by kind, so that an error made by the other build (ESM or CommonJS) passes too. */
  static override [Symbol.hasInstance]<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    // a class of the caller's own that extends one of ours: the ordinary prototype check only
    if (!Object.hasOwn(this, 'kind') || typeof value !== 'object' || value === null) return false;
    const kinds = (value as { [KINDS]?: unknown })[KINDS];
    return Array.isArray(kinds) && kinds.includes((this as unknown as { kind: string }).kind);
  }
}

/** 400 or 405: the request must be changed (a bad parameter, a key in the URL, a bad domain). */
export class InvalidRequestError extends DomainIndexError {
  static override readonly kind: string = 'InvalidRequestError';
  override readonly name = 'InvalidRequestError';
  declare readonly code: ErrorCodeOf<400 | 405>;
}

/** 401: the API key is missing, malformed, unknown or revoked. */
export class AuthenticationError extends DomainIndexError {
  static override readonly kind: string = 'AuthenticationError';
  override readonly name = 'AuthenticationError';
  declare readonly code: ErrorCodeOf<401>;
}

/**
 * 409: what the call would change is in use: `watchlist_in_use` (an alert delivers the
 * watchlist's events; delete or change the alert first). Never retried.
 */
export class ConflictError extends DomainIndexError {
  static override readonly kind: string = 'ConflictError';
  override readonly name = 'ConflictError';
  declare readonly code: ErrorCodeOf<409>;
}

/**
 * 403: the key may not do this. `alert_limit_reached`: the key's plan allows no more alerts
 * (free 2, pro 50); delete one or move to a plan with more. `export_too_large`: an export would
 * stream more rows than the plan allows in one (free 10,000); narrow the filters. Never retried.
 */
export class PermissionDeniedError extends DomainIndexError {
  static override readonly kind: string = 'PermissionDeniedError';
  override readonly name = 'PermissionDeniedError';
  declare readonly code: ErrorCodeOf<403>;
}

/**
 * 404: what was asked for does not exist: the domain is not currently listed
 * (`domain_not_found`, a correct answer, not a fault), no alert of yours has that id
 * (`alert_not_found`; another account's alert answers the same), the alert has no such message
 * (`delivery_not_found`), or no such path (`not_found`). `code` tells which.
 */
export class NotFoundError extends DomainIndexError {
  static override readonly kind: string = 'NotFoundError';
  override readonly name = 'NotFoundError';
  declare readonly code: ErrorCodeOf<404>;
}

/**
 * 410 `cursor_expired`: the change feed's cursor points before the oldest event the API keeps
 * (events are kept EVENT_RETENTION_DAYS, 14 by default). Events between it and the oldest kept
 * are gone: start again without `after` (the oldest kept) or with `after: 'now'`, and re-read
 * what you need with a search. Never retried.
 */
export class CursorExpiredError extends DomainIndexError {
  static override readonly kind: string = 'CursorExpiredError';
  override readonly name = 'CursorExpiredError';
  declare readonly code: ErrorCodeOf<410>;
}

/** 429: the key's rate limit is used up. */
export class RateLimitError extends DomainIndexError {
  static override readonly kind: string = 'RateLimitError';
  override readonly name = 'RateLimitError';
  declare readonly code: ErrorCodeOf<429>;
  /** Seconds until the window resets, from `Retry-After`. */
  readonly retryAfter: number | undefined;
  constructor(message: string, details: ErrorDetails & { retryAfter?: number | undefined }) {
    super(message, details);
    this.retryAfter = details.retryAfter;
  }
}

/** 5xx: a fault on the service side; retrying later is worthwhile. */
export class ServiceUnavailableError extends DomainIndexError {
  static override readonly kind: string = 'ServiceUnavailableError';
  override readonly name: string = 'ServiceUnavailableError';
  declare readonly code: ErrorCodeOf<500 | 503>;
}

/**
 * 500 `internal_error`: a defect on the service side, not an outage. It is retried like any
 * 5xx (a fix or a restart may land meanwhile), and is a ServiceUnavailableError too, so code
 * that handles 5xx handles it; catch this class to tell it apart, e.g. to stop retrying at once.
 */
export class InternalServerError extends ServiceUnavailableError {
  static override readonly kind: string = 'InternalServerError';
  override readonly name = 'InternalServerError';
  declare readonly code: ErrorCodeOf<500>;
}

/** No response: the connection failed. */
export class ConnectionError extends DomainIndexError {
  static override readonly kind: string = 'ConnectionError';
  override readonly name: string = 'ConnectionError';
  declare readonly code: undefined;
}

/**
 * No response in time: within the client's `timeout` (per attempt, after the retries), or
 * before an `AbortSignal.timeout()` passed as `signal` fired.
 */
export class TimeoutError extends ConnectionError {
  static override readonly kind: string = 'TimeoutError';
  override readonly name = 'TimeoutError';
}

/** The call was cancelled through its `signal`; `cause` is the signal's reason. Never retried. */
export class AbortError extends DomainIndexError {
  static override readonly kind: string = 'AbortError';
  override readonly name = 'AbortError';
  declare readonly code: undefined;
}

/**
 * The error of a call whose signal fired: a TimeoutError when the signal timed out
 * (`AbortSignal.timeout()`), else an AbortError; either keeps the signal's reason as `cause`.
 */
export function abortedBy(signal: AbortSignal): DomainIndexError {
  const reason: unknown = signal.reason;
  if (reason instanceof DomainIndexError) return reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') return new TimeoutError('the call timed out: its signal fired', { cause: reason });
  return new AbortError('the call was aborted', { cause: reason });
}

/** Seconds of a `Retry-After` header (delta seconds or an HTTP date). */
export function parseRetryAfter(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

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
  if (family === 403) return new PermissionDeniedError(message, details);
  if (family === 404) return new NotFoundError(message, details);
  if (family === 409) return new ConflictError(message, details);
  if (family === 410) return new CursorExpiredError(message, details);
  if (family === 429) return new RateLimitError(message, { ...details, retryAfter: parseRetryAfter(headers) });
  if (code === 'internal_error') return new InternalServerError(message, details);
  if (family === 500 || family === 503) return new ServiceUnavailableError(message, details);
  // A status the contract gains later must get its family above: until then this does not compile.
  return unmappedStatus(family, message, details);
}

function unmappedStatus(family: never, message: string, details: ErrorDetails): DomainIndexError {
  return new DomainIndexError(`${message} (HTTP ${String(family)})`, details);
}
