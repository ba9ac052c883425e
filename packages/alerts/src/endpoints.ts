/**
 * Where webhook messages go, as the sender keeps apart: an endpoint is a webhook URL's origin
 * (scheme, host, port), not the alert. What stalls, and what recovers, is a server: an account's
 * alerts that all point at one slow receiver hold one sending slot between them, not one each, and
 * a receiver that stopped answering is parked once instead of being found out again, alert by
 * alert, at a timeout each. An alert's own order is kept by the claim (only its oldest message is
 * claimable). The cost: alerts of different accounts on one shared receiving service share its
 * slot and its circuit.
 */
export function endpointOf(webhookUrl: string): string {
  try {
    const { origin } = new URL(webhookUrl);
    return origin === 'null' ? webhookUrl : origin;
  } catch {
    return webhookUrl;
  }
}

/**
 * Webhook requests a sender has in flight at once by default (WEBHOOK_CONCURRENCY): well above
 * the receivers that hang at any one time. A request waiting on a receiver costs a socket, not
 * CPU or a database connection; at 32, 100 new receivers that hang held every slot for their
 * first 10-s timeouts, turn after turn, and nothing else went out (bench webhook-isolation).
 */
export const DEFAULT_CONCURRENCY = 128;

/** When a circuit parks an endpoint, and for how long. */
export interface CircuitSettings {
  /** Timeouts in a row that park an endpoint. */
  timeoutsToOpen: number;
  /** How long it is parked the first time; each timeout of a trial message doubles it. */
  openMs: number;
  /** The longest it is parked at a time. */
  maxOpenMs: number;
}

export const DEFAULT_CIRCUIT: CircuitSettings = { timeoutsToOpen: 3, openMs: 30_000, maxOpenMs: 600_000 };

interface EndpointState {
  inFlight: boolean;
  /** Attempts in a row that got no answer in time (connect, headers, or the whole attempt). */
  timeouts: number;
  /** Its last attempt timed out: it may hold only the slots not kept for endpoints that answer. */
  suspect: boolean;
  /** Parked until then (ms since the epoch); past it, one trial message may go. */
  openUntil: number | undefined;
  openMs: number;
  /** The webhook URLs seen for this endpoint: the claim leaves their messages alone while it is busy or parked. */
  urls: Set<string>;
  lastUsed: number;
}

/** How an attempt ended, as the circuit counts it. */
export type AttemptEnd = 'answered' | 'timeout' | 'failed';

/**
 * The sender's view of its endpoints: which has a request in flight (at most one each), and a
 * circuit per endpoint. An endpoint whose attempts time out `timeoutsToOpen` times in a row is
 * parked for `openMs`: its messages stay pending, unclaimed. Then it half-opens: one message is
 * tried; an answer (any HTTP status) closes the circuit, another timeout parks it again for twice
 * as long (up to `maxOpenMs`). A failure that is not a timeout (refused, DNS) costs no slot for
 * long and neither opens nor keeps a circuit open. Kept per process: each sender learns for itself.
 */
export class Endpoints {
  private readonly states = new Map<string, EndpointState>();

  constructor(
    private readonly circuit: CircuitSettings = DEFAULT_CIRCUIT,
    private readonly now: () => number = Date.now,
  ) {}

  private state(endpoint: string): EndpointState {
    let state = this.states.get(endpoint);
    if (state === undefined) {
      state = { inFlight: false, timeouts: 0, suspect: false, openUntil: undefined, openMs: this.circuit.openMs, urls: new Set(), lastUsed: this.now() };
      this.states.set(endpoint, state);
    }
    return state;
  }

  /** True when the endpoint is parked now (its circuit open, not yet half-open). */
  parked(endpoint: string): boolean {
    const openUntil = this.states.get(endpoint)?.openUntil;
    return openUntil !== undefined && this.now() < openUntil;
  }

  /** Takes the endpoint's one slot for a message to `url`; false when it is busy or parked. */
  acquire(url: string): boolean {
    const endpoint = endpointOf(url);
    const state = this.state(endpoint);
    state.urls.add(url);
    state.lastUsed = this.now();
    if (state.inFlight || this.parked(endpoint)) return false;
    state.inFlight = true;
    return true;
  }

  /** Gives the slot back, with how the attempt ended; returns true when this parked the endpoint. */
  release(url: string, end: AttemptEnd | undefined): boolean {
    const state = this.state(endpointOf(url));
    state.inFlight = false;
    state.lastUsed = this.now();
    if (end === undefined) return false;
    state.suspect = end === 'timeout';
    if (end !== 'timeout') {
      state.timeouts = 0;
      state.openUntil = undefined;
      state.openMs = this.circuit.openMs;
      return false;
    }
    state.timeouts += 1;
    if (state.timeouts < this.circuit.timeoutsToOpen) return false;
    // the trial of a half-open circuit timed out too: twice as long
    if (state.openUntil !== undefined) state.openMs = Math.min(state.openMs * 2, this.circuit.maxOpenMs);
    state.openUntil = this.now() + state.openMs;
    return true;
  }

  /** True when the last attempt to the endpoint of `url` timed out (see DeliveryPool's suspect slots). */
  suspect(url: string): boolean {
    return this.states.get(endpointOf(url))?.suspect === true;
  }

  /**
   * The webhook URLs whose messages no claim should take now: their endpoint is busy or parked,
   * and with `suspects`, also every endpoint whose last attempt timed out.
   */
  unavailableUrls(options: { suspects?: boolean } = {}): string[] {
    const urls: string[] = [];
    for (const [endpoint, state] of this.states) {
      if (state.inFlight || this.parked(endpoint) || (options.suspects === true && state.suspect)) urls.push(...state.urls);
    }
    return urls;
  }

  /** Endpoints parked now. */
  parkedCount(): number {
    let count = 0;
    for (const endpoint of this.states.keys()) if (this.parked(endpoint)) count += 1;
    return count;
  }

  /** Forgets endpoints idle for `idleMs`, neither busy nor parked, so the map stays the size of what is in use. */
  forgetIdle(idleMs: number): void {
    const before = this.now() - idleMs;
    for (const [endpoint, state] of this.states) {
      if (!state.inFlight && !this.parked(endpoint) && state.lastUsed < before) this.states.delete(endpoint);
    }
  }
}
