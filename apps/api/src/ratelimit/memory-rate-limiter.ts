import { currentWindow, decide, type RateLimitDecision, type RateLimiter, type RateLimitPolicy } from './rate-limiter';

/**
 * Counters in this process: the embedded default, one instance only (several instances would
 * each allow the full limit). Node runs one request's counting at a time, so it is atomic.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { resetAt: number; count: number }>();

  consume(keyId: string, policy: RateLimitPolicy, now: Date): Promise<RateLimitDecision> {
    const { start, resetAt } = currentWindow(policy, now);
    const name = `${keyId}:${policy.windowSeconds}:${start}`;
    const window = this.windows.get(name) ?? { resetAt, count: 0 };
    window.count += 1;
    this.windows.set(name, window);
    if (this.windows.size > 10_000) this.prune(now);
    return Promise.resolve(decide(policy, window.count, resetAt));
  }

  close(): Promise<void> {
    this.windows.clear();
    return Promise.resolve();
  }

  /** Drops counters of windows that have ended. */
  private prune(now: Date): void {
    const seconds = now.getTime() / 1000;
    for (const [name, window] of this.windows) if (window.resetAt <= seconds) this.windows.delete(name);
  }
}
