/** The rate-limit state reported by the latest response. */
export interface RateLimitInfo {
  /** Requests allowed per window. */
  limit: number;
  /** Window length in seconds. */
  windowSeconds: number;
  /** Requests left in the current window, when the API could report it. */
  remaining: number | undefined;
  /** When the current window ends, when the API could report it. */
  reset: Date | undefined;
}

const integer = (value: string | null) => (value !== null && /^\d+$/.test(value) ? Number(value) : undefined);

/** Reads the X-RateLimit-* headers; undefined when the response carried none (e.g. a 401). */
export function readRateLimit(headers: Headers): RateLimitInfo | undefined {
  const limit = integer(headers.get('x-ratelimit-limit'));
  const windowSeconds = integer(headers.get('x-ratelimit-window'));
  if (limit === undefined || windowSeconds === undefined) return undefined;
  const reset = integer(headers.get('x-ratelimit-reset'));
  return {
    limit,
    windowSeconds,
    remaining: integer(headers.get('x-ratelimit-remaining')),
    reset: reset === undefined ? undefined : new Date(reset * 1000),
  };
}
