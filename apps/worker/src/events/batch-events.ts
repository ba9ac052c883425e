import { resultRows, sql, type Database, type SQL } from '@domain-index/db';
import { LISTING_COLUMNS } from '../indexing/listing-columns';
import { lockEventLog } from '@domain-index/events/event-log-lock';
import { appendWatchedFirstListings, appendWatchedListingEvents, eventLogPosition } from '@domain-index/names/name-events';

type Transaction = Parameters<Parameters<Database['db']['transaction']>[0]>[0];

/** Every column of a listing an event copies, in one order: the written ones, then the two times. */
const COPIED = [...LISTING_COLUMNS.map(([name]) => name), 'updated_at', 'last_checked_at'] as const;
const copied = (alias: string) => sql.raw(COPIED.map((name) => `${alias}."${name}"`).join(', '));
const COPIED_LIST = sql.raw(COPIED.map((name) => `"${name}"`).join(', '));

/** The public fields whose previous values a `listing.updated` carries: every one a batch can change. */
const CHANGEABLE = [...LISTING_COLUMNS.map(([name]) => name).filter((name) => name !== 'domain_name' && name !== 'source'), 'updated_at'] as const;
const TIMESTAMPS = new Set<string>(['auction_end_time', 'updated_at']);

/** A changeable field of `alias` as its JSON value, timestamps in the API's format, so that `previous` reads as the object does. */
function publicValue(alias: string, name: string): SQL {
  const column = sql.raw(`${alias}."${name}"`);
  return TIMESTAMPS.has(name) ? sql`to_jsonb(to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))` : sql`to_jsonb(${column})`;
}

/**
 * The fields of the listing `l` whose values the staged row `s` changes, as a JSON object of
 * their previous values. One row per field, each value converted once: comparing two whole JSON
 * objects key by key built the new one again for every key, 32 times a row (11.6 of 13.4 s of a
 * 50,000-change switch at 1M listings).
 */
function previousValues(at: SQL): SQL {
  const rows = CHANGEABLE.map((name) => {
    const changed = name === 'updated_at' ? sql`l."updated_at" is distinct from ${at}` : sql.raw(`l."${name}" is distinct from s."${name}"`);
    return sql`(${name}::text, ${publicValue('l', name)}, ${changed})`;
  });
  return sql`(select jsonb_object_agg(f.name, f.value) from (values ${sql.join(rows, sql`, `)}) f(name, value, changed) where f.changed)`;
}

/** What a batch changed, counted from the changes it recorded. */
export type ChangeCounts = {
  inserted: number;
  updated: number;
  removed: number;
};

/**
 * Records, before the switch changes anything, what the batch of `sourceId` staged in `staging`
 * changes: every added and changed listing (after the change, with the previous values of the
 * fields that changed) and every removed one (as it was), in the transaction's own temporary
 * table `batch_changes`. The switch then applies exactly these rows, and the event log copies
 * them: the two can never disagree. Unchanged listings are left out by one hash join, as before.
 */
export async function recordBatchChanges(tx: Transaction, sourceId: string, staging: string, at: string, valuesOf: (alias: string) => SQL): Promise<ChangeCounts> {
  const table = sql.identifier(staging);
  await tx.execute(sql`drop table if exists batch_changes`);
  await tx.execute(sql`
    create temp table batch_changes on commit drop as
    select case when l.id is null then 'listing.added' else 'listing.updated' end as type,
           ${sql.raw(LISTING_COLUMNS.map(([name]) => `s."${name}"`).join(', '))},
           ${at}::timestamptz as updated_at, ${at}::timestamptz as last_checked_at,
           case when l.id is not null then ${previousValues(sql`${at}::timestamptz`)} end as previous,
           l.auction_end_time as previous_end
    from ${table} s
    left join listings l on l.source = ${sourceId} and l.domain_name = s.domain_name
    where l.id is null or ${valuesOf('l')} is distinct from ${valuesOf('s')}`);
  await tx.execute(sql`
    insert into batch_changes (type, ${COPIED_LIST}, previous, previous_end)
    select 'listing.removed', ${sql.raw(LISTING_COLUMNS.map(([name]) => `l."${name}"`).join(', '))}, l.updated_at,
           (select b.applied_at from source_batches b where b.source = ${sourceId}), null, null
    from listings l
    where l.source = ${sourceId} and not exists (select 1 from ${table} s where s.domain_name = l.domain_name)`);
  const [counts] = resultRows<ChangeCounts>(
    await tx.execute(sql`
      select count(*) filter (where type = 'listing.added')::int as inserted,
             count(*) filter (where type = 'listing.updated')::int as updated,
             count(*) filter (where type = 'listing.removed')::int as removed
      from batch_changes`),
  );
  return counts ?? { inserted: 0, updated: 0, removed: 0 };
}

