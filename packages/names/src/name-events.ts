import { getTableColumns, listingEvents, resultRows, sql, type Drizzle, type SQL } from '@domain-index/db';

type Executor = Pick<Drizzle, 'execute'>;

/** The columns of listing_events that are not a copy of the listing. */
const NOT_COPIED = new Set(['id', 'occurred_at', 'type', 'previous', 'loaded', 'watchlist_id', 'phase', 'expected_drop_at', 'max_backlinks']);
/** The listing's columns as an event copies them (source and domain_name among them). */
const COPIED = Object.values(getTableColumns(listingEvents))
  .map((column) => column.name)
  .filter((name) => !NOT_COPIED.has(name));
const copied = (alias: string): SQL => sql.raw(COPIED.map((name) => `${alias}."${name}"`).join(', '));
const COPIED_LIST = sql.raw(COPIED.map((name) => `"${name}"`).join(', '));

/** The price a listing asks: its current bid, else its buy-now price (as the watched names show it). */
const price = (alias: string) => sql.raw(`coalesce(${alias}.current_bid, ${alias}.buy_now_price)`);
const previousPrice = sql.raw(`coalesce((e.previous->>'current_bid')::numeric, (e.previous->>'buy_now_price')::numeric)`);

/**
 * The change feed's last id handed out (0 before the first), read under the event log's lock:
 * the events a transaction appends after this are its own.
 */
export async function eventLogPosition(tx: Executor): Promise<number> {
  const [row] = resultRows<{ last: string; called: boolean }>(await tx.execute(sql`select last_value::text as last, is_called as called from listing_events_id_seq`));
  return row?.called === true ? Number(row.last) : 0;
}

/** Whether anybody watches anything: most syncs of a fresh install skip the rest at once. */
async function anythingWatched(tx: Executor): Promise<boolean> {
  const [row] = resultRows<{ watched: boolean }>(await tx.execute(sql`select exists (select 1 from watchlist_domains) as watched`));
  return row?.watched === true;
}

/**
 * Turns the listing events this transaction appended after `after` into the watched names'
 * events and history, under the event log's lock that appended them: for each watchlist of the
 * name, `name.listed` for an added listing, `name.delisted` for a removed or ended one,
 * `name.price_changed` for an update that moved a price; one history row per change. Each carries
 * the listing as the listing event does, and the name's phase as last checked.
 */
export async function appendWatchedListingEvents(tx: Executor, after: number): Promise<void> {
  if (!(await anythingWatched(tx))) return;
  const changes = sql`
    select e.*, case e.type
             when 'listing.added' then 'name.listed'
             when 'listing.updated' then 'name.price_changed'
             else 'name.delisted' end as name_type,
           case e.type
             when 'listing.added' then 'listed'
             when 'listing.updated' then 'price_changed'
             when 'listing.removed' then 'delisted'
             else 'ended' end as kind
    from listing_events e
    where e.id > ${after} and e.watchlist_id is null and e.domain_name is not null
      and (e.type in ('listing.added', 'listing.removed', 'listing.ended')
           or (e.type = 'listing.updated' and e.previous ?| array['current_bid', 'buy_now_price', 'start_price']))
      and exists (select 1 from watchlist_domains w where w.domain_name = e.domain_name)`;
  await tx.execute(sql`
    insert into name_history (domain_name, occurred_at, kind, source, price, previous_price)
    select e.domain_name, e.occurred_at, e.kind, e.source, ${price('e')},
           case when e.kind = 'price_changed' then ${previousPrice} end
    from (${changes}) e
    order by e.id`);
  await tx.execute(sql`
    insert into listing_events (id, occurred_at, type, previous, watchlist_id, phase, expected_drop_at, ${COPIED_LIST})
    select nextval('listing_events_id_seq'), e.occurred_at, e.name_type,
           case when e.name_type = 'name.price_changed' then e.previous end,
           w.watchlist_id, r.phase, r.expected_drop_at, ${copied('e')}
    from (${changes}) e
    join watchlist_domains w on w.domain_name = e.domain_name
    left join name_registrations r on r.domain_name = e.domain_name
    order by e.id, w.watchlist_id`);
}

/**
 * A marketplace's first batch says `source.loaded` instead of one event per listing; the
 * watched names among its listings still get their `name.listed` and their history row.
 * `batch` selects the batch's listings with every column an event copies (the listing's, its
 * `updated_at` and `last_checked_at`): the first load may not have put them in listings yet.
 */
export async function appendWatchedFirstListings(tx: Executor, batch: SQL, at: string): Promise<void> {
  if (!(await anythingWatched(tx))) return;
  const listed = sql`
    select b.* from (${batch}) b
    where exists (select 1 from watchlist_domains w where w.domain_name = b.domain_name)`;
  await tx.execute(sql`
    insert into name_history (domain_name, occurred_at, kind, source, price)
    select l.domain_name, ${at}::timestamptz, 'listed', l.source, ${price('l')}
    from (${listed}) l
    order by l.domain_name`);
  await tx.execute(sql`
    insert into listing_events (id, occurred_at, type, watchlist_id, phase, expected_drop_at, ${COPIED_LIST})
    select nextval('listing_events_id_seq'), ${at}::timestamptz, 'name.listed', w.watchlist_id, r.phase, r.expected_drop_at, ${copied('l')}
    from (${listed}) l
    join watchlist_domains w on w.domain_name = l.domain_name
    left join name_registrations r on r.domain_name = l.domain_name
    order by l.domain_name, w.watchlist_id`);
}
