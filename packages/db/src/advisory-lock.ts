import type { Database } from './database';

/** Held locks of this process, for PGlite: one process owns an embedded database. */
const localLocks = new Set<string>();

/** What became of a lock that was taken: whether it was lost while the work ran. */
export interface LockOutcome<T> {
  acquired: true;
  value: T;
  /**
   * Set when the lock's transaction ended before the work did (its connection was closed: the
   * server restarted, or `idle_in_transaction_session_timeout` ended it): another process may
   * have taken the lock meanwhile.
   */
  lost?: Error;
}

/**
 * Runs `work` while holding the advisory lock named `name`, or returns `{ acquired: false }` at
 * once when another process (or task) holds it. On PostgreSQL the lock is transaction-scoped
 * (`pg_try_advisory_xact_lock`) and held by a transaction of its own that stays open while
 * `work` runs on the pool's other connections: it is released when the work is done, when this
 * process dies (its connection closes), and it works through a pooler in transaction mode,
 * where a session lock would stay behind on whichever server connection took it. The work is
 * not interrupted if the lock's transaction is lost; the outcome says so.
 */
export async function withAdvisoryLock<T>(
  database: Database,
  name: string,
  work: () => Promise<T>,
): Promise<LockOutcome<T> | { acquired: false }> {
  const { driver } = database;
  if (driver.kind === 'pglite') {
    if (localLocks.has(name)) return { acquired: false };
    localLocks.add(name);
    try {
      return { acquired: true, value: await work() };
    } finally {
      localLocks.delete(name);
    }
  }
  let taken!: (locked: boolean) => void;
  const decided = new Promise<boolean>((resolve) => (taken = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const holding = driver.client.begin(async (tx) => {
    const [row] = await tx<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(hashtext(${name})) as locked`;
    taken(row?.locked === true);
    if (row?.locked === true) await released;
  });
  // A failure before the lock was decided (no connection) is thrown below; one after it, while
  // the work runs, is reported as `lost`.
  let lost: Error | undefined;
  const ended = holding.then(
    () => undefined,
    (error: unknown) => {
      lost = error instanceof Error ? error : new Error(String(error));
    },
  );
  const locked = await Promise.race([decided, ended.then(() => undefined)]);
  if (locked === undefined) throw lost ?? new Error('the lock transaction ended before the lock was taken');
  if (!locked) {
    await ended;
    return { acquired: false };
  }
  let value: T;
  try {
    value = await work();
  } finally {
    release();
    await ended;
  }
  // read once the lock's transaction has ended: its COMMIT fails if the connection was lost
  return { acquired: true, value, ...(lost !== undefined && { lost }) };
}
