import { resultRows, sql, type Database } from '@domain-index/db';
import { LISTING_COLUMNS } from '../indexing/listing-columns';
import { lockEventLog } from '@domain-index/events/event-log-lock';
import { ensureEventPartitions } from '@domain-index/events/partitions';
import { appendWatchedListingEvents, eventLogPosition } from '@domain-index/names/name-events';

/** How far ahead `listing.ending_soon` looks: an end time within this many hours. */
export const ENDING_SOON_HOURS = 24;

const LISTING = sql.raw(LISTING_COLUMNS.map(([name]) => `l."${name}"`).join(', '));
const COPIED = sql.raw([...LISTING_COLUMNS.map(([name]) => `"${name}"`), '"updated_at"', '"last_checked_at"'].join(', '));

/** What one pass appended. */
export interface TimedEvents {
  endingSoon: number;
  ended: number;
}

/**
 * Appends the events time makes, once per listing and end time however often it runs:
 * `listing.ending_soon` for every listing whose end time came within 24 hours since the last
 * pass (the window `(covered, now + 24 h]`), `listing.ended` for every listing whose end time
 * passed since the last pass (`(covered, now]`), then moves both marks (event_log) in the same
 * transaction, under the event log's lock. A mark only moves forward, so a second pass, or a
 * second worker, finds nothing left. The first pass starts both windows at now: listings that
 * ended before the feed existed are not reported as ending now. A batch that brings a listing
 * into a window already passed appends its event itself (batch-events.ts).
 */
export async function appendTimedEvents(database: Database, now: Date): Promise<TimedEvents> {
  await ensureEventPartitions(database, now);
  const at = now.toISOString();
  const soonUntil = new Date(now.getTime() + ENDING_SOON_HOURS * 3_600_000).toISOString();
  return database.db.transaction(async (tx) => {
    await lockEventLog(tx);
    const [marks] = resultRows<{ soon_from: string; ended_from: string }>(
      await tx.execute(sql`
        select greatest(coalesce(ending_soon_through, ${at}::timestamptz), ${at}::timestamptz)::text as soon_from,
               coalesce(ended_through, ${at}::timestamptz)::text as ended_from
        from event_log`),
    );
    if (marks === undefined) throw new Error('the event_log row is missing (migration 0014 inserts it)');
    const position = await eventLogPosition(tx);
    const append = async (type: string, from: string, until: string) => {
      const [row] = resultRows<{ n: number }>(
        await tx.execute(sql`
          with appended as (
            insert into listing_events (id, occurred_at, type, ${COPIED})
            select nextval('listing_events_id_seq'), ${at}::timestamptz, ${type}, ${sql.raw([...LISTING_COLUMNS.map(([name]) => `e."${name}"`), 'e.updated_at', 'e.last_checked_at'].join(', '))}
            from (
              select ${LISTING}, l.updated_at, b.applied_at as last_checked_at
              from listings l left join source_batches b on b.source = l.source
              where l.auction_end_time > ${from}::timestamptz and l.auction_end_time <= ${until}::timestamptz
              order by l.auction_end_time, l.domain_name, l.source
            ) e
            returning 1
          )
          select count(*)::int as n from appended`),
      );
      return row?.n ?? 0;
    };
    // an empty window (the worker ran a moment ago) appends nothing
    const endingSoon = await append('listing.ending_soon', marks.soon_from, soonUntil);
    const ended = await append('listing.ended', marks.ended_from, at);
    // a watched name's listing that ended is delisted for its watchlists
    if (ended > 0) await appendWatchedListingEvents(tx, position);
    await tx.execute(sql`
      update event_log set
        ending_soon_through = greatest(coalesce(ending_soon_through, ${soonUntil}::timestamptz), ${soonUntil}::timestamptz),
        ended_through = greatest(coalesce(ended_through, ${at}::timestamptz), ${at}::timestamptz)`);
    return { endingSoon, ended };
  });
}
