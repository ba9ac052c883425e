import type { HostLimits } from './limits';

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/**
 * The door to one RDAP host: at most `concurrency` requests in flight, and starts spaced at
 * least 60 s / `perMinute` apart, so that no minute (no window of any length) holds more than
 * its share. Waiters go through in order. Even spacing rather than a bucket that refills: a
 * bucket lets a full minute's worth through at once, which is what a registry's limiter punishes.
 */
export class HostGate {
  private active = 0;
  private nextStartAt = 0;
  private readonly queue: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(readonly limits: HostLimits) {}

  /** The shortest time between two starts, in milliseconds. */
  get spacingMs(): number {
    return 60_000 / this.limits.perMinute;
  }

  /** Runs `work` when the limits allow it; rejects with the signal's reason if aborted while waiting. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await work();
    } finally {
      this.active--;
      this.pump();
    }
  }

  /** Stops the timer and turns every waiter away. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const waiter of this.queue.splice(0)) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.reject(new Error('RDAP client closed'));
    }
  }

  private acquire(signal: AbortSignal | undefined): Promise<void> {
    if (this.closed) return Promise.reject(new Error('RDAP client closed'));
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(signal?.reason as Error);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.queue.push(waiter);
      this.pump();
    });
  }

  private pump(): void {
    if (this.closed || this.timer !== undefined) return;
    while (this.queue.length > 0 && this.active < this.limits.concurrency) {
      const wait = this.nextStartAt - Date.now();
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, wait);
        return;
      }
      const waiter = this.queue.shift()!;
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      this.active++;
      this.nextStartAt = Date.now() + this.spacingMs;
      waiter.resolve();
    }
  }
}
