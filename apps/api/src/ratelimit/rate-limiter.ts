/** The usage of one key in its current window after counting one request. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** End of the current window, unix seconds (X-RateLimit-Reset). */
  resetAt: number;
}

/** One fixed window: `limit` requests per `windowSeconds`, aligned to the epoch. */
export interface RateLimitPolicy {
  limit: number;
  windowSeconds: number;
}

/**
 * Counts a request against a key's fixed window. Implementations count atomically (no
 * read-modify-write race) and throw {@link RateLimiterUnavailableError} when they cannot
 * count, so that a request is never served unmetered.
 */
export interface RateLimiter {
  consume(keyId: string, policy: RateLimitPolicy, now: Date): Promise<RateLimitDecision>;
  /**
   * Counts `cost` more requests in the key's current window only if all of them fit; when they
   * do not, nothing is counted and the decision says how many remain (an export's cost).
   */
  reserve(keyId: string, policy: RateLimitPolicy, now: Date, cost: number): Promise<RateLimitDecision>;
  /**
   * Takes one of `max` slots named `name` (a key's running exports), held until the returned
   * release is called; undefined when all are taken. A slot of a process that died is freed
   * after `leaseMs` (the holder renews it while it runs).
   */
  acquireSlot(name: string, max: number, leaseMs: number): Promise<(() => Promise<void>) | undefined>;
  close(): Promise<void>;
}

/** The limiter's backend cannot count right now. */
export class RateLimiterUnavailableError extends Error {
  override readonly name = 'RateLimiterUnavailableError';
}

/** The window containing `now`: its start (the counter's name) and its end. */
export function currentWindow(policy: RateLimitPolicy, now: Date): { start: number; resetAt: number } {
  const seconds = Math.floor(now.getTime() / 1000);
  const start = seconds - (seconds % policy.windowSeconds);
  return { start, resetAt: start + policy.windowSeconds };
}

/** The decision for a window whose counter now stands at `count`. */
export function decide(policy: RateLimitPolicy, count: number, resetAt: number): RateLimitDecision {
  return { allowed: count <= policy.limit, limit: policy.limit, remaining: Math.max(0, policy.limit - count), resetAt };
}
