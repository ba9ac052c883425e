import { currentWindow, decide, type RateLimitDecision, type RateLimiter, type RateLimitPolicy } from './rate-limiter';

/**
 * Counters in this process: the embedded default, one instance only (several instances would
 * each allow the full limit). Node runs one request's counting at a time, so it is atomic.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { resetAt: number; count: number }>();
  private readonly slots = new Map<string, number>();

  consume(keyId: string, policy: RateLimitPolicy, now: Date): Promise<RateLimitDecision> {
    const { start, resetAt } = currentWindow(policy, now);
    const name = `${keyId}:${policy.windowSeconds}:${start}`;
    const window = this.windows.get(name) ?? { resetAt, count: 0 };
    window.count += 1;
    this.windows.set(name, window);
    if (this.windows.size > 10_000) this.prune(now);
    return Promise.resolve(decide(policy, window.count, resetAt));
  }

  reserve(keyId: string, policy: RateLimitPolicy, now: Date, cost: number): Promise<RateLimitDecision> {
    const { start, resetAt } = currentWindow(policy, now);
    const name = `${keyId}:${policy.windowSeconds}:${start}`;
    const window = this.windows.get(name) ?? { resetAt, count: 0 };
    if (window.count + cost > policy.limit) return Promise.resolve({ ...decide(policy, window.count, resetAt), allowed: false });
    window.count += cost;
    this.windows.set(name, window);
    return Promise.resolve(decide(policy, window.count, resetAt));
  }

  /** Slots of this process only: with several instances (or WORKERS) each has its own. */
  acquireSlot(name: string, max: number, _leaseMs?: number): Promise<(() => Promise<void>) | undefined> {
    const held = this.slots.get(name) ?? 0;
    if (held >= max) return Promise.resolve(undefined);
    this.slots.set(name, held + 1);
    let released = false;
    return Promise.resolve(() => {
      if (!released) {
        released = true;
        const left = (this.slots.get(name) ?? 1) - 1;
        if (left <= 0) this.slots.delete(name);
        else this.slots.set(name, left);
      }
      return Promise.resolve();
    });
  }

  close(): Promise<void> {
    this.slots.clear();
    this.windows.clear();
    return Promise.resolve();
  }

  /** Drops counters of windows that have ended. */
  private prune(now: Date): void {
    const seconds = now.getTime() / 1000;
    for (const [name, window] of this.windows) if (window.resetAt <= seconds) this.windows.delete(name);
  }
}
