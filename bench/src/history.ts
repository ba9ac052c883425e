// What a production database holds beside the listings, made for the benchmark: the change
// feed's 14 days of events and a year of history for the watched names. Both are written
// straight in SQL (a day of events is one statement), kept between runs and remade only when
// their fingerprint in bench_meta differs (another size, or another day).
import { openDatabase, sql, type Database } from '@domain-index/db';
import { ensureBenchMeta } from './dataset';

const log = (line: string) => process.stderr.write(`${line}\n`);
const DAY = 86_400_000;

/** Days of events the change feed keeps, as the worker's retention does. */
export const EVENT_DAYS = 14;

/** The start of a UTC day. */
const dayOf = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));

/** Whether bench_meta says this was made already (its fingerprint names what and how much). */
async function madeBefore(database: Database, fingerprint: string): Promise<boolean> {
  await ensureBenchMeta(database);
  const [row] = await database.rows<{ n: number }>(sql`select count(*)::int as n from bench_meta where fingerprint = ${fingerprint}`);
  return row?.n === 1;
}

async function remember(database: Database, prefix: string, fingerprint: string, rows: number, seconds: number): Promise<void> {
  await database.rows(sql`delete from bench_meta where fingerprint like ${`${prefix}%`}`);
  await database.rows(sql`insert into bench_meta (fingerprint, listings, seconds) values (${fingerprint}, ${rows}, ${seconds})`);
}

/**
 * EVENT_DAYS days of events at `perDay`, ending today: a partition per day, a listing snapshot
 * per event, types in a realistic mix (six updates in ten, two additions, a removal, an ending
 * soon). Returns the seconds it took, or 0 when the events of today's window were there.
 */
export async function ensureEvents(database: Database, perDay: number): Promise<number> {
  const start = new Date(dayOf(new Date()).getTime() - (EVENT_DAYS - 1) * DAY);
  const fingerprint = `events:${perDay}x${EVENT_DAYS}:${start.toISOString().slice(0, 10)}`;
  if (await madeBefore(database, fingerprint)) return 0;
  const began = performance.now();
  await database.rows(sql`truncate listing_events`);
  for (let day = 0; day < EVENT_DAYS; day += 1) {
    const from = new Date(start.getTime() + day * DAY);
    const name = `listing_events_${from.toISOString().slice(0, 10).replaceAll('-', '')}`;
    await database.rows(sql.raw(`create table if not exists "${name}" partition of listing_events for values from ('${from.toISOString()}') to ('${new Date(from.getTime() + DAY).toISOString()}')`));
    const dayBegan = performance.now();
    // a day's events in commit order through the day; names, suffixes, prices and metrics spread like the seed's
    await database.rows(sql`
      insert into listing_events (id, occurred_at, type, source, previous, domain_name, tld, status, length, has_hyphens, has_numbers, word_count, index_score,
                                  current_bid, bid_count, auction_end_time, seoa_dr, seoa_backlinks, seob_tf, domain_age, updated_at, last_checked_at)
      select nextval('listing_events_id_seq'), ${from.toISOString()}::timestamptz + (g * interval '86399 seconds' / ${perDay}),
             (array['listing.updated','listing.updated','listing.updated','listing.updated','listing.updated','listing.updated','listing.added','listing.added','listing.removed','listing.ending_soon'])[1 + (g % 10)],
             (array['bidhaus','droplane','namemarket','expirex','brandbay'])[1 + (g % 5)],
             case when g % 10 < 6 then jsonb_build_object('current_bid', (g % 997)::numeric, 'bid_count', g % 13) end,
             (array['cloud','data','solar','home','shop','crypto','green','blue','smart','food'])[1 + (g % 10)] || (g % 100003)::text || (array['-','',''])[1 + (g % 3)] || 'x',
             (array['com','net','io','ai','co.uk','org','app','dev'])[1 + (g % 8)],
             (array['auction','auction','auction','dropping','available'])[1 + (g % 5)],
             (6 + g % 12)::smallint, g % 3 = 0, true, (g % 4)::smallint, (g % 101)::smallint,
             ((g * 7919) % 20000 / 4.0)::numeric(14, 2), g % 40, ${from.toISOString()}::timestamptz + ((g % 240) * interval '1 hour'),
             case when g % 7 = 0 then (g % 90)::real end, case when g % 7 = 0 then g % 100000 end, case when g % 9 = 0 then (g % 60)::real end,
             (g % 25)::smallint, ${from.toISOString()}::timestamptz, ${from.toISOString()}::timestamptz
      from generate_series(1::bigint, ${perDay}) g`);
    log(`events of day ${day + 1}/${EVENT_DAYS}: ${perDay} in ${((performance.now() - dayBegan) / 1000).toFixed(1)} s`);
  }
  await database.rows(sql`vacuum analyze listing_events`);
  const seconds = (performance.now() - began) / 1000;
  await remember(database, 'events:', fingerprint, perDay * EVENT_DAYS, seconds);
  return seconds;
}

