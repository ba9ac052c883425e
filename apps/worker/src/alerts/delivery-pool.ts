import type { Database } from '@domain-index/db';
import { DEFAULT_CIRCUIT, DEFAULT_CONCURRENCY, endpointOf, Endpoints } from '@domain-index/alerts/endpoints';
import { claimDue, deadLocalClaimers, releaseClaims, sendMessage, type Claimed, type SenderSettings } from './webhook-sender';

/** How long the pool waits, with a slot free and nothing claimable, before it looks again. */
const POLL_MS = 500;
/** How often the claim looks for dead senders of this machine whose claims it may take over. */
const DEAD_CLAIMERS_EVERY_MS = 5_000;
/** An endpoint unused this long, its circuit closed, is forgotten (longer than the longest a circuit stays open). */
const FORGET_IDLE_MS = 15 * 60_000;

/** What the pool is doing, for the metrics. */
export interface PoolState {
  inFlight: number;
  parked: number;
}

/**
 * The slots a pool of `concurrency` lets endpoints whose last attempt timed out hold at once:
 * all but a quarter. The rest is kept for endpoints that answer (or are new), so receivers that
 * hang, however many, slow the others down but never stop them: before, 100 hanging receivers
 * held all 32 slots, each for its 10 s first-byte timeout, and healthy deliveries fell to 0/s.
 */
export function suspectSlots(concurrency: number): number {
  return Math.max(1, concurrency - Math.ceil(concurrency / 4));
}

/**
 * Sends webhook messages continuously, `concurrency` at a time: when one send finishes, the next
 * claimable message starts (no rounds that wait for their slowest send). At most one request is
 * in flight per endpoint (a webhook URL's origin, see endpoints.ts), and an endpoint that keeps
 * timing out is parked by its circuit: its messages stay pending and unclaimed until it
 * half-opens, while every other endpoint's flow. Endpoints whose last attempt timed out share
 * all but a quarter of the slots (suspectSlots), so those that answer always have room. A claim takes only as many messages as there
 * are free slots, so no claim waits in memory for a slot while its lease runs.
 */
export class DeliveryPool {
  private readonly endpoints: Endpoints;
  private readonly concurrency: number;
  private readonly sends = new Set<Promise<void>>();
  /** Sends in flight to endpoints whose last attempt timed out, and how many of those may be. */
  private suspectsInFlight = 0;
  private readonly suspectLimit: number;
  private dead: string[] = [];
  private deadCheckedAt = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;
  /** Set when a slot frees while the loop is not sleeping: its next sleep returns at once. */
  private woken = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly database: Database,
    private readonly settings: SenderSettings,
  ) {
    this.concurrency = settings.concurrency ?? DEFAULT_CONCURRENCY;
    this.suspectLimit = suspectSlots(this.concurrency);
    this.endpoints = new Endpoints(settings.circuit ?? DEFAULT_CIRCUIT);
  }

  /** Requests in flight and endpoints parked now. */
  state(): PoolState {
    return { inFlight: this.sends.size, parked: this.endpoints.parkedCount() };
  }

  /** Starts sending until stopped. */
  start(): void {
    this.stopped = false;
    this.loop ??= this.run();
  }

  /** Stops claiming, and waits for the requests in flight (each within its timeout) to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.notify();
    await this.loop;
    this.loop = undefined;
    await Promise.allSettled([...this.sends]);
  }

  /**
   * One pass for a caller that sends by turns (tests): claims and sends until nothing more is
   * claimable, waiting for every send it started. Returns how many messages it attempted.
   */
  async drain(): Promise<number> {
    let attempted = 0;
    for (;;) {
      const { started } = await this.claimAndStart();
      attempted += started;
      if (this.sends.size === 0) {
        if (started === 0) return attempted;
        continue;
      }
      await Promise.race(this.sends);
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let full = false;
      try {
        const { claimed, limit } = await this.claimAndStart();
        // a full claim may have left more behind: look again at once while slots are free
        full = claimed > 0 && claimed === limit;
      } catch (error) {
        this.settings.logger.error({ err: error }, 'claiming webhook messages failed; the sender tries again shortly');
      }
      this.endpoints.forgetIdle(FORGET_IDLE_MS);
      if (!full || this.sends.size >= this.concurrency) await this.sleep(POLL_MS);
    }
  }

  /** Claims as many messages as there are free slots and starts each whose endpoint is free. */
  private async claimAndStart(): Promise<{ claimed: number; started: number; limit: number }> {
    const limit = this.concurrency - this.sends.size;
    if (limit <= 0 || this.stopped) return { claimed: 0, started: 0, limit };
    const now = this.settings.clock.now();
    if (now.getTime() - this.deadCheckedAt >= DEAD_CLAIMERS_EVERY_MS) {
      this.dead = await deadLocalClaimers(this.database, now);
      this.deadCheckedAt = now.getTime();
    }
    const suspectsFull = () => this.suspectsInFlight >= this.suspectLimit;
    const exclude = this.endpoints.unavailableUrls({ suspects: suspectsFull() });
    const claimed = await claimDue(this.database, this.settings, { limit, exclude, dead: this.dead });
    const unsent: string[] = [];
    let started = 0;
    for (const message of claimed) {
      const suspect = this.endpoints.suspect(message.webhook_url);
      if (!(suspect && suspectsFull()) && this.endpoints.acquire(message.webhook_url)) {
        this.begin(message, suspect);
        started += 1;
      } else {
        // its endpoint is busy, parked, or timed out last while the slots for such are taken:
        // its URL is known now, and the next claims leave it alone
        unsent.push(message.id);
      }
    }
    await releaseClaims(this.database, unsent);
    return { claimed: claimed.length, started, limit };
  }

  private begin(message: Claimed, suspect: boolean): void {
    if (suspect) this.suspectsInFlight += 1;
    const send = (async () => {
      let end: Awaited<ReturnType<typeof sendMessage>>;
      try {
        end = await sendMessage(this.database, this.settings, message);
      } catch (error) {
        // the claim lapses and the message is sent again; one bad message never stops the others
        this.settings.logger.error({ err: error, deliveryId: message.id, alertId: message.alert_id }, 'could not send a webhook message; it will be tried again');
      }
      if (this.endpoints.release(message.webhook_url, end)) {
        this.settings.logger.warn({ alertId: message.alert_id, endpoint: endpointOf(message.webhook_url) }, 'a webhook endpoint keeps timing out: its messages wait until its circuit half-opens');
      }
    })();
    this.sends.add(send);
    void send.finally(() => {
      this.sends.delete(send);
      if (suspect) this.suspectsInFlight -= 1;
      this.notify();
    });
  }

  private notify(): void {
    this.woken = true;
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms).unref();
      this.wake = done;
    });
  }
}
