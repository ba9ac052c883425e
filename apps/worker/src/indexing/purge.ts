import { sql, type Database } from '@domain-index/db';

/** Rows deleted per statement, so a large purge never holds long locks. */
const PURGE_CHUNK = 20_000;

/**
 * Removes listings whose end time passed more than `retentionDays` ago. Rows without an end
 * time (fixed-price inventory) are never purged. Returns how many rows left the index.
 */
export async function purgeEnded(database: Database, now: Date, retentionDays: number): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000).toISOString();
  let total = 0;
  for (;;) {
    const [row] = await database.rows<{ purged: number }>(sql`
      with doomed as (
        select id from listings where auction_end_time < ${cutoff}::timestamptz limit ${PURGE_CHUNK}
      ), gone as (
        delete from listings l using doomed d where l.id = d.id returning 1
      )
      select count(*)::int as purged from gone`);
    const purged = row?.purged ?? 0;
    total += purged;
    if (purged < PURGE_CHUNK) return total;
  }
}
