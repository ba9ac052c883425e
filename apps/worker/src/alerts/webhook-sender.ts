import { hostname } from 'node:os';
import { alerts, and, eq, sql, webhookAttempts, webhookDeliveries, type AlertRow, type Database } from '@domain-index/db';
import { recordAudit } from '@domain-index/audit/audit';
import type { Clock } from '@domain-index/runtime/clock';
import { eventsByIds } from '@domain-index/events/feed-page';
import type { Logger } from '@domain-index/runtime/logger';
import { processRuns } from '@domain-index/runtime/process-runs';
import type { AllowList } from '@domain-index/webhooks/address-rules';
import { nextAttemptAt, shouldDisable } from '@domain-index/webhooks/retry-schedule';
import { sendWebhookRequest, WEBHOOK_TIMEOUT_MS, type Resolver, type WebhookAttempt } from '@domain-index/webhooks/safe-request';
import type { SecretBox } from '@domain-index/webhooks/secret-box';
import { ownerStopReason } from '@domain-index/alerts/owner-state';
import { signingSecrets, signWebhook } from '@domain-index/webhooks/signing';
import type { AttemptEnd, CircuitSettings } from '@domain-index/alerts/endpoints';

/** How a sender sends. */
export interface SenderSettings {
  secretBox: () => Promise<SecretBox>;
  allowList: AllowList;
  /** WEBHOOK_RETRY_SCHEDULE: seconds before each attempt, the first included. */
  schedule: readonly number[];
  /** A webhook failing continuously this long is disabled (5 days by default). */
  disableAfterMs: number;
  clock: Clock;
  logger: Logger;
  /** WEBHOOK_TIMEOUT_MS: the whole attempt. */
  timeoutMs?: number;
  /** WEBHOOK_CONNECT_TIMEOUT_MS: the connection, TLS included. */
  connectTimeoutMs?: number;
  /** WEBHOOK_RESPONSE_TIMEOUT_MS: from connected to the answer's headers. */
  responseTimeoutMs?: number;
  resolve?: Resolver;
  /** Trusted certificate authorities (a private CA, or a test's). */
  ca?: string;
  /** WEBHOOK_CONCURRENCY: requests in flight at once, each to a different endpoint. */
  concurrency?: number;
  /** When an endpoint that keeps timing out is parked (DEFAULT_CIRCUIT unless a test shortens it). */
  circuit?: CircuitSettings;
  /** Told of each attempt's outcome and of a webhook disabled (metrics, mail). */
  onOutcome?: (outcome: 'delivered' | 'retrying' | 'failed' | 'disabled') => void;
  onDisabled?: (alert: AlertRow, reason: string) => Promise<void>;
}

/** A claim on a message lasts this long beyond its timeout; a sender that dies lets it lapse, and another sends it again. */
const CLAIM_MARGIN_MS = 15_000;

/** This sender, as its claims name it. */
const SENDER = `${hostname()}:${process.pid}`;

/**
 * Senders of this machine that hold claims but are gone (killed mid-send): their claims are
 * taken over at once by a sender restarted here, rather than when the lease runs out.
 */
export async function deadLocalClaimers(database: Database, now: Date): Promise<string[]> {
  const rows = await database.rows<{ claimed_by: string }>(sql`
    select distinct claimed_by from webhook_deliveries
    where status = 'pending' and claimed_until >= ${now.toISOString()}::timestamptz and claimed_by like ${`${hostname()}:%`}`);
  return rows
    .map((row) => row.claimed_by)
    .filter((claimer) => {
      const pid = Number(claimer.slice(claimer.lastIndexOf(':') + 1));
      return pid !== process.pid && !processRuns(pid);
    });
}

/** A message claimed for sending, with the webhook URL it was claimed for. */
export interface Claimed {
  id: string;
  alert_id: string;
  kind: 'events' | 'test';
  event_ids: (string | number)[];
  attempts: number;
  webhook_url: string;
}

const list = (values: readonly string[]) => sql.join(values.map((value) => sql`${value}`), sql`, `);

