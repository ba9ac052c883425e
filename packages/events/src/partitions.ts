import { classifyDatabaseFailure, sql, type Database } from '@domain-index/db';

const DAY_MS = 86_400_000;

/** The partition of `listing_events` that holds the events of the UTC day starting at `dayStart`. */
export function partitionName(dayStart: Date): string {
  return `listing_events_${dayStart.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The start (00:00 UTC) of the day of `at`. */
export function dayOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** Partitions known to exist, per database: checked once per process and day. */
const known = new WeakMap<Database, Set<string>>();

/**
 * Makes sure the change feed has a partition for every UTC day from the day before `at` to the
 * day after (an import's time, the worker's now): created in transactions of their own, before
 * the transaction that appends, because attaching a partition locks the whole table for its
 * readers until that transaction ends. Two processes creating the same day meet on the name:
 * the second finds it made.
 */
export async function ensureEventPartitions(database: Database, at: Date): Promise<void> {
  let seen = known.get(database.root);
  if (seen === undefined) {
    seen = new Set();
    known.set(database.root, seen);
  }
  for (let offset = -1; offset <= 1; offset += 1) {
    const day = new Date(dayOf(at).getTime() + offset * DAY_MS);
    const name = partitionName(day);
    if (seen.has(name)) continue;
    const [row] = await database.rows<{ exists: boolean }>(sql`select to_regclass(${name}) is not null as exists`);
    if (row?.exists !== true) {
      const next = new Date(day.getTime() + DAY_MS);
      await database.db
        .execute(sql.raw(`create table if not exists "${name}" partition of listing_events for values from ('${day.toISOString()}') to ('${next.toISOString()}')`))
        .catch((error: unknown) => {
          // 42P07: another process created it between the check and here
          if (classifyDatabaseFailure(error).sqlstate !== '42P07') throw error;
        });
    }
    seen.add(name);
  }
}

/**
 * Drops the partitions of the days that ended more than `retentionDays` days before `now`, and
 * records the last id they held: a cursor at or below it has expired (410). Each drop is its
 * own short transaction under the event log's lock (so the recorded id and the partitions seen
 * by readers agree): dropping a day costs milliseconds, where deleting its rows would compete
 * with imports for minutes. Returns the partitions dropped.
 */
export async function dropExpiredEventPartitions(database: Database, now: Date, retentionDays: number, lock: (tx: Pick<Database['db'], 'execute'>) => Promise<void>): Promise<string[]> {
  const oldestKept = new Date(dayOf(now).getTime() - retentionDays * DAY_MS);
  const partitions = await database.rows<{ name: string }>(sql`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'listing_events'::regclass order by c.relname`);
  const dropped: string[] = [];
  for (const { name } of partitions) {
    const match = /^listing_events_(\d{4})(\d{2})(\d{2})$/.exec(name);
    if (match === null) continue;
    const day = new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00.000Z`);
    if (day.getTime() >= oldestKept.getTime()) continue;
    await database.db.transaction(async (tx) => {
      await lock(tx);
      await tx.execute(sql.raw(`update event_log set dropped_through_id = greatest(dropped_through_id, coalesce((select max(id) from "${name}"), 0))`));
      await tx.execute(sql.raw(`drop table if exists "${name}"`));
    });
    dropped.push(name);
    known.get(database)?.delete(name);
  }
  return dropped;
}
