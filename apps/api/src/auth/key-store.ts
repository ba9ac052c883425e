import { apiKeys, eq, fillPlaceholders, isNull, and, perDatabase, plans, sql, type Database } from '@domain-index/db';
import { displayPrefix, generateApiKey, hashApiKey, newKeyId, type KeyEnvironment } from './api-key';

/** What authentication needs to know of a presented key. */
export interface StoredKey {
  id: string;
  planId: string;
  revoked: boolean;
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
 * The key with a given hash (placeholder `hash`), as `StoredKey` needs it: id, plan, revoked
 * time. Also the first part of a lookup's combined statement (listings/lookup-with-key.ts).
 */
export const keyByHashQuery = (database: Database) =>
  database.db
    .select({ id: apiKeys.id, planId: apiKeys.planId, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
    .limit(1);

/** A StoredKey from the first values of a driver row selected by `keyByHashQuery`. */
export function storedKeyFromValues(values: readonly unknown[]): StoredKey {
  const [id, planId, revokedAt] = values as [string, string, unknown];
  return { id, planId, revoked: revokedAt !== null };
}

const renderedFindKey = perDatabase((database) => keyByHashQuery(database).toSQL());

/**
 * Looks a presented key up by its hash; undefined when no such key exists. It runs on every
 * request (a revocation applies on the next one), so its text is rendered once per database,
 * prepared once per connection, and its row read as the driver's array, like the lookup's.
 */
export async function findKey(database: Database, key: string): Promise<StoredKey | undefined> {
  const rendered = renderedFindKey(database);
  const [row] = await database.values({ sql: rendered.sql, params: fillPlaceholders(rendered.params, { hash: hashApiKey(key) }), prepare: true });
  return row === undefined ? undefined : storedKeyFromValues(row);
}

/** Creates a key on a plan; returns the key itself, which is never stored or shown again. */
export async function createKey(
  database: Database,
  options: { planId: string; name?: string | undefined; environment: KeyEnvironment },
): Promise<{ id: string; key: string }> {
  const [plan] = await database.db.select({ id: plans.id }).from(plans).where(eq(plans.id, options.planId));
  if (plan === undefined) throw new UnknownPlanError(options.planId, await planIds(database));
  const key = generateApiKey(options.environment);
  const id = newKeyId();
  await database.db.insert(apiKeys).values({
    id,
    keyHash: hashApiKey(key),
    displayPrefix: displayPrefix(key),
    name: options.name ?? null,
    planId: options.planId,
  });
  return { id, key };
}

/** Revokes a key now; false when there is no active key with that id. */
export async function revokeKey(database: Database, id: string, reason: string, at: Date): Promise<boolean> {
  const rows = await database.db
    .update(apiKeys)
    .set({ revokedAt: at, revokedReason: reason })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
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