/**
 * Claims up to `limit` messages due now: for each alert, only its oldest message still pending
 * (so an alert's messages arrive in commit order; a test message jumps the queue), none whose
 * webhook URL is in `exclude` (its endpoint is busy or parked). Each is claimed with a lease
 * (claimed_until) so that senders side by side, or a sender restarted after a crash, never send
 * one twice at once, and a message whose sender died (its lease run out, or a claimer in `dead`)
 * is sent again with the same webhook-id. A message of an alert whose owner is no longer live is
 * never claimed.
 */
export async function claimDue(database: Database, settings: Pick<SenderSettings, 'clock' | 'timeoutMs'>, options: { limit: number; exclude: readonly string[]; dead: readonly string[] }): Promise<Claimed[]> {
  const now = settings.clock.now();
  const lease = new Date(now.getTime() + (settings.timeoutMs ?? WEBHOOK_TIMEOUT_MS) + CLAIM_MARGIN_MS);
  return database.rows<Claimed & Record<string, unknown>>(sql`
    with claimed as (
      update webhook_deliveries d set claimed_until = ${lease.toISOString()}::timestamptz, claimed_by = ${SENDER}
      where d.id in (
        select d2.id from webhook_deliveries d2
        join alerts on alerts.id = d2.alert_id
        where d2.status = 'pending' and d2.next_attempt_at <= ${now.toISOString()}::timestamptz
          and (d2.claimed_until is null or d2.claimed_until < ${now.toISOString()}::timestamptz
               ${options.dead.length === 0 ? sql`` : sql`or d2.claimed_by in (${list(options.dead)})`})
          and alerts.webhook_url is not null and alerts.webhook_disabled_at is null
          -- a paused alert's matches wait for nothing: pausing cancels them; this guards a fill that raced the pause
          and (not alerts.paused or d2.kind = 'test')
          -- a message of an alert whose owner is no longer live is never claimed
          and ${ownerStopReason(now)} is null
          ${options.exclude.length === 0 ? sql`` : sql`and alerts.webhook_url not in (${list(options.exclude)})`}
          -- the alert's oldest pending message, found along (alert_id, seq): written as "no older one
          -- exists", the planner chose to scan the whole outbox for each candidate (4.5 s a claim with 5,000 pending)
          and (d2.kind = 'test' or d2.id = (
            select e.id from webhook_deliveries e
            where e.alert_id = d2.alert_id and e.kind = 'events' and e.status = 'pending'
            order by e.seq limit 1))
        order by d2.next_attempt_at, d2.seq
        limit ${options.limit}
        for update of d2 skip locked)
      returning d.id, d.alert_id, d.kind, d.event_ids, d.attempts, d.next_attempt_at, d.seq)
    select claimed.id, claimed.alert_id, claimed.kind, claimed.event_ids, claimed.attempts, a.webhook_url
    from claimed join alerts a on a.id = claimed.alert_id
    order by claimed.next_attempt_at, claimed.seq`);
}

/** Gives claims back unsent (their endpoint was busy or parked): another claim may take them at once. */
export async function releaseClaims(database: Database, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await database.db.execute(sql`update webhook_deliveries set claimed_until = null, claimed_by = null where id in (${list(ids)}) and claimed_by = ${SENDER}`);
}

/**
 * Sends one claimed message and records the attempt; returns how the attempt ended for the
 * endpoint's circuit (answered: any HTTP status), or undefined when nothing was sent (the alert
 * was deleted, or its webhook removed, since the claim).
 */
export async function sendMessage(database: Database, settings: SenderSettings, message: Claimed): Promise<AttemptEnd | undefined> {
  const [alert] = await database.db.select().from(alerts).where(eq(alerts.id, message.alert_id));
  if (alert === undefined || alert.webhookUrl === null || alert.webhookSecret === null) return undefined;
  const box = await settings.secretBox();
  const events = await eventsByIds(database, message.event_ids.map(Number));
  const body = JSON.stringify({ type: message.kind, alert_id: alert.id, events });
  const now = settings.clock.now();
  const secrets = signingSecrets({
    current: box.open(alert.webhookSecret, alert.id),
    ...(alert.previousWebhookSecret !== null && alert.secretRotatedAt !== null && { previous: { secret: box.open(alert.previousWebhookSecret, alert.id), rotatedAt: alert.secretRotatedAt } }),
    now,
  });
  const headers = { ...signWebhook({ id: message.id, timestamp: now, body, secrets }), 'content-type': 'application/json', 'user-agent': 'DomainIndex-Webhooks/1.0' };
  const result = await sendWebhookRequest(
    { url: alert.webhookUrl, body, headers },
    {
      allowList: settings.allowList,
      ...(settings.timeoutMs !== undefined && { timeoutMs: settings.timeoutMs }),
      ...(settings.connectTimeoutMs !== undefined && { connectTimeoutMs: settings.connectTimeoutMs }),
      ...(settings.responseTimeoutMs !== undefined && { responseTimeoutMs: settings.responseTimeoutMs }),
      ...(settings.resolve !== undefined && { resolve: settings.resolve }),
      ...(settings.ca !== undefined && { ca: settings.ca }),
    },
  );
  await record(database, settings, alert, message, result);
  return result.outcome === 'response' ? 'answered' : result.error === 'timeout' ? 'timeout' : 'failed';
}

