import type { AddedDomains, Watchlist, WatchedDomain } from '@domain-index/contract';
import { ApiError } from '@domain-index/api-errors/api-error';
import { orQueryFailed } from '@domain-index/api-errors/query-failed';
import { lockOwnerAlerts } from '@domain-index/alerts/alert-store';
import { recordAudit, type AuditKind } from '@domain-index/audit/audit';
import { alerts, and, eq, watchlistDomains, watchlists, type Database, type Drizzle, type WatchlistRow } from '@domain-index/db';
import type { Clock } from '@domain-index/runtime/clock';
import { parseNameInput } from './name-input';
import {
  countWatchedNames,
  domainCounts,
  findWatchlist,
  listOwnWatchlists,
  namesWatchedBy,
  newWatchlistId,
  scheduleChecks,
  unscheduleUnwatched,
  watchedDomainsPage,
  watchlistObject,
  type WatchlistOwner,
} from './watchlist-store';

/** Who acts on watchlists: a key (or a signed-in person, keyId null) for an owner. */
export interface WatchlistActor {
  owner: WatchlistOwner;
  keyId: string | null;
  ip: string | null | undefined;
}

/** An owner's plan, as far as watchlists go. */
export interface WatchPlan {
  id: string;
  watchLimit: number;
}

type Refused = AddedDomains['refused'];
type Transaction = Parameters<Parameters<Drizzle['transaction']>[0]>[0];

const notFound = (id: string) => new ApiError('watchlist_not_found', `no watchlist ${id.slice(0, 40)} of yours`);

/** Splits names sent into valid ones (first spelling of each kept, in order) and refused ones by index. */
function sortNames(domains: readonly string[]): { valid: string[]; repeated: number; refused: Refused } {
  const valid: string[] = [];
  const seen = new Set<string>();
  const refused: Refused = [];
  let repeated = 0;
  domains.forEach((raw, index) => {
    const input = parseNameInput(raw);
    if ('refused' in input) refused.push({ index, domain: raw.slice(0, 80), message: input.refused });
    else if (seen.has(input.domainName)) repeated += 1;
    else {
      seen.add(input.domainName);
      valid.push(input.domainName);
    }
  });
  return { valid, repeated, refused };
}

/**
 * Every action on watchlists, for the API and the dashboard alike: ownership (another owner's
 * watchlist is as absent as a made-up id), the plan's number of watched names (checked under
 * the owner's lock that alerts take, so two requests side by side cannot both pass it), names
 * validated one by one, the worker's schedule, and an audit entry for every change.
 */
export class WatchlistActions {
  constructor(private readonly deps: { database: Database; clock: Clock }) {}

  /**
   * These actions with their statements on `database`: a request's view of the database, so
   * that they end with the request's deadline. The same actions when it is theirs already.
   */
  on(database: Database): WatchlistActions {
    return database === this.deps.database ? this : new WatchlistActions({ ...this.deps, database });
  }

  /** The owner's watchlists, newest first. */
  async list(owner: WatchlistOwner): Promise<Watchlist[]> {
    const { database } = this.deps;
    const rows = await orQueryFailed(() => listOwnWatchlists(database, owner));
    const counts = await orQueryFailed(() => domainCounts(database, rows.map((row) => row.id)));
    return rows.map((row) => watchlistObject(row, counts.get(row.id) ?? 0));
  }

  /** The owner's watchlist as shown, or 404 watchlist_not_found. */
  async get(owner: WatchlistOwner, id: string): Promise<Watchlist> {
    const row = await this.owned(owner, id);
    const counts = await orQueryFailed(() => domainCounts(this.deps.database, [row.id]));
    return watchlistObject(row, counts.get(row.id) ?? 0);
  }

