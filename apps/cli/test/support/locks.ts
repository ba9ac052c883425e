import { openDatabase, sql, type Database } from '@domain-index/db';
import { until } from '@domain-index/test-support/waiting';

/** A table lock a test holds in a transaction of its own. */
export interface HeldLock {
  /** Ends the transaction (releasing the lock) and closes its connection. */
  release(): Promise<void>;
}

/** Lock requests on `table` in this database, granted or still waiting, as pg_locks shows them. */
export async function locksOn(
  database: Database,
  table: string,
  granted: boolean,
): Promise<number> {
  const [row] = await database.rows<{ n: number }>(sql`
    select count(*)::int as n from pg_locks
    where locktype = 'relation' and relation = to_regclass(${table}) and granted = ${granted}
      and database = (select oid from pg_database where datname = current_database())`);
  return row?.n ?? 0;
}

/**
 * Takes ACCESS EXCLUSIVE on `table` in a transaction on a connection of its own, and resolves
 * once pg_locks shows it granted: from then on every statement on the table waits, which a test
 * can rely on without sleeping.
 */
export async function holdTableLock(url: string, table = 'listings'): Promise<HeldLock> {
  const holder = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  const observer = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  if (holder.driver.kind !== 'postgres') throw new Error('expected PostgreSQL');
  let end: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (end = resolve));
  let failure: Error | undefined;
  const held = holder.driver.client
    .begin(async (tx) => {
      await tx.unsafe(`lock table ${table} in access exclusive mode`);
      await ended;
    })
    .catch((error: unknown) => {
      failure = error instanceof Error ? error : new Error(String(error));
    });
  const release = async () => {
    end();
    await held;
    await holder.close();
  };
  try {
    await until(
      `the lock on ${table} is held`,
      async () => {
        if (failure !== undefined) throw failure;
        return (await locksOn(observer, table, true)) > 0;
      },
      20_000,
    );
  } catch (error) {
    await release();
    throw error;
  } finally {
    await observer.close();
  }
  return { release };
}

/** Waits until at least `count` statements of this database wait for a lock on `table`. */
export async function untilWaiting(
  database: Database,
  table: string,
  count = 1,
  ms = 20_000,
): Promise<void> {
  await until(
    `${count} statement(s) wait on the lock on ${table}`,
    async () => (await locksOn(database, table, false)) >= count,
    ms,
  );
}