/** Where the time-driven events stand (event_log), read under the event log's lock. */
async function timedThrough(tx: Transaction): Promise<{ soon: string | null; ended: string | null }> {
  const [row] = resultRows<{ soon: string | null; ended: string | null }>(
    await tx.execute(sql`select ending_soon_through::text as soon, ended_through::text as ended from event_log`),
  );
  return { soon: row?.soon ?? null, ended: row?.ended ?? null };
}

/**
 * Appends the events of a batch recorded by recordBatchChanges, last thing before the COMMIT and
 * under the event log's lock (event-log-lock.ts): one per added, updated and removed listing, in
 * name order. A listing the batch brings (or moves) into the window the worker has already
 * passed gets its time-driven event here, since the worker will not look back: `ending_soon`
 * when its end time is within the window covered for ending-soon events and it was not in it
 * before, `ended` when its end time moved back to before the ended-events mark.
 */
export async function appendBatchEvents(tx: Transaction, at: string): Promise<void> {
  await lockEventLog(tx);
  const position = await eventLogPosition(tx);
  const through = await timedThrough(tx);
  const now = sql`${at}::timestamptz`;
  const soon = through.soon === null ? sql`null::timestamptz` : sql`${through.soon}::timestamptz`;
  const ended = through.ended === null ? sql`null::timestamptz` : sql`${through.ended}::timestamptz`;
  await tx.execute(sql`
    insert into listing_events (id, occurred_at, type, previous, ${COPIED_LIST})
    select nextval('listing_events_id_seq'), ${now}, e.type, e.previous, ${copied('e')}
    from (
      select c.type, c.previous, ${copied('c')}, 0 as k from batch_changes c
      union all
      select 'listing.ending_soon', null, ${copied('c')}, 1 from batch_changes c
      where c.type <> 'listing.removed' and c.auction_end_time > ${now} and c.auction_end_time <= ${soon}
        and (c.type = 'listing.added' or c.previous_end is null or c.previous_end > ${soon} or c.previous_end <= ${now})
      union all
      select 'listing.ended', null, ${copied('c')}, 2 from batch_changes c
      where c.type = 'listing.updated' and c.auction_end_time <= ${ended} and (c.previous_end is null or c.previous_end > ${ended})
      order by domain_name, k
    ) e`);
  await tx.execute(sql`drop table batch_changes`);
  // the watched names among these changes: their own events and history
  await appendWatchedListingEvents(tx, position);
}

/**
 * Appends one `source.loaded` event for a source's first batch (the source had no listings), in
 * place of one `listing.added` per listing, and the `ending_soon` events of its listings whose
 * end time is within the window the worker has already covered.
 */
export async function appendSourceLoaded(tx: Transaction, sourceId: string, at: string, loaded: number, staging: string): Promise<void> {
  await lockEventLog(tx);
  const through = await timedThrough(tx);
  const now = sql`${at}::timestamptz`;
  await tx.execute(sql`
    insert into listing_events (id, occurred_at, type, source, loaded)
    values (nextval('listing_events_id_seq'), ${now}, 'source.loaded', ${sourceId}, ${loaded})`);
  const batch = sql`select ${sql.raw(LISTING_COLUMNS.map(([name]) => `x."${name}"`).join(', '))}, ${now} as updated_at, ${now} as last_checked_at from ${sql.identifier(staging)} x`;
  await appendWatchedFirstListings(tx, batch, at);
  if (through.soon === null) return;
  await tx.execute(sql`
    insert into listing_events (id, occurred_at, type, ${COPIED_LIST})
    select nextval('listing_events_id_seq'), ${now}, 'listing.ending_soon', ${copied('s')}
    from (
      select ${sql.raw(LISTING_COLUMNS.map(([name]) => `x."${name}"`).join(', '))}, ${now} as updated_at, ${now} as last_checked_at
      from ${sql.identifier(staging)} x
      where x.auction_end_time > ${now} and x.auction_end_time <= ${through.soon}::timestamptz
      order by x.domain_name
    ) s`);
}
