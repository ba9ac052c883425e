import { accounts, and, apiKeys, auditEvents, desc, eq, inArray, isNull, keyUsage, sql, type Database, type Drizzle } from '@domain-index/db';
import { insertKey } from './key-store';
import { usageHourOf } from './usage-hour';
import { recordAudit } from '@domain-index/audit/audit';

/** A key as its account's dashboard lists it: never the key itself. */
export interface AccountKey {
  id: string;
  name: string | null;
  displayPrefix: string;
  planId: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** When it stops (stopped) working: a chosen expiry, or the end of a rotation's overlap. */
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** Why it was revoked: in the dashboard, by an operator, or as leaked in a URL (and where). */
  revokedReason: string | null;
  /** The client address of the request that revoked it, from the audit log. */
  revokedFrom: string | null;
  /** The key a rotation replaced it with (one of the same account's keys). */
  replacedBy: { id: string; displayPrefix: string } | null;
  /** Revoked wins; then rotated (whether or not its overlap is over); then expired. */
  status: 'active' | 'rotated' | 'revoked' | 'expired';
  /** Whether a request with it is accepted now: not revoked, not past its expiry. */
  usable: boolean;
  /**
   * This hour's requests (UTC) as the rate limit sees them: `counted`, those it let through
   * (whatever their answer), and `refused`, those it answered 429.
   */
  thisHour: { counted: number; refused: number };
}

/** The expiries a new key can be given, in days (null: never). */
export const KEY_EXPIRY_DAYS = [null, 7, 30, 90] as const;
/** How long a rotated key keeps working beside its successor. */
export const ROTATION_OVERLAPS = { none: 0, '1h': 3_600_000, '24h': 24 * 3_600_000 } as const;
export type RotationOverlap = keyof typeof ROTATION_OVERLAPS;

/**
 * The account's keys, newest first, with this hour's requests and why each stopped working. A
 * key whose expiry has passed gets its `key_expired` audit entry here, the first time the
 * account looks (an expiry is a moment, not an action, so nothing else would record it).
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
      revokedReason: apiKeys.revokedReason,
      replacedBy: apiKeys.replacedBy,
      requests: sql<number>`coalesce(${keyUsage.requests}, 0)`,
      refused: sql<number>`coalesce(${keyUsage.rateLimited}, 0)`,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .leftJoin(keyUsage, and(eq(keyUsage.keyId, apiKeys.id), eq(keyUsage.hour, new Date(usageHourOf(at)))))
    .where(eq(apiKeys.accountId, accountId))
    .orderBy(desc(apiKeys.createdAt), apiKeys.id);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const revokedFrom = await revocationAddresses(database, accountId, rows.filter((row) => row.revokedAt !== null).map((row) => row.id));
  const keys = rows.map(({ requests, refused, replacedBy, ...row }): AccountKey => {
    const successor = replacedBy === null ? undefined : byId.get(replacedBy);
    const expired = row.expiresAt !== null && row.expiresAt <= at;
    return {
      ...row,
      revokedFrom: revokedFrom.get(row.id) ?? null,
      replacedBy: replacedBy === null ? null : { id: replacedBy, displayPrefix: successor?.displayPrefix ?? replacedBy },
      status: row.revokedAt !== null ? 'revoked' : replacedBy !== null ? 'rotated' : expired ? 'expired' : 'active',
      usable: row.revokedAt === null && !expired,
      thisHour: { counted: requests - refused, refused },
    };
  });
  await recordExpiries(database, accountId, keys);
  return keys;
}

/** The client address each of these keys was revoked from, as its audit entry has it. */
async function revocationAddresses(database: Database, accountId: string, keyIds: string[]): Promise<Map<string, string>> {
  if (keyIds.length === 0) return new Map();
  const entries = await database.db
    .select({ keyId: auditEvents.keyId, ip: auditEvents.ip })
    .from(auditEvents)
    .where(and(eq(auditEvents.accountId, accountId), inArray(auditEvents.kind, ['key_revoked', 'key_revoked_leaked']), inArray(auditEvents.keyId, keyIds)));
  return new Map(entries.flatMap((entry) => (entry.keyId === null || entry.ip === null ? [] : [[entry.keyId, entry.ip] as const])));
}