  /** Creates a watchlist with its first names; refused names are reported, the valid ones added. */
  async create(actor: WatchlistActor, plan: WatchPlan, body: { name: string; domains?: readonly string[] | undefined }): Promise<Watchlist & { refused: Refused }> {
    const id = newWatchlistId();
    const now = this.deps.clock.now();
    const names = sortNames(body.domains ?? []);
    const refusal = await orQueryFailed(() =>
      this.deps.database.db.transaction(async (tx) => {
        await lockOwnerAlerts(tx, actor.owner);
        const full = await this.roomFor(tx, actor.owner, plan, names.valid);
        if (full !== null) return full;
        await tx.insert(watchlists).values({
          id,
          ...(actor.owner.accountId !== undefined ? { accountId: actor.owner.accountId } : { keyId: actor.owner.keyId }),
          name: body.name,
          createdAt: now,
          updatedAt: now,
        });
        await this.insertNames(tx, id, names.valid, now);
        await this.audit(tx, actor, now, 'watchlist_created', `${body.name} (${id}), ${names.valid.length} names`);
        return null;
      }),
    );
    if (refusal !== null) throw refusal;
    return { ...(await this.get(actor.owner, id)), refused: names.refused };
  }

  /** Renames a watchlist. */
  async rename(actor: WatchlistActor, id: string, name: string): Promise<Watchlist> {
    const row = await this.owned(actor.owner, id);
    const now = this.deps.clock.now();
    await orQueryFailed(() =>
      this.deps.database.db.transaction(async (tx) => {
        await tx.update(watchlists).set({ name, updatedAt: now }).where(eq(watchlists.id, row.id));
        await this.audit(tx, actor, now, 'watchlist_renamed', `${row.name} → ${name} (${row.id})`);
      }),
    );
    return this.get(actor.owner, id);
  }

  /** Deletes a watchlist and its names; 409 while an alert delivers its events. */
  async delete(actor: WatchlistActor, id: string): Promise<{ id: string }> {
    const row = await this.owned(actor.owner, id);
    const now = this.deps.clock.now();
    const inUse = await orQueryFailed(() =>
      this.deps.database.db.transaction(async (tx) => {
        await lockOwnerAlerts(tx, actor.owner);
        const [alert] = await tx.select({ id: alerts.id }).from(alerts).where(eq(alerts.watchlistId, row.id)).limit(1);
        if (alert !== undefined) return alert.id;
        const names = await tx.select({ name: watchlistDomains.domainName }).from(watchlistDomains).where(eq(watchlistDomains.watchlistId, row.id));
        await tx.delete(watchlists).where(eq(watchlists.id, row.id));
        await unscheduleUnwatched(tx, names.map((entry) => entry.name));
        await this.audit(tx, actor, now, 'watchlist_deleted', `${row.name} (${row.id})`);
        return null;
      }),
    );
    if (inUse !== null) throw new ApiError('watchlist_in_use', `watchlist ${row.id} is used by the alert ${inUse}: delete the alert or point it elsewhere first`);
    return { id: row.id };
  }

  /** Adds names: valid ones added, each invalid one reported by index; all refused past the plan. */
  async addDomains(actor: WatchlistActor, plan: WatchPlan, id: string, domains: readonly string[]): Promise<AddedDomains> {
    const row = await this.owned(actor.owner, id);
    const now = this.deps.clock.now();
    const names = sortNames(domains);
    const added = await orQueryFailed(() =>
      this.deps.database.db.transaction(async (tx) => {
        await lockOwnerAlerts(tx, actor.owner);
        // deleted meanwhile: as absent as before
        if ((await findWatchlist(tx, actor.owner, row.id)) === undefined) return notFound(id);
        const full = await this.roomFor(tx, actor.owner, plan, names.valid);
        if (full !== null) return full;
        const count = await this.insertNames(tx, row.id, names.valid, now);
        if (count > 0) {
          await tx.update(watchlists).set({ updatedAt: now }).where(eq(watchlists.id, row.id));
          await this.audit(tx, actor, now, 'watchlist_names_added', `${count} names to ${row.name} (${row.id})`);
        }
        return count;
      }),
    );
    if (added instanceof ApiError) throw added;
    return { object: 'watchlist_change', watchlist: await this.get(actor.owner, id), added, already_watched: names.valid.length - added + names.repeated, refused: names.refused };
  }