/** Owner of the benchmark's watchlists. */
const WATCHER = 'acct_bench_watcher';
/** Names per watchlist. */
const PER_WATCHLIST = 1_000;

/**
 * `watched` names drawn from the listings (a fixed sample, so the same names each run), in
 * watchlists of 1,000 under one account, each with a registration row and a year of history:
 * 10 to 40 changes a name (25 on average), most of them price changes, with listings,
 * delistings, endings and phase changes among them. Returns the seconds it took, or 0 when
 * they were there.
 */
export async function ensureNameHistory(database: Database, watched: number, listings: number): Promise<number> {
  const fingerprint = `history:${watched}:${listings}`;
  if (await madeBefore(database, fingerprint)) return 0;
  const began = performance.now();
  await database.rows(sql`truncate watchlist_domains, watchlists, name_registrations, name_history cascade`);
  await database.rows(sql`insert into accounts (id, email, plan_id) values (${WATCHER}, 'watcher@example.com', 'pro') on conflict do nothing`);
  // a block sample three times the size asked for, then every name once, in a fixed order
  const percent = Math.min(100, (300 * watched) / Math.max(1, listings));
  await database.rows(sql`drop table if exists bench_watched`);
  await database.rows(sql`
    create table bench_watched as
    select domain_name, (row_number() over (order by md5(domain_name)) - 1)::int as i
    from (select distinct domain_name from listings tablesample system (${sql.raw(percent.toFixed(4))}) repeatable (42)) sampled
    order by md5(domain_name) limit ${watched}`);
  await database.rows(sql`
    insert into watchlists (id, account_id, name)
    select 'wl_bench_' || lpad(w::text, 4, '0'), ${WATCHER}, 'bench ' || w from generate_series(0, (select (count(*) - 1) / ${PER_WATCHLIST} from bench_watched)) w`);
  await database.rows(sql`
    insert into watchlist_domains (watchlist_id, domain_name)
    select 'wl_bench_' || lpad((i / ${PER_WATCHLIST})::text, 4, '0'), domain_name from bench_watched`);
  // what RDAP said of each name: most registered, some on their way to drop, a few available
  await database.rows(sql`
    insert into name_registrations (domain_name, phase, statuses, registrar_name, registrar_iana_id, registered_at, expires_at, registry_updated_at,
                                    expected_drop_at, checked_at, last_outcome, last_server, last_attempt_at, next_check_at)
    select domain_name, phase, jsonb_build_array(case phase when 'redemption' then 'redemption period' when 'pending_delete' then 'pending delete' else 'active' end),
           case when phase = 'available' then null else 'Bench Registrar' end, case when phase = 'available' then null else 292 end,
           now() - ((1 + i % 20) * interval '365 days'), now() + ((i % 365) * interval '1 day'), now() - ((i % 90) * interval '1 day'),
           case phase when 'redemption' then now() + interval '35 days' when 'pending_delete' then now() + interval '3 days' end,
           now() - ((i % 24) * interval '1 hour'), case when phase = 'available' then 'not_found' else 'found' end, 'rdap.bench.example',
           now() - ((i % 24) * interval '1 hour'), now() + ((1 + i % 168) * interval '1 hour')
    from (select domain_name, i, case when i % 100 < 85 then 'registered' when i % 100 < 88 then 'grace' when i % 100 < 93 then 'redemption'
                                      when i % 100 < 96 then 'pending_delete' else 'available' end as phase from bench_watched) w`);
  await database.rows(sql`
    insert into name_history (domain_name, occurred_at, kind, source, price, previous_price, phase, previous_phase)
    select domain_name, now() - interval '365 days' + ((g + 0.5) * interval '365 days' / n),
           kind, case when kind <> 'phase_changed' then (array['bidhaus','droplane','namemarket','expirex','brandbay'])[1 + (i + g) % 5] end,
           case when kind <> 'phase_changed' then (10 + (i * 7 + g * 13) % 5000)::numeric(14, 2) end,
           case when kind in ('price_changed', 'delisted', 'ended') then (10 + (i * 7 + (g - 1) * 13) % 5000)::numeric(14, 2) end,
           case when kind = 'phase_changed' then (array['registered','grace','redemption','pending_delete','available'])[1 + g % 5] end,
           case when kind = 'phase_changed' then (array['registered','grace','redemption','pending_delete','available'])[1 + (g + 4) % 5] end
    from (select domain_name, i, 10 + i % 31 as n from bench_watched) w
    cross join lateral generate_series(0, n - 1) g
    cross join lateral (select case when g = 0 then 'listed' when g % 11 = 0 then 'phase_changed' when g % 13 = 0 then 'delisted'
                                    when g % 17 = 0 then 'ended' when g % 14 = 0 then 'listed' else 'price_changed' end as kind) k`);
  for (const table of ['watchlist_domains', 'name_registrations', 'name_history']) await database.rows(sql.raw(`vacuum analyze ${table}`));
  const [row] = await database.rows<{ n: number }>(sql`select count(*)::int as n from name_history`);
  const seconds = (performance.now() - began) / 1000;
  await remember(database, 'history:', fingerprint, row?.n ?? 0, seconds);
  return seconds;
}

