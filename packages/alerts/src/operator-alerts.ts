import { accounts, alerts, and, apiKeys, desc, eq, getTableColumns, inArray, webhookDeliveries, type AlertRow, type Database } from '@domain-index/db';
import { auditAlertAction, ownedBy, type AlertOwner } from './alert-store';
import { cancelQueuedMatches } from './outbox';
import { ownerStopReason } from './owner-state';

/** An alert as the operator's `alerts list` shows it. */
export interface OperatorAlert {
  id: string;
  /** `acc_...` or `key_...`. */
  owner: string;
  name: string;
  paused: boolean;
  pausedReason: string | null;
  /** Null while the owner is live, else why not (ownerStopReason). */
  stopped: string | null;
  webhookUrl: string | null;
  webhookDisabled: boolean;
  emailDigest: string | null;
  emailTo: string | null;
  lastDelivery: { status: string; createdAt: Date; cancelledReason: string | null } | null;
}

/** Which alerts an operator's command acts on: one by id, or all of an owner's. */
export type OperatorTarget = { alertId: string } | { owner: AlertOwner };

/** What an owner named on the command line is: an account, a key without one, or nothing of the kind. */
export type OwnerLookup = { kind: 'owner'; owner: AlertOwner } | { kind: 'unknown' } | { kind: 'key-of-account'; accountId: string };

/** The account or key named by `--account` / `--key`; a key with an account owns no alerts (the account does). */
export async function lookUpOwner(database: Database, named: { account: string } | { key: string }): Promise<OwnerLookup> {
  if ('account' in named) {
    const [row] = await database.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, named.account));
    return row === undefined ? { kind: 'unknown' } : { kind: 'owner', owner: { accountId: row.id } };
  }
  const [row] = await database.db.select({ id: apiKeys.id, accountId: apiKeys.accountId }).from(apiKeys).where(eq(apiKeys.id, named.key));
  if (row === undefined) return { kind: 'unknown' };
  return row.accountId === null ? { kind: 'owner', owner: { keyId: row.id } } : { kind: 'key-of-account', accountId: row.accountId };
}

/** Every alert (or an owner's), newest first, with its owner's state and its latest message. */
export async function operatorAlerts(database: Database, owner: AlertOwner | undefined, now: Date): Promise<OperatorAlert[]> {
  const rows = await database.db
    .select({ ...getTableColumns(alerts), stopped: ownerStopReason(now) })
    .from(alerts)
    .where(owner === undefined ? undefined : ownedBy(owner))
    .orderBy(desc(alerts.createdAt), desc(alerts.id));
  const ids = rows.map((row) => row.id);
  const latest =
    ids.length === 0
      ? []
      : await database.db
          .selectDistinctOn([webhookDeliveries.alertId], { alertId: webhookDeliveries.alertId, status: webhookDeliveries.status, createdAt: webhookDeliveries.createdAt, cancelledReason: webhookDeliveries.cancelledReason })
          .from(webhookDeliveries)
          .where(inArray(webhookDeliveries.alertId, ids))
          .orderBy(webhookDeliveries.alertId, desc(webhookDeliveries.seq));
  const byAlert = new Map(latest.map(({ alertId, ...delivery }) => [alertId, delivery]));
  return rows.map((row) => ({
    id: row.id,
    owner: row.accountId ?? row.keyId ?? '-',
    name: row.name,
    paused: row.paused,
    pausedReason: row.pausedReason,
    stopped: row.stopped,
    webhookUrl: row.webhookUrl,
    webhookDisabled: row.webhookDisabledAt !== null,
    emailDigest: row.emailDigest,
    emailTo: row.emailTo,
    lastDelivery: byAlert.get(row.id) ?? null,
  }));
}

/** The alerts a target names, with their owner's state; empty when an id names none. */
async function targeted(database: Database, target: OperatorTarget, now: Date): Promise<(AlertRow & { stopped: string | null })[]> {
  return database.db
    .select({ ...getTableColumns(alerts), stopped: ownerStopReason(now) })
    .from(alerts)
    .where('alertId' in target ? eq(alerts.id, target.alertId) : ownedBy(target.owner))
    .orderBy(alerts.createdAt, alerts.id);
}

const ownerOf = (row: AlertRow): AlertOwner => (row.accountId !== null ? { accountId: row.accountId } : { keyId: row.keyId! });

/**
 * Pauses or resumes the targeted alerts as an operator, with an audit entry for each alert of an
 * account that changed. Resuming an alert whose owner is not live is refused whole (`stopped`
 * names the first such alert): nothing would be sent for it anyway, and the owner's state is
 * what must change first. Returns the alerts found and those that changed.
 */
export async function operatorSetPaused(
  database: Database,
  target: OperatorTarget,
  paused: boolean,
  at: Date,
): Promise<{ found: number; changed: string[]; stopped?: { id: string; owner: string; reason: string } }> {
  const rows = await targeted(database, target, at);
  const dead = paused ? undefined : rows.find((row) => row.stopped !== null);
  if (dead !== undefined) return { found: rows.length, changed: [], stopped: { id: dead.id, owner: dead.accountId ?? dead.keyId ?? '-', reason: dead.stopped! } };
  const changed = rows.filter((row) => row.paused !== paused);
  if (changed.length === 0) return { found: rows.length, changed: [] };
  await database.db.transaction(async (tx) => {
    await tx
      .update(alerts)
      .set({ paused, pausedReason: paused ? 'paused by an operator' : null, updatedAt: at })
      .where(and(inArray(alerts.id, changed.map((row) => row.id)), eq(alerts.paused, !paused)));
    for (const row of changed) {
      // as when its owner pauses it: the matches queued before the pause are not sent either
      if (paused) await cancelQueuedMatches(tx, row.id, 'paused by an operator');
      await auditAlertAction(tx, ownerOf(row), { keyId: null, at, ip: null, kind: 'alert_changed', detail: `${row.name} (${row.id}): ${paused ? 'paused' : 'resumed'} by an operator` });
    }
  });
  return { found: rows.length, changed: changed.map((row) => row.id) };
}

/** Deletes the targeted alerts and their messages, with an audit entry for each alert of an account. Returns the ids deleted. */
export async function operatorDelete(database: Database, target: OperatorTarget, at: Date): Promise<string[]> {
  const rows = await targeted(database, target, at);
  if (rows.length === 0) return [];
  await database.db.transaction(async (tx) => {
    await tx.delete(alerts).where(inArray(alerts.id, rows.map((row) => row.id)));
    for (const row of rows) {
      await auditAlertAction(tx, ownerOf(row), { keyId: null, at, ip: null, kind: 'alert_deleted', detail: `${row.name} (${row.id}): deleted by an operator` });
    }
  });
  return rows.map((row) => row.id);
}

