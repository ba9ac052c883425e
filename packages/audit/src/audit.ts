import { and, apiKeys, auditEvents, desc, eq, type Database, type Drizzle } from '@domain-index/db';

/**
 * What the audit log records: every change to an account's keys, every sign-in attempt and
 * sign-out, every change of password (and request for a reset link), and every session ended
 * from the sessions page.
 */
export const AUDIT_KINDS = {
  key_created: 'Key created',
  key_revoked: 'Key revoked',
  key_rotated: 'Key rotated',
  key_expired: 'Key expired',
  key_revoked_leaked: 'Key revoked as leaked (sent in a URL)',
  sign_in: 'Signed in',
  sign_in_failed: 'Failed sign-in',
  signed_out: 'Signed out',
  password_reset_requested: 'Password reset link requested',
  password_changed: 'Password set',
  password_change_failed: 'Failed password change (wrong current password)',
  session_ended: 'Signed out a session',
  signed_out_everywhere: 'Signed out everywhere',
  sign_up_existing: 'Sign-up tried with this email',
  alert_created: 'Alert created',
  alert_changed: 'Alert changed',
  alert_deleted: 'Alert deleted',
  alert_secret_rotated: 'Alert signing secret rotated',
  alert_test_sent: 'Alert test webhook sent',
  alert_message_resent: 'Alert webhook message sent again',
  alert_webhook_disabled: 'Alert webhook disabled after failing',
  watchlist_created: 'Watchlist created',
  watchlist_renamed: 'Watchlist renamed',
  watchlist_deleted: 'Watchlist deleted',
  watchlist_names_added: 'Names added to a watchlist',
  watchlist_name_removed: 'Name removed from a watchlist',
} as const;
export type AuditKind = keyof typeof AUDIT_KINDS;

/** One entry of an account's audit log. */
export interface AuditEntry {
  at: Date;
  kind: AuditKind;
  ip: string | null;
  keyId: string | null;
  /** The key as the keys page shows it: its name and display prefix. */
  key: { name: string | null; displayPrefix: string } | null;
  detail: string | null;
}

/** Appends an entry to an account's audit log: through `database.db`, or in a transaction with the change it records. */
export async function recordAudit(
  db: Pick<Drizzle, 'insert'>,
  entry: { accountId: string; at: Date; kind: AuditKind; ip?: string | null; keyId?: string | null; detail?: string | null },
): Promise<void> {
  await db.insert(auditEvents).values({
    accountId: entry.accountId,
    at: entry.at,
    kind: entry.kind,
    ip: entry.ip ?? null,
    keyId: entry.keyId ?? null,
    detail: entry.detail ?? null,
  });
}

/** The newest entries of an account's audit log. */
export async function auditLog(database: Database, accountId: string, limit = 100): Promise<AuditEntry[]> {
  const rows = await database.db
    .select({
      at: auditEvents.at,
      kind: auditEvents.kind,
      ip: auditEvents.ip,
      keyId: auditEvents.keyId,
      detail: auditEvents.detail,
      keyName: apiKeys.name,
      keyPrefix: apiKeys.displayPrefix,
    })
    .from(auditEvents)
    // the account's own keys only: an entry never names another account's key
    .leftJoin(apiKeys, and(eq(apiKeys.id, auditEvents.keyId), eq(apiKeys.accountId, auditEvents.accountId)))
    .where(eq(auditEvents.accountId, accountId))
    .orderBy(desc(auditEvents.at), desc(auditEvents.id))
    .limit(limit);
  return rows.map(({ keyName, keyPrefix, ...row }) => ({
    ...row,
    kind: row.kind as AuditKind,
    key: keyPrefix === null ? null : { name: keyName, displayPrefix: keyPrefix },
  }));
}

/** When an account's audit log last recorded `kind`, if ever. */
export async function lastAuditAt(database: Database, accountId: string, kind: AuditKind): Promise<Date | undefined> {
  const [row] = await database.db
    .select({ at: auditEvents.at })
    .from(auditEvents)
    .where(and(eq(auditEvents.accountId, accountId), eq(auditEvents.kind, kind)))
    .orderBy(desc(auditEvents.at))
    .limit(1);
  return row?.at;
}
