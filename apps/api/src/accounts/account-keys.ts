import { accounts, and, apiKeys, auditEvents, desc, eq, inArray, isNull, keyUsage, sql, type Database } from '@domain-index/db';
import { createKey, insertKey } from '../auth/key-store';
import { usageHourOf } from '../usage/usage-hour';
import { recordAudit } from './audit';

/** A key as its account's dashboard lists it: never the key itself. */
export interface AccountKey {
  id: string;
  name: string | null;
  displayPrefix: string;
  planId: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  status: 'active' | 'revoked' | 'expired';
  requestsThisHour: number;
}

/** The expiries a new key can be given, in days (null: never). */
export const KEY_EXPIRY_DAYS = [null, 7, 30, 90] as const;
/** How long a rotated key keeps working beside its successor. */
export const ROTATION_OVERLAPS = { none: 0, '1h': 3_600_000, '24h': 24 * 3_600_000 } as const;
export type RotationOverlap = keyof typeof ROTATION_OVERLAPS;

/**
 * The account's keys, newest first, with this hour's requests. A key whose expiry has passed
 * gets its `key_expired` audit entry here, the first time the account looks (an expiry is a
 * moment, not an action, so nothing else would record it).
 */
export async function listAccountKeys(database: Database, accountId: string, at: Date): Promise<AccountKey[]> {
  const rows = await database.db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      displayPrefix: apiKeys.displayPrefix,
      planId: accounts.planId,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      requestsThisHour: sql<number>`coalesce(${keyUsage.requests}, 0)`,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .leftJoin(keyUsage, and(eq(keyUsage.keyId, apiKeys.id), eq(keyUsage.hour, new Date(usageHourOf(at)))))
    .where(eq(apiKeys.accountId, accountId))
    .orderBy(desc(apiKeys.createdAt), apiKeys.id);
  const keys = rows.map((row): AccountKey => ({
    ...row,
        status: row.revokedAt !== null ? 'revoked' : row.expiresAt !== null && row.expiresAt <= at ? 'expired' : 'active',
  }));
  await recordExpiries(database, accountId, keys);
  return keys;
}

async function recordExpiries(database: Database, accountId: string, keys: readonly AccountKey[]): Promise<void> {
  const expired = keys.filter((key) => key.status === 'expired');
  if (expired.length === 0) return;
  const recorded = await database.db
    .select({ keyId: auditEvents.keyId })
    .from(auditEvents)
    .where(and(eq(auditEvents.accountId, accountId), eq(auditEvents.kind, 'key_expired'), inArray(auditEvents.keyId, expired.map((key) => key.id))));
  const seen = new Set(recorded.map((row) => row.keyId));
  for (const key of expired) {
    if (!seen.has(key.id)) await recordAudit(database.db, { accountId, at: key.expiresAt!, kind: 'key_expired', keyId: key.id });
  }
}

/** Creates a key for an account, on the account's plan; the key is returned once and never stored. */
export async function createAccountKey(
  database: Database,
  options: { accountId: string; name: string; expiresInDays: number | null; at: Date; ip: string | null },
): Promise<{ id: string; key: string }> {
  const [account] = await database.db.select({ planId: accounts.planId }).from(accounts).where(eq(accounts.id, options.accountId));
  if (account === undefined) throw new Error('no such account');
  const expiresAt = options.expiresInDays === null ? undefined : new Date(options.at.getTime() + options.expiresInDays * 86_400_000);
  const created = await createKey(database, { planId: account.planId, name: options.name, environment: 'live', accountId: options.accountId, expiresAt });
  await recordAudit(database.db, { accountId: options.accountId, at: options.at, kind: 'key_created', ip: options.ip, keyId: created.id, detail: options.name });
  return { id: created.id, key: created.key };
}

/** Revokes one of the account's active keys now; false when it has no such key. */
export async function revokeAccountKey(database: Database, options: { accountId: string; keyId: string; at: Date; ip: string | null }): Promise<boolean> {
  const rows = await database.db
    .update(apiKeys)
    .set({ revokedAt: options.at, revokedReason: 'revoked in the dashboard' })
    .where(and(eq(apiKeys.id, options.keyId), eq(apiKeys.accountId, options.accountId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (rows.length === 0) return false;
  await recordAudit(database.db, { accountId: options.accountId, at: options.at, kind: 'key_revoked', ip: options.ip, keyId: options.keyId });
  return true;
}

/**
 * Rotates one of the account's active keys: a new key with the same name and expiry, and the
 * old one stops after the overlap (at once with `none`). Undefined when it has no such key.
 * One transaction: a failure part-way must not leave a new active key that was never shown.
 */
export async function rotateAccountKey(
  database: Database,
  options: { accountId: string; keyId: string; overlap: RotationOverlap; at: Date; ip: string | null },
): Promise<{ id: string; key: string; oldKeyUntil: Date } | undefined> {
  return database.db.transaction(async (tx) => {
    // Locked, so two rotations of one key at once make one successor, not two.
    const [old] = await tx
      .select({ name: apiKeys.name, expiresAt: apiKeys.expiresAt, planId: accounts.planId })
      .from(apiKeys)
      .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
      .where(and(eq(apiKeys.id, options.keyId), eq(apiKeys.accountId, options.accountId), isNull(apiKeys.revokedAt)))
      .for('update', { of: apiKeys });
    if (old === undefined || (old.expiresAt !== null && old.expiresAt <= options.at)) return undefined;
    const until = new Date(options.at.getTime() + ROTATION_OVERLAPS[options.overlap]);
    const oldKeyUntil = old.expiresAt !== null && old.expiresAt < until ? old.expiresAt : until;
    const created = await insertKey(tx, {
      planId: old.planId,
      name: old.name ?? undefined,
      environment: 'live',
      accountId: options.accountId,
      expiresAt: old.expiresAt ?? undefined,
    });
    await tx.update(apiKeys).set({ expiresAt: oldKeyUntil }).where(eq(apiKeys.id, options.keyId));
    await recordAudit(tx, {
      accountId: options.accountId,
      at: options.at,
      kind: 'key_rotated',
      ip: options.ip,
      keyId: options.keyId,
      detail: `replaced by ${created.id}; the old key works until ${oldKeyUntil.toISOString()}`,
    });
    return { id: created.id, key: created.key, oldKeyUntil };
  });
}