/** The watched names, in their fixed order. */
export async function watchedNames(database: Database): Promise<string[]> {
  return (await database.rows<{ domain_name: string }>(sql`select domain_name from bench_watched order by i`)).map((row) => row.domain_name);
}

/** A relation's place in the disk table. */
export interface RelationDisk {
  table: string;
  relation: string;
  kind: 'table' | 'index';
  mib: number;
}

/**
 * Disk by relation for the tables that grow with the index: each table's heap (with TOAST and
 * its maps) and each of its indexes. A partitioned table counts its partitions, each of its
 * indexes the partitions' indexes under it.
 */
export async function diskByRelation(database: Database): Promise<RelationDisk[]> {
  const rows = await database.rows<{ table: string; relation: string; kind: 'table' | 'index'; bytes: string }>(sql`
    with tables as (select unnest(array['listings','listing_events','name_history','name_registrations','watchlist_domains']::text[]) as name),
    parts as (
      select t.name, c.oid from tables t join pg_class c on c.relname = t.name and c.relnamespace = 'public'::regnamespace
      union all
      select t.name, i.inhrelid from tables t join pg_class c on c.relname = t.name and c.relnamespace = 'public'::regnamespace join pg_inherits i on i.inhparent = c.oid
    )
    select p.name as table, p.name as relation, 'table' as kind, sum(pg_table_size(p.oid))::text as bytes from parts p group by p.name
    union all
    select p.name, coalesce(parent.relname, ic.relname), 'index', sum(pg_relation_size(ix.indexrelid))::text
    from parts p join pg_index ix on ix.indrelid = p.oid join pg_class ic on ic.oid = ix.indexrelid
    left join pg_inherits pi on pi.inhrelid = ix.indexrelid left join pg_class parent on parent.oid = pi.inhparent
    group by p.name, coalesce(parent.relname, ic.relname)`);
  return rows
    .map((row) => ({ table: row.table, relation: row.relation, kind: row.kind, mib: Math.round(Number(row.bytes) / 2 ** 20) }))
    .sort((a, b) => a.table.localeCompare(b.table) || (a.kind === b.kind ? b.mib - a.mib : a.kind === 'table' ? -1 : 1));
}

/** Opens the benchmark database for one of the steps above. */
export async function withDatabase<T>(url: string, step: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  try {
    return await step(database);
  } finally {
    await database.close();
  }
}
