import { randomBytes } from 'node:crypto';
import type { Watchlist, WatchedDomain } from '@domain-index/contract';
import { and, desc, eq, listings, nameRegistrations, sql, watchlistDomains, watchlists, type Database, type Drizzle, type WatchlistRow } from '@domain-index/db';
import { notEnded } from '@domain-index/listings/not-ended';

/** Who owns a watchlist: the key's account, or the key itself when it has none (as for alerts). */
export type WatchlistOwner = { accountId: string; keyId?: undefined } | { keyId: string; accountId?: undefined };

type Executor = Pick<Drizzle, 'select' | 'selectDistinct' | 'execute'>;

/** The condition "owned by `owner`". */
export function ownedBy(owner: WatchlistOwner) {
  return owner.accountId !== undefined ? eq(watchlists.accountId, owner.accountId) : eq(watchlists.keyId, owner.keyId);
}

/** `wl_` and 20 random base64url characters. */
export function newWatchlistId(): string {
  return `wl_${randomBytes(15).toString('base64url')}`;
}

/** The owner's watchlist, or undefined (another owner's is as absent as a made-up id). */
export async function findWatchlist(db: Executor, owner: WatchlistOwner, id: string): Promise<WatchlistRow | undefined> {
  const [row] = await db.select().from(watchlists).where(and(eq(watchlists.id, id), ownedBy(owner)));
  return row;
}

/** The owner's watchlists, newest first. */
export function listOwnWatchlists(database: Database, owner: WatchlistOwner): Promise<WatchlistRow[]> {
  return database.db.select().from(watchlists).where(ownedBy(owner)).orderBy(desc(watchlists.createdAt), desc(watchlists.id));
}

/** How many distinct names the owner watches over all its watchlists. */
export async function countWatchedNames(db: Executor, owner: WatchlistOwner): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(distinct ${watchlistDomains.domainName})::int` })
    .from(watchlistDomains)
    .innerJoin(watchlists, eq(watchlists.id, watchlistDomains.watchlistId))
    .where(ownedBy(owner));
  return row?.count ?? 0;
}

/** Of `names`, those the owner already watches on any of its watchlists. */
export async function namesWatchedBy(db: Executor, owner: WatchlistOwner, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await db
    .selectDistinct({ name: watchlistDomains.domainName })
    .from(watchlistDomains)
    .innerJoin(watchlists, eq(watchlists.id, watchlistDomains.watchlistId))
    .where(and(ownedBy(owner), sql`${watchlistDomains.domainName} = any(${sql.param([...names])}::text[])`));
  return new Set(rows.map((row) => row.name));
}

/** How many names each watchlist holds. */
export async function domainCounts(database: Database, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await database.db
    .select({ id: watchlistDomains.watchlistId, count: sql<number>`count(*)::int` })
    .from(watchlistDomains)
    .where(sql`${watchlistDomains.watchlistId} = any(${sql.param([...ids])}::text[])`)
    .groupBy(watchlistDomains.watchlistId);
  return new Map(rows.map((row) => [row.id, row.count]));
}

/** A watchlist as the API shows it. */
export function watchlistObject(row: WatchlistRow, domainsCount: number): Watchlist {
  return { object: 'watchlist', id: row.id, name: row.name, domains_count: domainsCount, created: row.createdAt.toISOString(), updated: row.updatedAt.toISOString() };
}

/**
 * Puts names on the worker's schedule: a name never checked is due now; one already scheduled
 * (watched elsewhere) keeps its time; one no longer watched by anybody is due again now.
 */
export async function scheduleChecks(db: Pick<Drizzle, 'execute'>, names: readonly string[], now: Date): Promise<void> {
  if (names.length === 0) return;
  await db.execute(sql`
    insert into name_registrations (domain_name, next_check_at)
    select unnest(${sql.param([...names])}::text[]), ${now.toISOString()}::timestamptz
    on conflict (domain_name) do update set next_check_at = coalesce(name_registrations.next_check_at, excluded.next_check_at)`);
}

/** Takes names nobody watches any more off the worker's schedule (their registration stays). */
export async function unscheduleUnwatched(db: Pick<Drizzle, 'execute'>, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await db.execute(sql`
    update name_registrations r set next_check_at = null
    where r.domain_name = any(${sql.param([...names])}::text[])
      and not exists (select 1 from watchlist_domains w where w.domain_name = r.domain_name)`);
}

/** The price a listing asks now: the current bid, else the buy-now price. */
const askingPrice = sql`coalesce(${listings.currentBid}, ${listings.buyNowPrice})`;

/**
 * A page of a watchlist's names in name order after `after`, each with its registration and its
 * listings now; one more than `limit` says whether there is a next page.
 */
export async function watchedDomainsPage(database: Database, watchlistId: string, after: string | undefined, limit: number, now: Date): Promise<WatchedDomain[]> {
  const rows = await database.db
    .select({
      domainName: watchlistDomains.domainName,
      addedAt: watchlistDomains.addedAt,
      phase: nameRegistrations.phase,
      expectedDropAt: nameRegistrations.expectedDropAt,
      checkedAt: nameRegistrations.checkedAt,
      nextCheckAt: nameRegistrations.nextCheckAt,
      listingsCount: sql<number>`(select count(*)::int from ${listings} where ${listings.domainName} = ${watchlistDomains.domainName} and ${notEnded(now)})`,
      lowestPrice: sql<string | null>`(select min(${askingPrice})::text from ${listings} where ${listings.domainName} = ${watchlistDomains.domainName} and ${notEnded(now)})`,
    })
    .from(watchlistDomains)
    .leftJoin(nameRegistrations, eq(nameRegistrations.domainName, watchlistDomains.domainName))
    .where(and(eq(watchlistDomains.watchlistId, watchlistId), after === undefined ? undefined : sql`${watchlistDomains.domainName} > ${after}`))
    .orderBy(watchlistDomains.domainName)
    .limit(limit + 1);
  return rows.map((row) => ({
    object: 'watched_domain',
    domain_name: row.domainName,
    added: row.addedAt.toISOString(),
    phase: (row.phase as WatchedDomain['phase']) ?? null,
    expected_drop_at: row.expectedDropAt?.toISOString() ?? null,
    checked_at: row.checkedAt?.toISOString() ?? null,
    next_check_at: row.nextCheckAt?.toISOString() ?? null,
    listings_count: row.listingsCount,
    lowest_price: row.lowestPrice === null ? null : Number(row.lowestPrice),
  }));
}
