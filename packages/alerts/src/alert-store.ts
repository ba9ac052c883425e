import { randomBytes } from 'node:crypto';
import type { Alert, DigestStatus } from '@domain-index/contract';
import { recordAudit } from '@domain-index/audit/audit';
import { shownWebhookUrl } from '@domain-index/webhooks/url-credentials';
import { digestRecipientsOf, digestStatusOf, recipientFor } from './digest-recipients';
import { accounts, alerts, and, apiKeys, desc, eq, inArray, isNotNull, sql, webhookDeliveries, type AlertRow, type Database, type Drizzle } from '@domain-index/db';

/** Who owns an alert: the key's account, or the key itself when it has none. */
export type AlertOwner = { accountId: string; keyId?: undefined } | { keyId: string; accountId?: undefined };

/** The owner of the alerts a key sees, and the account's address (for email digests). */
export async function ownerOfKey(database: Database, keyId: string): Promise<{ owner: AlertOwner; email: string | null }> {
  const [row] = await database.db
    .select({ accountId: apiKeys.accountId, email: accounts.email })
    .from(apiKeys)
    .leftJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(eq(apiKeys.id, keyId));
  return row?.accountId ? { owner: { accountId: row.accountId }, email: row.email } : { owner: { keyId }, email: null };
}

/** The condition "owned by `owner`". */
export function ownedBy(owner: AlertOwner) {
  return owner.accountId !== undefined ? eq(alerts.accountId, owner.accountId) : eq(alerts.keyId, owner.keyId);
}

/** `alt_` and 20 random base64url characters. */
export function newAlertId(): string {
  return `alt_${randomBytes(15).toString('base64url')}`;
}

/** The newest event of the change feed: an alert made now starts after it. */
export async function newestEventPosition(database: Database): Promise<number> {
  const [row] = await database.rows<{ newest: string | null; dropped: string }>(
    sql`select (select max(id) from listing_events)::text as newest, dropped_through_id::text as dropped from event_log`,
  );
  return Math.max(Number(row?.newest ?? 0), Number(row?.dropped ?? 0));
}

/** The owner's alert, or undefined (another owner's alert is as absent as a made-up id). */
export async function findAlert(database: Database, owner: AlertOwner, id: string): Promise<AlertRow | undefined> {
  const [row] = await database.db.select().from(alerts).where(and(eq(alerts.id, id), ownedBy(owner)));
  return row;
}

/** The owner's alerts, newest first. */
export async function listOwnAlerts(database: Database, owner: AlertOwner): Promise<AlertRow[]> {
  return database.db.select().from(alerts).where(ownedBy(owner)).orderBy(desc(alerts.createdAt), desc(alerts.id));
}

/** How many alerts the owner has, through `db` or in a transaction. */
export async function countOwnAlerts(db: Pick<Drizzle, 'select'>, owner: AlertOwner): Promise<number> {
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(alerts).where(ownedBy(owner));
  return row?.count ?? 0;
}

/** How many of an account's alerts have their webhook turned off (410 Gone, or failing for days). */
export function countTurnedOffWebhooks(database: Database, accountId: string): Promise<number> {
  return database.db.$count(alerts, and(eq(alerts.accountId, accountId), isNotNull(alerts.webhookDisabledAt)));
}

/**
 * Takes the owner's alert lock until the transaction ends: a transaction-scoped advisory lock
 * (a session lock would outlive the transaction on a pooler in transaction mode).
 */
export async function lockOwnerAlerts(tx: Pick<Drizzle, 'execute'>, owner: AlertOwner): Promise<void> {
  const name = owner.accountId !== undefined ? `alerts of ${owner.accountId}` : `alerts of ${owner.keyId}`;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${name}))`);
}

type LastDelivery = NonNullable<Alert['last_delivery']>;

/** The latest message of each alert. */
async function lastDeliveries(database: Database, ids: readonly string[]): Promise<Map<string, LastDelivery>> {
  if (ids.length === 0) return new Map();
  const rows = await database.db
    .selectDistinctOn([webhookDeliveries.alertId], {
      alertId: webhookDeliveries.alertId,
      id: webhookDeliveries.id,
      createdAt: webhookDeliveries.createdAt,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      cancelledReason: webhookDeliveries.cancelledReason,
    })
    .from(webhookDeliveries)
    .where(inArray(webhookDeliveries.alertId, [...ids]))
    .orderBy(webhookDeliveries.alertId, desc(webhookDeliveries.seq));
  return new Map(rows.map((row) => [row.alertId, { id: row.id, created: row.createdAt.toISOString(), status: row.status as LastDelivery['status'], attempts: row.attempts, cancelled_reason: row.status === 'cancelled' ? row.cancelledReason : null }]));
}

/** Alerts as the API shows them, with their latest delivery and their digest address's state. */
export async function alertObjects(database: Database, rows: readonly AlertRow[]): Promise<Alert[]> {
  const latest = await lastDeliveries(database, rows.map((row) => row.id));
  const recipients = await digestRecipientsOf(database, rows.flatMap((row) => (row.emailTo === null ? [] : [row.emailTo])));
  return rows.map((row) => alertObject(row, latest.get(row.id) ?? null, row.emailDigest === null || row.emailTo === null ? null : digestStatusOf(recipientFor(recipients, row.emailTo))));
}

/** One alert as the API shows it. */
function alertObject(row: AlertRow, lastDelivery: LastDelivery | null, digestStatus: DigestStatus | null): Alert {
  return {
    object: 'alert',
    id: row.id,
    name: row.name,
    query: row.queryString,
    watchlist_id: row.watchlistId,
    webhook_url: row.webhookUrl === null ? null : shownWebhookUrl(row.webhookUrl),
    webhook_state: row.webhookUrl === null ? 'none' : row.webhookDisabledAt === null ? 'active' : 'disabled',
    webhook_disabled_reason: row.webhookDisabledReason,
    email_digest: (row.emailDigest as Alert['email_digest']) ?? null,
    email_digest_status: digestStatus,
    paused: row.paused,
    created: row.createdAt.toISOString(),
    updated: row.updatedAt.toISOString(),
    last_delivery: lastDelivery,
  };
}

/**
 * Records an alert action in the owning account's audit log (an alert of a key without an
 * account has none), through `db` or in the transaction of the change. `keyId` is the key that
 * acted, null when a person did in the dashboard.
 */
export async function auditAlertAction(
  db: Pick<Drizzle, 'insert'>,
  owner: AlertOwner,
  entry: { keyId: string | null; at: Date; ip: string | null | undefined; kind: 'alert_created' | 'alert_changed' | 'alert_deleted' | 'alert_secret_rotated' | 'alert_test_sent' | 'alert_message_resent'; detail: string },
): Promise<void> {
  if (owner.accountId === undefined) return;
  await recordAudit(db, { accountId: owner.accountId, at: entry.at, kind: entry.kind, ip: entry.ip ?? null, keyId: entry.keyId, detail: entry.detail });
}
