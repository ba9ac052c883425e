import { sql, type Database } from '@domain-index/db';

const DAY_MS = 86_400_000;
const PARTITION = /^request_log_p(\d{4})(\d{2})(\d{2})$/;

/** The start of the UTC day of a time, ms since the epoch. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The name of the partition of request_log that holds a UTC day: `request_log_p20261125`. */
export function partitionName(day: number): string {
  return `request_log_p${new Date(day).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/**
 * Makes the partition of each day unless it exists. Instances that make one at once may see an
 * error from the one that lost the race: the partition is there all the same, so only a
 * partition still missing afterwards is a failure.
 */
export async function ensurePartitions(database: Database, days: Iterable<number>): Promise<void> {
  for (const day of days) {
    const name = partitionName(day);
    const from = new Date(day).toISOString();
    const to = new Date(day + DAY_MS).toISOString();
    try {
      await database.rows(
        sql.raw(
          `create table if not exists "${name}" partition of request_log for values from ('${from}') to ('${to}')`,
        ),
      );
    } catch (error) {
      const [found] = await database.rows<{ exists: boolean }>(
        sql`select to_regclass(${name}) is not null as exists`,
      );
      if (found?.exists !== true) throw error;
    }
  }
}

/**
 * Drops the partitions whose whole day is older than `cutoff` (what they hold is past keeping),
 * each in a transaction that waits at most 2 s for its locks: dropping a partition locks its
 * parent for a moment, and a drop that cannot have that lock is tried again another time rather
 * than holding up the requests queued behind it. Returns the partitions dropped.
 */
export async function dropPartitionsBefore(database: Database, cutoff: number): Promise<string[]> {
  const partitions = await database.rows<{ name: string }>(
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'request_log'::regclass`,
  );
  const dropped: string[] = [];
  for (const { name } of partitions) {
    const match = PARTITION.exec(name);
    if (match === null) continue;
    const day = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
    if (day + DAY_MS > cutoff) continue;
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`set local lock_timeout = '2s'`);
      await tx.execute(sql.raw(`drop table if exists "${name}"`));
    });
    dropped.push(name);
  }
  return dropped;
}