  /** Removes one name; a name not on the list is 404 domain_not_found. */
  async removeDomain(actor: WatchlistActor, id: string, domain: string): Promise<{ domainName: string }> {
    const row = await this.owned(actor.owner, id);
    const input = parseNameInput(domain);
    const name = 'domainName' in input ? input.domainName : domain.toLowerCase();
    const now = this.deps.clock.now();
    const removed = await orQueryFailed(() =>
      this.deps.database.db.transaction(async (tx) => {
        const gone = await tx
          .delete(watchlistDomains)
          .where(and(eq(watchlistDomains.watchlistId, row.id), eq(watchlistDomains.domainName, name)))
          .returning({ name: watchlistDomains.domainName });
        if (gone.length === 0) return false;
        await tx.update(watchlists).set({ updatedAt: now }).where(eq(watchlists.id, row.id));
        await unscheduleUnwatched(tx, [name]);
        await this.audit(tx, actor, now, 'watchlist_name_removed', `${name} from ${row.name} (${row.id})`);
        return true;
      }),
    );
    if (!removed) throw new ApiError('domain_not_found', `${name.slice(0, 80)} is not on watchlist ${row.id}`);
    return { domainName: name };
  }

  /** A page of the watchlist's names in name order; the cursor is the last name, opaque to callers. */
  async domains(owner: WatchlistOwner, id: string, page: { after?: string | undefined; limit: number }): Promise<{ items: WatchedDomain[]; nextCursor: string | null }> {
    const row = await this.owned(owner, id);
    let after: string | undefined;
    if (page.after !== undefined) {
      after = Buffer.from(page.after, 'base64url').toString('utf8');
      if (after === '' || Buffer.from(after, 'utf8').toString('base64url') !== page.after) throw new ApiError('invalid_parameter', "after is malformed; pass a page's next_cursor back unchanged", 'after');
    }
    const rows = await orQueryFailed(() => watchedDomainsPage(this.deps.database, row.id, after, page.limit, this.deps.clock.now()));
    const items = rows.slice(0, page.limit);
    const nextCursor = rows.length > page.limit ? Buffer.from(items[items.length - 1]!.domain_name, 'utf8').toString('base64url') : null;
    return { items, nextCursor };
  }

  private async owned(owner: WatchlistOwner, id: string): Promise<WatchlistRow> {
    const row = await orQueryFailed(() => findWatchlist(this.deps.database.db, owner, id));
    if (row === undefined) throw notFound(id);
    return row;
  }

  /**
   * The refusal of the whole change when the names new to the owner would take it past its plan,
   * or null. Returned, not thrown, so the transaction ends normally and the refusal is not taken
   * for a database fault.
   */
  private async roomFor(tx: Transaction, owner: WatchlistOwner, plan: WatchPlan, names: readonly string[]): Promise<ApiError | null> {
    const watched = await namesWatchedBy(tx, owner, names);
    const fresh = names.filter((name) => !watched.has(name)).length;
    if (fresh === 0) return null;
    const current = await countWatchedNames(tx, owner);
    if (current + fresh > plan.watchLimit) {
      return new ApiError(
        'watch_limit_reached',
        `your plan (${plan.id}) allows ${plan.watchLimit} watched names and you watch ${current}: ${fresh} more would be ${current + fresh}; remove some, or move to a plan with more`,
      );
    }
    return null;
  }

  /** Inserts the names not yet on the list; how many were new. */
  private async insertNames(tx: Transaction, id: string, names: readonly string[], now: Date): Promise<number> {
    if (names.length === 0) return 0;
    const inserted = await tx
      .insert(watchlistDomains)
      .values(names.map((domainName) => ({ watchlistId: id, domainName, addedAt: now })))
      .onConflictDoNothing()
      .returning({ name: watchlistDomains.domainName });
    await scheduleChecks(tx, inserted.map((row) => row.name), now);
    return inserted.length;
  }

  private async audit(tx: Pick<Drizzle, 'insert'>, actor: WatchlistActor, at: Date, kind: AuditKind, detail: string): Promise<void> {
    if (actor.owner.accountId === undefined) return;
    await recordAudit(tx, { accountId: actor.owner.accountId, at, kind, ip: actor.ip ?? null, keyId: actor.keyId, detail });
  }
}
