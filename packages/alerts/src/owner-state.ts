import { alerts, and, eq, inArray, sql, webhookDeliveries, type Database, type Drizzle, type SQL } from '@domain-index/db';
import { auditAlertAction, ownedBy, type AlertOwner } from './alert-store';

/**
 * Why an alert's owner can no longer have anything delivered, as the delivery log and `alerts
 * list` say it: its account is disabled, or (for an alert of a key without an account) the key
 * is revoked or past its expiry.
 */
export type OwnerStop = 'owner disabled' | 'key revoked' | 'key revoked as leaked' | 'key expired';

/**
 * Over the `alerts` row in scope: null while its owner is live, else why not (an OwnerStop). The
 * same rule as the key check of a request (@domain-index/accounts/key-store): an alert sends for its owner only
 * while that owner could still authenticate.
 */
export function ownerStopReason(now: Date): SQL<string | null> {
  const at = sql`${now.toISOString()}::timestamptz`;
  return sql<string | null>`(case when ${alerts.accountId} is not null
    then (select case when o.disabled_at is not null then 'owner disabled' end from accounts o where o.id = ${alerts.accountId})
    else (select case when k.revoked_at is not null then 'key revoked' when k.expires_at <= ${at} then 'key expired' when o.disabled_at is not null then 'owner disabled' end
          from api_keys k left join accounts o on o.id = k.account_id where k.id = ${alerts.keyId})
    end)`;
}

/**
 * Stops an owner's alerts in the transaction that disables the owner: each running alert is
 * paused with the reason (resuming is the owner's choice, never automatic), and every message
 * still pending is cancelled with it, so nothing more is signed or mailed for them. Each paused
 * alert of an account gets an audit entry. Returns how many alerts were paused and messages
 * cancelled.
 */
export async function stopOwnerAlerts(tx: Pick<Drizzle, 'update' | 'insert' | 'select'>, owner: AlertOwner, reason: OwnerStop, at: Date): Promise<{ paused: number; cancelled: number }> {
  const paused = await tx
    .update(alerts)
    .set({ paused: true, pausedReason: reason, updatedAt: at })
    .where(and(ownedBy(owner), eq(alerts.paused, false)))
    .returning({ id: alerts.id, name: alerts.name });
  const cancelled = await tx
    .update(webhookDeliveries)
    .set({ status: 'cancelled', cancelledReason: reason })
    .where(and(eq(webhookDeliveries.status, 'pending'), inArray(webhookDeliveries.alertId, tx.select({ id: alerts.id }).from(alerts).where(ownedBy(owner)))))
    .returning({ id: webhookDeliveries.id });
  for (const alert of paused) {
    await auditAlertAction(tx, owner, { keyId: null, at, ip: null, kind: 'alert_changed', detail: `${alert.name} (${alert.id}): paused, ${reason}` });
  }
  return { paused: paused.length, cancelled: cancelled.length };
}

/**
 * Cancels the pending messages of alerts whose owner is no longer live, with the reason. A key
 * reaching its expiry is no action that could stop its alerts in a transaction: this runs on
 * the delivery worker's turn instead, so such messages leave the outbox rather than wait in it.
 */
export async function cancelMessagesOfStoppedOwners(database: Database, now: Date): Promise<number> {
  const rows = await database.rows<{ id: string }>(sql`
    update webhook_deliveries d set status = 'cancelled', cancelled_reason = stopped.reason
    from (select ${alerts.id} as id, ${ownerStopReason(now)} as reason from ${alerts}
          where ${alerts.id} in (select alert_id from webhook_deliveries where status = 'pending')) stopped
    where d.alert_id = stopped.id and d.status = 'pending' and stopped.reason is not null
    returning d.id`);
  return rows.length;
}
