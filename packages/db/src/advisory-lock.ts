import type { Database } from './database';

/** Held locks of this process, for PGlite: one process owns an embedded database. */
const localLocks = new Set<string>();

/**
 * Runs `work` while holding a session-level advisory lock named `name`, or returns
 * `{ acquired: false }` at once when another process (or task) holds it. On PostgreSQL the
 * lock lives on a reserved connection, so it is released even if this process dies.
 */
export async function withAdvisoryLock<T>(
  database: Database,
  name: string,
  work: () => Promise<T>,
): Promise<{ acquired: true; value: T } | { acquired: false }> {
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
  const connection = await driver.client.reserve();
  try {
    const [row] = await connection<{ locked: boolean }[]>`select pg_try_advisory_lock(hashtext(${name})) as locked`;
    if (row?.locked !== true) return { acquired: false };
    try {
      return { acquired: true, value: await work() };
    } finally {
      await connection`select pg_advisory_unlock(hashtext(${name}))`;
    }
  } finally {
    connection.release();
  }
}