/** Records an attempt and decides what comes next: delivered, retried on the schedule, failed, or the webhook disabled. */
async function record(database: Database, settings: SenderSettings, alert: AlertRow, message: Claimed, result: WebhookAttempt): Promise<void> {
  const now = settings.clock.now();
  const attempts = message.attempts + 1;
  const ok = result.outcome === 'response' && result.ok;
  const gone = result.outcome === 'response' && result.status === 410;
  const next = ok || gone ? null : nextAttemptAt({ schedule: settings.schedule, attemptsMade: attempts, failedAt: now, retryAfterSeconds: result.outcome === 'response' ? result.retryAfterSeconds : undefined });
  const failingSince = ok ? null : (alert.failingSince ?? now);
  const disable = gone ? 'the receiver answered 410 Gone' : !ok && shouldDisable(failingSince, now, settings.disableAfterMs) ? `every attempt has failed since ${failingSince!.toISOString()}` : undefined;
  await database.db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values({
      deliveryId: message.id,
      alertId: alert.id,
      at: now,
      httpStatus: result.outcome === 'response' ? result.status : null,
      error: result.outcome === 'failure' ? result.message.slice(0, 300) : null,
      durationMs: result.durationMs,
      response: result.outcome === 'response' ? result.bodySnippet : null,
    });
    await tx
      .update(webhookDeliveries)
      .set(
        ok
          ? { status: 'delivered', attempts, deliveredAt: now, claimedUntil: null, claimedBy: null }
          : gone || disable !== undefined
            ? { status: 'cancelled', cancelledReason: 'webhook turned off', attempts, claimedUntil: null, claimedBy: null }
            : next === null
              ? { status: 'failed', attempts, claimedUntil: null, claimedBy: null }
              : { attempts, nextAttemptAt: next, claimedUntil: null, claimedBy: null },
      )
      .where(eq(webhookDeliveries.id, message.id));
    await tx.update(alerts).set({ failingSince, ...(disable !== undefined && { webhookDisabledAt: now, webhookDisabledReason: disable }) }).where(eq(alerts.id, alert.id));
    if (disable !== undefined) {
      await tx.update(webhookDeliveries).set({ status: 'cancelled', cancelledReason: 'webhook turned off' }).where(and(eq(webhookDeliveries.alertId, alert.id), eq(webhookDeliveries.status, 'pending')));
      if (alert.accountId !== null) await recordAudit(tx, { accountId: alert.accountId, at: now, kind: 'alert_webhook_disabled', detail: `${alert.name} (${alert.id}): ${disable}` });
    }
  });
  settings.onOutcome?.(ok ? 'delivered' : disable !== undefined ? 'disabled' : next === null ? 'failed' : 'retrying');
  if (!ok) {
    settings.logger.warn(
      { alertId: alert.id, deliveryId: message.id, attempt: attempts, status: result.outcome === 'response' ? result.status : undefined, error: result.outcome === 'failure' ? result.error : undefined, detail: result.outcome === 'failure' ? result.detail : undefined, nextAttemptAt: next?.toISOString() },
      disable !== undefined ? 'webhook disabled' : next === null ? 'webhook message failed: its retries are spent' : 'webhook attempt failed; it will be retried',
    );
  }
  if (disable !== undefined) {
    await settings.onDisabled?.(alert, disable).catch((error: unknown) => {
      settings.logger.warn({ alertId: alert.id, err: error }, 'telling the owner their webhook was turned off failed');
    });
  }
}
