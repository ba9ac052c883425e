import type { Event, EventQuery, EventType } from '@domain-index/contract';
import { and, eq, inArray, isNull, listingEvents, or, renderQuery, sql, type Database, type SQL } from '@domain-index/db';
import { domainExpressions, domainFromValues, domainSelectList, DOMAIN_WIDTH } from '@domain-index/listings/domain-values';
import { eventFilters } from '@domain-index/listings/filters';

/**
 * The most events one page examines: a selective filter over a long backlog answers after
 * reading this many (with a cursor past them and `has_more`), never after reading the backlog.
 */
export const EVENTS_EXAMINED_PER_PAGE = 5_000;

const isoText = (value: SQL) => sql`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const EVENT_DOMAIN = domainSelectList(domainExpressions(listingEvents, listingEvents.lastCheckedAt));

/** Where a page starts: after an event id, at the newest event, or at the oldest kept. */
export type FeedStart = { after: number } | 'now' | 'oldest';

/** A page of events, where to resume, and whether more are there now; or a start that has expired. */
export type FeedPage = { events: Event[]; resumeAfter: number; hasMore: boolean } | { expired: true; oldestKept: number };

/**
 * The conditions of the query's filters over an event's listing. A `source.loaded` event has no
 * listing: it is returned whatever the listing filters (its source must match), since it means
 * "read this marketplace again with a search".
 */
export function eventConditions(query: EventQuery, options: { sourceLoaded?: 'always' | 'when-asked' } = {}): SQL {
  const types = query.type !== undefined && query.type.length > 0 ? query.type : undefined;
  // An alert delivers source.loaded only when its types name it: a filter for cheap .ai names
  // should not wake its receiver for every marketplace's first batch.
  const loadedWanted = options.sourceLoaded !== 'when-asked' || (types?.includes('source.loaded') ?? false);
  const sourceLoaded = loadedWanted ? and(isNull(listingEvents.domainName), query.source === undefined ? undefined : eq(listingEvents.source, query.source)) : sql`false`;
  const listing = and(sql`${listingEvents.domainName} is not null`, eventFilters(query));
  // a watchlist's events are its owner's alone: only asked for by id (the caller checked it is theirs)
  const watchlist = query.watchlist === undefined ? isNull(listingEvents.watchlistId) : eq(listingEvents.watchlistId, query.watchlist);
  return and(watchlist, types === undefined ? undefined : inArray(listingEvents.type, types), or(sourceLoaded, listing)) ?? sql`true`;
}

/**
 * One page of the change feed: the events after the start that match, in commit order (id),
 * looking at no more than EVENTS_EXAMINED_PER_PAGE events. Ids follow commit order (the event
 * log's lock, event-log-lock.ts), so a page never skips an event a later commit could add
 * before its end. One statement: the examined window, its last id, and the matches in it.
 */
export async function feedPage(database: Database, start: FeedStart, query: EventQuery): Promise<FeedPage> {
  const [log] = await database.rows<{ dropped: string; newest: string | null }>(
    sql`select dropped_through_id::text as dropped, (select max(id) from listing_events)::text as newest from event_log`,
  );
  const dropped = Number(log?.dropped ?? 0);
  let after: number;
  if (start === 'now') after = Math.max(Number(log?.newest ?? 0), dropped);
  else if (start === 'oldest') after = dropped;
  else if (start.after < dropped) return { expired: true, oldestKept: dropped };
  else after = start.after;

  const limit = query.limit;
  const rows = await database.values(
    renderQuery(sql`
      with win as (
        select * from listing_events where id > ${after} order by id limit ${EVENTS_EXAMINED_PER_PAGE}
      )
      select edge.last, edge.examined, page.*
      from (select max(id)::text as last, count(*)::int as examined from win) edge
      left join lateral (
        select listing_events.id::text as id, listing_events.type, ${isoText(sql`listing_events.occurred_at`)} as created,
               listing_events.source, listing_events.previous, listing_events.loaded, ${EVENT_DOMAIN}, ${NAME_COLUMNS}
        from win as listing_events
        where ${eventConditions(query)}
        order by listing_events.id
        limit ${limit + 1}
      ) page on true
      order by page.id::bigint`),
  );
  const edge = rows[0];
  const last = edge?.[0] === null || edge?.[0] === undefined ? after : Number(edge[0]);
  const examined = Number(edge?.[1] ?? 0);
  const matches = rows.filter((row) => row[2] !== null);
  const events = matches.slice(0, limit).map(toEvent);
  if (matches.length > limit) return { events, resumeAfter: Number(matches[limit - 1]![2]), hasMore: true };
  // every match of the window is on the page: resume after the window, more to come if it was full
  return { events, resumeAfter: last, hasMore: examined === EVENTS_EXAMINED_PER_PAGE };
}

/** The columns of a page row after the window's two: id, type, created, source, previous, loaded, then the domain, then the name's. */
const FIXED = 8;

/** A name event's own columns, after the listing's: its watchlist, the name, its phase and expected drop. */
const NAME_COLUMNS = sql`listing_events.watchlist_id, listing_events.domain_name, listing_events.phase, ${isoText(sql`listing_events.expected_drop_at`)}`;

/** The name events of a registration change carry no listing. */
const WITHOUT_LISTING = new Set<EventType>(['name.phase_changed', 'name.dropped', 'name.registered']);

function toEvent(row: readonly unknown[]): Event {
  const previous = row[6] as Record<string, unknown> | string | null;
  const loaded = row[7] as number | null;
  const type = row[3] as EventType;
  const domain = row[FIXED + 0] === null || WITHOUT_LISTING.has(type) ? null : domainFromValues(row.slice(FIXED, FIXED + DOMAIN_WIDTH));
  const [watchlistId, domainName, phase, expectedDrop] = row.slice(FIXED + DOMAIN_WIDTH) as (string | null)[];
  const named =
    watchlistId === null || watchlistId === undefined
      ? {}
      : { watchlist_id: watchlistId, name: { domain_name: domainName!, phase: (phase ?? null) as NonNullable<Event['data']['name']>['phase'], expected_drop_at: expectedDrop ?? null } };
  return {
    object: 'event',
    id: `evt_${row[2] as string}`,
    type,
    created: row[4] as string,
    source: row[5] as string,
    data: {
      object: domain,
      // PGlite returns jsonb parsed, postgres.js too; text only if a driver leaves it unparsed
      previous_attributes: typeof previous === 'string' ? (JSON.parse(previous) as Record<string, unknown>) : previous,
      listings_loaded: loaded,
      ...named,
    },
  };
}

/** The events of these ids, in id order, as the feed shows them (ids retention removed are left out). */
export async function eventsByIds(database: Database, ids: readonly number[]): Promise<Event[]> {
  if (ids.length === 0) return [];
  const rows = await database.values(
    renderQuery(sql`
      select null, null, listing_events.id::text as id, listing_events.type, ${isoText(sql`listing_events.occurred_at`)} as created,
             listing_events.source, listing_events.previous, listing_events.loaded, ${EVENT_DOMAIN}, ${NAME_COLUMNS}
      from listing_events
      where listing_events.id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})
      order by listing_events.id`),
  );
  return rows.map(toEvent);
}
