import type postgres from 'postgres';
import { SentCancels } from './cancel-delivery';
import { DeadlineExceededError } from './deadline';

/** What a postgres.js query is beyond its promise: the parts a deadline needs. */
interface DriverQuery {
  /** Set once the query was handed to a connection (its backend's pid and secret). */
  state?: unknown;
  /** Whether its connection is running it now (not queued behind another of its statements). */
  active: boolean;
  /**
   * Removes a queued query, or asks the server to cancel a sent one (a CancelRequest). Called
   * directly rather than through `cancel()`, which drops the promise it returns: a CancelRequest
   * that cannot connect (the server or pooler is the thing that is stalled) rejected it unhandled.
   */
  canceller: ((query: DriverQuery) => Promise<unknown>) | null;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

function isDriverQuery(value: unknown): value is DriverQuery {
  return value instanceof Promise && 'canceller' in value && typeof (value as Partial<DriverQuery>).reject === 'function';
}

/**
 * The postgres.js client bound by `deadline` (epoch ms): everything sent through it (tagged
 * statements, `unsafe`, and the statements of `begin` and `savepoint` transactions) must
 * finish by then. `Database.until` hands it out; the client itself stays unbound.
 *
 * Why not the server's statement_timeout alone: it starts when the statement reaches the
 * server, so the time spent waiting for a connection (a stalled server accepts connections and
 * never answers; a paused pooler holds them) was not bounded at all, and the driver's connect
 * timeout let a request hang 30 s per statement. And a pooler in transaction mode cannot take
 * statement_timeout as a startup parameter.
 */
export function boundByDeadline<T extends postgres.Sql | postgres.TransactionSql>(client: T, deadline: number, cancels?: SentCancels): T {
  return new Proxy(client, {
    apply(target, thisArg, args) {
      return bound(Reflect.apply(target as (...a: unknown[]) => unknown, thisArg, args), deadline, cancels);
    },
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (property === 'unsafe') return (...args: unknown[]) => bound(Reflect.apply(method, target, args), deadline, cancels);
      if (property === 'begin' || property === 'savepoint') return (...args: unknown[]) => transaction(target, method, args, deadline);
      return value;
    },
  });
}

/** How often the in-flight statements are checked against their deadlines. */
const SWEEP_MS = 10;

/**
 * Every in-flight statement that has a deadline, checked by one timer. A timer per statement
 * (setTimeout when sent, clearTimeout when answered) was a few microseconds of every lookup's
 * CPU (bench/notes/80); a statement now costs a Map entry, and a deadline is acted on within
 * SWEEP_MS of passing. The timer runs only while some statement is in flight.
 */
class DeadlineWatch {
  private readonly inFlight = new Map<DriverQuery, { deadline: number; cancels: SentCancels | undefined }>();
  private timer: NodeJS.Timeout | undefined;

  add(query: DriverQuery, deadline: number, cancels: SentCancels | undefined): void {
    this.inFlight.set(query, { deadline, cancels });
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), SWEEP_MS);
      // a statement in flight keeps its socket, and so the process, alive already
      this.timer.unref();
    }
  }

  delete(query: DriverQuery): void {
    this.inFlight.delete(query);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [query, { deadline, cancels }] of this.inFlight) {
      if (deadline > now) continue;
      this.inFlight.delete(query);
      expire(query, cancels);
    }
    if (this.inFlight.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

const watch = new DeadlineWatch();

/**
 * Rejects a query whose deadline passed, and takes it off the queue or cancels it on the server;
 * a statement of a transaction hands its cancel to the transaction, whose ROLLBACK waits for it.
 */
function expire(query: DriverQuery, cancels: SentCancels | undefined): void {
  const { canceller, active } = query;
  query.canceller = null;
  query.reject(new DeadlineExceededError());
  // postgres.js marks a rejected query inactive, and would then only note a cancel for later
  // instead of sending it: the canceller must see it as it was, running on its backend
  query.active = active;
  const delivery = canceller?.(query);
  if (delivery === undefined) return;
  if (cancels === undefined) delivery.catch(() => undefined);
  else cancels.add(delivery);
}

/**
 * A query that settles by its deadline: when the deadline passes first, the caller's promise is
 * rejected, and the query is taken off the pool's queue (never sent) or cancelled on the server
 * (sent). A query made after its deadline is refused before anything is sent.
 */
export function bound<Q>(made: Q, deadline: number, cancels?: SentCancels): Q {
  if (!isDriverQuery(made)) return made;
  if (deadline <= Date.now()) throw new DeadlineExceededError();
  const query = made;
  // Every way postgres.js settles a query goes through these two: once it has, the watch must
  // forget it, since its backend may be running someone else's statement by then.
  const { resolve, reject } = query;
  query.resolve = (value) => {
    watch.delete(query);
    resolve(value);
  };
  query.reject = (error) => {
    watch.delete(query);
    reject(error);
  };
  watch.add(query, deadline, cancels);
  return made;
}

type TransactionBody = (sql: postgres.TransactionSql) => unknown;

/**
 * `begin` or `savepoint` whose body gets a bound client. Waiting for the connection counts
 * against the deadline: past it the caller is answered at once, and when the connection comes
 * later the body does not run (the transaction rolls back at once). The ROLLBACK (or COMMIT)
 * is sent only once the cancels of the body's expired statements have been delivered, so that
 * none lands on it (cancel-delivery.ts); the caller has had its answer at the deadline already.
 */
function transaction(target: object, method: (...args: unknown[]) => unknown, args: unknown[], deadline: number): unknown {
  const body = args.at(-1) as TransactionBody;
  const guarded: TransactionBody = async (sql) => {
    if (Date.now() >= deadline) throw new DeadlineExceededError();
    const cancels = new SentCancels();
    try {
      const made = body(boundByDeadline(sql, deadline, cancels));
      // postgres.js's own reading of a body's result: an array of queries is awaited as one
      return await (Array.isArray(made) ? Promise.all(made) : made);
    } finally {
      await cancels.delivered();
    }
  };
  const started = Reflect.apply(method, target, [...args.slice(0, -1), guarded]) as Promise<unknown>;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineExceededError()), Math.max(0, deadline - Date.now()));
    started.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
