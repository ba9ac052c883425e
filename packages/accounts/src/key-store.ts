import { accounts, apiKeys, eq, fillPlaceholders, isNull, and, perDatabase, plans, sql, type Database, type Drizzle } from '@domain-index/db';
import { displayPrefix, generateApiKey, hashApiKey, newKeyId, type KeyEnvironment } from './api-key';
import { stopOwnerAlerts, type OwnerStop } from '@domain-index/alerts/owner-state';

/** What authentication needs to know of a presented key. */
export interface StoredKey {
  id: string;
  /** The owning account's plan, or the key's own for a key without an account. */
  planId: string;
  /** False when the key is revoked, expired, or its account disabled: one identical 401. */
  active: boolean;
}

/** A key as `keys list` shows it: never the key itself. */
export interface KeyListing {
  id: string;
  name: string | null;
  planId: string;
  displayPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  revokedReason: string | null;
}

/**
 * The key with a given hash (placeholder `hash`) at a time (placeholder `now`), as `StoredKey`
 * needs it: id, plan (its account's, so a plan change applies from the next request), and
 * whether it is active (not revoked, not expired, its account not disabled). Also the first
 * part of a lookup's combined statement (the API's listings/lookup-with-key.ts).
 */
export const keyByHashQuery = (database: Database) => {
  const now = sql`${sql.placeholder('now')}::timestamptz`;
  return database.db
    .select({
      id: apiKeys.id,
      planId: sql<string>`coalesce(${accounts.planId}, ${apiKeys.planId})`.as('plan_id'),
      active: sql<boolean>`(${apiKeys.revokedAt} is null and ${accounts.disabledAt} is null and (${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > ${now}))`.as(
        'active',
      ),
    })
    .from(apiKeys)
    .leftJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
    .limit(1);
};

/** A StoredKey from the first values of a driver row selected by `keyByHashQuery`. */
export function storedKeyFromValues(values: readonly unknown[]): StoredKey {
  const [id, planId, active] = values as [string, string, boolean];
  return { id, planId, active };
}

const renderedFindKey = perDatabase((database) => keyByHashQuery(database).toSQL());

/**
 * Looks a presented key up by its hash; undefined when no such key exists. It runs on every
 * request (a revocation applies on the next one), so its text is rendered once per database,
 * prepared once per connection, and its row read as the driver's array, like the lookup's.
 */
export async function findKey(database: Database, key: string, now: Date): Promise<StoredKey | undefined> {
  const rendered = renderedFindKey(database);
  const [row] = await database.values({
    sql: rendered.sql,
    params: fillPlaceholders(rendered.params, { hash: hashApiKey(key), now: now.toISOString() }),
    prepare: true,
  });
  return row === undefined ? undefined : storedKeyFromValues(row);
}

/** What a new key is made with. */
export interface NewKey {
  planId: string;
  name?: string | undefined;
  environment: KeyEnvironment;
  /** The dashboard account that owns it; its plan then applies. */
  accountId?: string | undefined;
  expiresAt?: Date | undefined;
}

/** Creates a key on a plan; returns the key itself, which is never stored or shown again. */
export async function createKey(database: Database, options: NewKey): Promise<{ id: string; key: string; displayPrefix: string }> {
  const [plan] = await database.db.select({ id: plans.id }).from(plans).where(eq(plans.id, options.planId));
  if (plan === undefined) throw new UnknownPlanError(options.planId, await planIds(database));
  return insertKey(database.db, options);
}

/** Stores a new key on a plan known to exist, through `database.db` or in a transaction. */
export async function insertKey(db: Pick<Drizzle, 'insert'>, options: NewKey): Promise<{ id: string; key: string; displayPrefix: string }> {
  const key = generateApiKey(options.environment);
  const id = newKeyId();
  await db.insert(apiKeys).values({
    id,
    keyHash: hashApiKey(key),
    displayPrefix: displayPrefix(key),
    name: options.name ?? null,
    planId: options.planId,
    accountId: options.accountId ?? null,
    expiresAt: options.expiresAt ?? null,
  });
  return { id, key, displayPrefix: displayPrefix(key) };
}

/**
 * Revokes a key now; false when there is no active key with that id. In the same transaction
 * the alerts the key owns (those of a key without an account) are paused and their pending
 * messages cancelled, with `stop` as the reason.
 */
export async function revokeKey(database: Database, id: string, reason: string, at: Date, stop: OwnerStop = 'key revoked'): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: at, revokedReason: reason })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    if (rows.length === 0) return false;
    await stopOwnerAlerts(tx, { keyId: id }, stop, at);
    return true;
  });
}

/** The account that owns a key, or null for a key made with `keys create`. */
export async function keyAccount(database: Database, id: string): Promise<string | null> {
  const [row] = await database.db.select({ accountId: apiKeys.accountId }).from(apiKeys).where(eq(apiKeys.id, id));
  return row?.accountId ?? null;
}

/** Every key, newest first. */
export async function listKeys(database: Database): Promise<KeyListing[]> {
  return database.db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      planId: apiKeys.planId,
      displayPrefix: apiKeys.displayPrefix,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      revokedAt: apiKeys.revokedAt,
      revokedReason: apiKeys.revokedReason,
    })
    .from(apiKeys)
    .orderBy(sql`${apiKeys.createdAt} desc`, apiKeys.id);
}

/** Records use of a key (callers throttle it: one write per key per minute at most). */
export async function touchKey(database: Database, id: string, at: Date): Promise<void> {
  await database.db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id));
}

async function planIds(database: Database): Promise<string[]> {
  return (await database.db.select({ id: plans.id }).from(plans).orderBy(plans.id)).map((row) => row.id);
}

/** `keys create` named a plan that is not in the plans table. */
export class UnknownPlanError extends Error {
  override readonly name = 'UnknownPlanError';
  constructor(planId: string, known: string[]) {
    super(`unknown plan ${planId}; plans: ${known.join(', ')}`);
  }
}