async function recordExpiries(database: Database, accountId: string, keys: readonly AccountKey[]): Promise<void> {
  const expired = keys.filter((key) => key.revokedAt === null && !key.usable);
  if (expired.length === 0) return;
  const recorded = await database.db
    .select({ keyId: auditEvents.keyId })
    .from(auditEvents)
    .where(and(eq(auditEvents.accountId, accountId), eq(auditEvents.kind, 'key_expired'), inArray(auditEvents.keyId, expired.map((key) => key.id))));
  const seen = new Set(recorded.map((row) => row.keyId));
  for (const key of expired) {
    if (seen.has(key.id)) continue;
    const detail = key.replacedBy === null ? null : `its rotation overlap ended; replaced by ${key.replacedBy.displayPrefix}…`;
    await recordAudit(database.db, { accountId, at: key.expiresAt!, kind: 'key_expired', keyId: key.id, detail });
  }
}

/**
 * What runs in the transaction that makes a key, once it is made (the dashboard stores the key
 * for the page that shows it): if it throws, the key is not made.
 */
export type WithNewKey = (tx: Pick<Drizzle, 'insert' | 'delete'>, created: { id: string; key: string; displayPrefix: string }) => Promise<void>;

/**
 * Creates a key for an account, on the account's plan, in one transaction with its audit entry
 * and `withNewKey`; the key is returned once and never stored.
 */
export async function createAccountKey(
  database: Database,
  options: { accountId: string; name: string | undefined; expiresInDays: number | null; at: Date; ip: string | null },
  withNewKey?: WithNewKey,
): Promise<{ id: string; key: string }> {
  const [account] = await database.db.select({ planId: accounts.planId }).from(accounts).where(eq(accounts.id, options.accountId));
  if (account === undefined) throw new Error('no such account');
  const expiresAt = options.expiresInDays === null ? undefined : new Date(options.at.getTime() + options.expiresInDays * 86_400_000);
  return database.db.transaction(async (tx) => {
    const created = await insertKey(tx, { planId: account.planId, name: options.name, environment: 'live', accountId: options.accountId, expiresAt });
    await recordAudit(tx, { accountId: options.accountId, at: options.at, kind: 'key_created', ip: options.ip, keyId: created.id, detail: options.name ?? null });
    await withNewKey?.(tx, created);
    return { id: created.id, key: created.key };
  });
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
 * old one stops after the overlap (at once with `none`). Undefined when it has no such key, or
 * the key was rotated already (a rotated key is replaced once; it can still be revoked).
 * One transaction, `withNewKey` included: a failure part-way must not leave a new active key
 * that was never shown.
 */
export async function rotateAccountKey(
  database: Database,
  options: { accountId: string; keyId: string; overlap: RotationOverlap; at: Date; ip: string | null },
  withNewKey?: WithNewKey,
): Promise<{ id: string; key: string; oldKeyUntil: Date } | undefined> {
  return database.db.transaction(async (tx) => {
    // Locked, so two rotations of one key at once make one successor, not two.
    const [old] = await tx
      .select({ name: apiKeys.name, expiresAt: apiKeys.expiresAt, planId: accounts.planId })
      .from(apiKeys)
      .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
      .where(and(eq(apiKeys.id, options.keyId), eq(apiKeys.accountId, options.accountId), isNull(apiKeys.revokedAt), isNull(apiKeys.replacedBy)))
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
    await tx.update(apiKeys).set({ expiresAt: oldKeyUntil, replacedBy: created.id }).where(eq(apiKeys.id, options.keyId));
    await recordAudit(tx, {
      accountId: options.accountId,
      at: options.at,
      kind: 'key_rotated',
      ip: options.ip,
      keyId: options.keyId,
      detail: `replaced by ${created.displayPrefix}…; the old key works until ${oldKeyUntil.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    });
    await withNewKey?.(tx, created);
    return { id: created.id, key: created.key, oldKeyUntil };
  });
}
