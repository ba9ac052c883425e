import { WEBHOOK_URL_CREDENTIALS, WEBHOOK_URL_REFUSED, type Alert, type DigestPeriod } from '@domain-index/contract';
import { alerts, and, eq, watchlists, webhookDeliveries, type AlertRow, type Database, type Drizzle } from '@domain-index/db';
import type { Clock } from '@domain-index/runtime/clock';
import { ApiError } from '@domain-index/api-errors/api-error';
import { orQueryFailed } from '@domain-index/api-errors/query-failed';
import type { Logger } from '@domain-index/runtime/logger';
import { checkWebhookTarget, parseWebhookUrl } from '@domain-index/webhooks/safe-request';
import { hasCredentials } from '@domain-index/webhooks/url-credentials';
import { generateWebhookSecret } from '@domain-index/webhooks/signing';
import type { AlertContext } from './alert-deps';
import { parseAlertQuery } from './alert-query';
import { alertObjects, auditAlertAction, countOwnAlerts, findAlert, listOwnAlerts, lockOwnerAlerts, newAlertId, newestEventPosition, type AlertOwner } from './alert-store';
import { decodeDeliveryCursor, readDeliveryLog, type DeliveryAttempt } from './delivery-log';
import { requestConfirmation } from './digest-recipients';
import { cancelQueuedMatches, queueTestMessage } from './outbox';

/** Who acts on alerts: an API key, or a person signed in to the dashboard. */
export interface AlertActor {
  owner: AlertOwner;
  /** The account's address, where a digest goes; null for a key without an account. */
  email: string | null;
  /** The key that acted, for the audit log; null when a signed-in person did. */
  keyId: string | null;
  /** The client address, for the audit log. */
  ip: string | null | undefined;
}

/** An owner's plan, as far as alerts go. */
export interface AlertPlan {
  id: string;
  alertsLimit: number;
}

/** A new alert's fields, as the API's body names them. */
export interface NewAlert {
  name: string;
  query?: string | undefined;
  watchlist_id?: string | null | undefined;
  webhook_url?: string | null | undefined;
  email_digest?: DigestPeriod | null | undefined;
}

/** The fields a change may set; an absent (or undefined) one is left as it is. */
export type AlertChanges = { [K in keyof NewAlert]?: NewAlert[K] | undefined } & { paused?: boolean | undefined };

/**
 * Keeps a new signing secret for whoever shows it (the dashboard's one-time page), in the
 * transaction that makes it: if keeping fails, nothing was made. `secret` is null for an
 * alert created without a webhook, so a form posted twice is still recognised.
 */
export type SecretKeeper = (tx: Pick<Drizzle, 'insert' | 'delete'>, alertId: string, secret: string | null) => Promise<void>;

/** An alert as shown, and its new signing secret when this action made one (shown this once). */
export interface AlertWithSecret {
  alert: Alert;
  secret: string | null;
}

const RESOLVE_ON_SAVE_MS = 10_000;

const limitReached = (plan: AlertPlan) =>
  new ApiError('alert_limit_reached', `your plan (${plan.id}) allows ${plan.alertsLimit} alerts and you have ${plan.alertsLimit}: delete one, or move to a plan with more`);

const notFound = (id: string) => new ApiError('alert_not_found', `no alert ${id.slice(0, 40)} of yours`);

/** When a new digest period ends. */
export function nextDigestDue(period: string, from: Date): Date {
  const ms = period === 'hourly' ? 3_600_000 : 86_400_000;
  return new Date(Math.floor(from.getTime() / ms) * ms + ms);
}

/**
 * Runs a database step that may call a SecretKeeper: a keeper's own failure (a form posted
 * twice) passes through as it is; any other failure is a database fault (orQueryFailed).
 */
async function withKeeper<T>(run: (keep: SecretKeeper | undefined) => Promise<T>, keeper: SecretKeeper | undefined): Promise<T> {
  let keeperFailure: { error: unknown } | undefined;
  const guarded: SecretKeeper | undefined =
    keeper === undefined
      ? undefined
      : async (tx, alertId, secret) => {
          try {
            await keeper(tx, alertId, secret);
          } catch (error) {
            keeperFailure = { error };
            throw error;
          }
        };
  try {
    return await orQueryFailed(() => run(guarded));
  } catch (error) {
    if (keeperFailure !== undefined) throw keeperFailure.error;
    throw error;
  }
}

/**
 * Every action on alerts, for the API's routes and the dashboard's pages alike, so that their
 * rules live in one place: ownership (another owner's alert is as absent as a made-up id), the
 * plan's limit, the filter's validation, the webhook URL's safety check, whether digests can be
 * sent, sealing the signing secret before it is stored, and an audit entry for every change.
 * Refusals are ApiErrors naming the field at fault, with the messages the API answers.
 */
export class AlertActions {
  constructor(
    private readonly deps: { database: Database; clock: Clock; logger?: Logger | undefined },
    private readonly context: AlertContext,
  ) {}

  /** The watchlist id if it is one of the actor's own; another owner's is as unknown as a made-up one. */
  private async ownWatchlist(actor: AlertActor, id: string | null): Promise<string | null> {
    if (id === null) return null;
    const owner = actor.owner.accountId !== undefined ? eq(watchlists.accountId, actor.owner.accountId) : eq(watchlists.keyId, actor.owner.keyId);
    const [found] = await orQueryFailed(() => this.deps.database.db.select({ id: watchlists.id }).from(watchlists).where(and(eq(watchlists.id, id), owner)));
    if (found === undefined) throw new ApiError('invalid_parameter', `watchlist_id: no watchlist ${id.slice(0, 40)} of yours`, 'watchlist_id');
    return found.id;
  }

  /**
   * These actions with their statements on `database`: a request's view of the database, so
   * that they end with the request's deadline. The same actions when it is theirs already.
   */
  on(database: Database): AlertActions {
    return database === this.deps.database ? this : new AlertActions({ ...this.deps, database }, this.context);
  }

  /** Whether an email digest can be chosen (SMTP is configured). */
  get digestsAvailable(): boolean {
    return this.context.digestsAvailable;
  }

  /** The owner's alerts, newest first, with each one's latest message. */
  async list(owner: AlertOwner): Promise<Alert[]> {
    const { database } = this.deps;
    const rows = await orQueryFailed(() => listOwnAlerts(database, owner));
    return orQueryFailed(() => alertObjects(database, rows));
  }

  /** The owner's alert as stored, or undefined. */
  async find(owner: AlertOwner, id: string): Promise<AlertRow | undefined> {
    return orQueryFailed(() => findAlert(this.deps.database, owner, id));
  }

  /** The owner's alert as shown, or 404 alert_not_found. */
  async get(owner: AlertOwner, id: string): Promise<Alert> {
    const row = await this.owned(owner, id);
    return (await orQueryFailed(() => alertObjects(this.deps.database, [row])))[0]!;
  }

  /** An alert's webhook attempts of the last 7 days, newest first; `after` is a page's next cursor. */
  async deliveryLog(owner: AlertOwner, id: string, page: { after?: string | undefined; limit: number }): Promise<{ attempts: DeliveryAttempt[]; nextCursor: string | null }> {
    const row = await this.owned(owner, id);
    const before = page.after === undefined ? undefined : decodeDeliveryCursor(page.after);
    if (before === null) throw new ApiError('invalid_parameter', "after is malformed; pass a page's next_cursor back unchanged", 'after');
    return orQueryFailed(() => readDeliveryLog(this.deps.database, { alertId: row.id, now: this.deps.clock.now(), limit: page.limit, before }));
  }

  /** Creates an alert; its signing secret (with a webhook) is in the answer only. */
  async create(actor: AlertActor, plan: AlertPlan, body: NewAlert, keep?: SecretKeeper): Promise<AlertWithSecret> {
    const { database } = this.deps;
    const query = parseAlertQuery(body.query ?? '');
    const watchlistId = await this.ownWatchlist(actor, body.watchlist_id ?? null);
    // an empty query is every event of the index, as before; leaving it out needs a watchlist
    if (body.query === undefined && watchlistId === null) {
      throw new ApiError('invalid_parameter', 'query: is required (a filter such as type=listing.added&tld=ai, or empty for every event), unless the alert has a watchlist_id', 'query');
    }
    const webhookUrl = body.webhook_url === null || body.webhook_url === undefined ? null : await this.checkedWebhookUrl(actor, body.webhook_url);
    const digest = body.email_digest ?? null;
    this.checkDigest(digest, actor.email);
    if (webhookUrl === null && digest === null) {
      throw new ApiError('invalid_parameter', 'webhook_url: an alert needs somewhere to deliver: a webhook_url, an email_digest, or both', 'webhook_url');
    }
    const id = newAlertId();
    const secret = webhookUrl === null ? null : generateWebhookSecret();
    const box = await orQueryFailed(() => this.context.secretBox(this.deps.database));
    const now = this.deps.clock.now();
    const position = await orQueryFailed(() => newestEventPosition(database));
    const made = await withKeeper(
      (keeper) =>
        database.db.transaction(async (tx) => {
          // the count and the insert under one lock per owner: creates side by side cannot both pass the limit
          await lockOwnerAlerts(tx, actor.owner);
          if ((await countOwnAlerts(tx, actor.owner)) >= plan.alertsLimit) return false;
          await tx.insert(alerts).values({
            id,
            ...(actor.owner.accountId !== undefined ? { accountId: actor.owner.accountId } : { keyId: actor.owner.keyId }),
            name: body.name,
            query: query.params,
            queryString: query.queryString,
            watchlistId,
            webhookUrl,
            webhookSecret: secret === null ? null : box.seal(secret, id),
            emailDigest: digest,
            emailTo: digest === null ? null : actor.email,
            digestDueAt: digest === null ? null : nextDigestDue(digest, now),
            webhookPosition: position,
            digestPosition: position,
            createdAt: now,
            updatedAt: now,
          });
          // a digest goes to a confirmed address only: setting one asks for a confirmation mail
          if (digest !== null && actor.email !== null) await requestConfirmation(tx, actor.email, now);
          await auditAlertAction(tx, actor.owner, { keyId: actor.keyId, at: now, ip: actor.ip, kind: 'alert_created', detail: `${body.name} (${id})` });
          await keeper?.(tx, id, secret);
          return true;
        }),
      keep,
    );
    if (!made) throw limitReached(plan);
    return { alert: await this.get(actor.owner, id), secret };
  }

  /**
   * Changes an alert's fields. Setting the webhook URL (again) turns a disabled webhook back on,
   * and a first URL gets a secret (in the answer only); removing it or pointing it elsewhere
   * drops the messages still queued for the old one.
   */
  async update(actor: AlertActor, id: string, body: AlertChanges, keep?: SecretKeeper): Promise<AlertWithSecret> {
    const { database } = this.deps;
    const row = await this.owned(actor.owner, id);
    const now = this.deps.clock.now();
    const changes: Partial<typeof alerts.$inferInsert> = { updatedAt: now };
    if (body.name !== undefined) changes.name = body.name;
    if (body.query !== undefined) {
      const query = parseAlertQuery(body.query);
      changes.query = query.params;
      changes.queryString = query.queryString;
    }
    if (body.watchlist_id !== undefined) changes.watchlistId = await this.ownWatchlist(actor, body.watchlist_id);
    if (body.paused !== undefined) Object.assign(changes, { paused: body.paused, pausedReason: null });
    if (body.webhook_url !== undefined) {
      if (body.webhook_url === null) {
        Object.assign(changes, { webhookUrl: null, webhookSecret: null, previousWebhookSecret: null, secretRotatedAt: null, webhookDisabledAt: null, webhookDisabledReason: null, failingSince: null });
      } else {
        Object.assign(changes, { webhookUrl: await this.checkedWebhookUrl(actor, body.webhook_url), webhookDisabledAt: null, webhookDisabledReason: null, failingSince: null });
      }
    }
    if (body.email_digest !== undefined) {
      this.checkDigest(body.email_digest, actor.email);
      changes.emailDigest = body.email_digest;
      changes.emailTo = body.email_digest === null ? null : actor.email;
      changes.digestDueAt = body.email_digest === null ? null : nextDigestDue(body.email_digest, now);
    }
    const webhookAfter = changes.webhookUrl !== undefined ? changes.webhookUrl : row.webhookUrl;
    const digestAfter = changes.emailDigest !== undefined ? changes.emailDigest : row.emailDigest;
    if (webhookAfter === null && digestAfter === null) {
      throw new ApiError('invalid_parameter', 'webhook_url: an alert needs somewhere to deliver: keep a webhook_url or an email_digest', 'webhook_url');
    }
    let secret: string | null = null;
    if (typeof changes.webhookUrl === 'string' && row.webhookSecret === null) {
      secret = generateWebhookSecret();
      changes.webhookSecret = (await orQueryFailed(() => this.context.secretBox(this.deps.database))).seal(secret, row.id);
    }
    const fields = Object.keys(body).filter((field) => body[field as keyof AlertChanges] !== undefined);
    await withKeeper(
      (keeper) =>
        database.db.transaction(async (tx) => {
          await tx.update(alerts).set(changes).where(eq(alerts.id, row.id));
          // a webhook switched off or pointed elsewhere drops the messages still queued for the old one
          if (body.webhook_url !== undefined && body.webhook_url !== row.webhookUrl) {
            const cancelledReason = body.webhook_url === null ? 'webhook removed' : 'webhook changed';
            await tx.update(webhookDeliveries).set({ status: 'cancelled', cancelledReason }).where(and(eq(webhookDeliveries.alertId, row.id), eq(webhookDeliveries.status, 'pending')));
          } else if (body.paused === true && !row.paused) {
            // nothing is delivered for a paused alert and its matches are not sent later: that
            // includes those queued before the pause (a test message still goes)
            await cancelQueuedMatches(tx, row.id, 'alert paused');
          }
          // setting a digest (again) asks for a confirmation mail unless the address is confirmed:
          // the one way for an address that unsubscribed to get a new link
          if (typeof changes.emailDigest === 'string' && changes.emailTo != null) await requestConfirmation(tx, changes.emailTo, now);
          await auditAlertAction(tx, actor.owner, { keyId: actor.keyId, at: now, ip: actor.ip, kind: 'alert_changed', detail: `${row.name} (${row.id}): ${fields.join(', ')}` });
          if (secret !== null) await keeper?.(tx, row.id, secret);
        }),
      keep,
    );
    return { alert: await this.get(actor.owner, row.id), secret };
  }

  /** Deletes an alert and its queued messages; returns it as it was. */
  async delete(actor: AlertActor, id: string): Promise<AlertRow> {
    const { database } = this.deps;
    const row = await this.owned(actor.owner, id);
    await orQueryFailed(() =>
      database.db.transaction(async (tx) => {
        await tx.delete(alerts).where(eq(alerts.id, row.id));
        await auditAlertAction(tx, actor.owner, { keyId: actor.keyId, at: this.deps.clock.now(), ip: actor.ip, kind: 'alert_deleted', detail: `${row.name} (${row.id})` });
      }),
    );
    return row;
  }

  /** A new signing secret (in the answer only); the old one also signs for 24 hours. */
  async rotateSecret(actor: AlertActor, id: string, keep?: SecretKeeper): Promise<AlertWithSecret> {
    const { database } = this.deps;
    const row = await this.owned(actor.owner, id);
    if (row.webhookUrl === null || row.webhookSecret === null) {
      throw new ApiError('invalid_parameter', 'the alert has no webhook, so no signing secret to rotate; set a webhook_url first', 'id');
    }
    const box = await orQueryFailed(() => this.context.secretBox(this.deps.database));
    const secret = generateWebhookSecret();
    const now = this.deps.clock.now();
    await withKeeper(
      (keeper) =>
        database.db.transaction(async (tx) => {
          await tx
            .update(alerts)
            .set({ webhookSecret: box.seal(secret, row.id), previousWebhookSecret: row.webhookSecret, secretRotatedAt: now, updatedAt: now })
            .where(eq(alerts.id, row.id));
          await auditAlertAction(tx, actor.owner, { keyId: actor.keyId, at: now, ip: actor.ip, kind: 'alert_secret_rotated', detail: `${row.name} (${row.id})` });
          await keeper?.(tx, row.id, secret);
        }),
      keep,
    );
    return { alert: await this.get(actor.owner, row.id), secret };
  }

  /**
   * Asks again for a confirmation mail to the address of the alert's digest (one that was lost,
   * expired, or an address that unsubscribed and wants digests again); nothing when it is
   * confirmed. The digest worker mails it.
   */
  async resendConfirmation(actor: AlertActor, id: string): Promise<AlertRow> {
    const row = await this.owned(actor.owner, id);
    if (row.emailDigest === null || row.emailTo === null) throw new ApiError('invalid_parameter', 'the alert has no email digest, so no address to confirm; set email_digest first', 'id');
    const now = this.deps.clock.now();
    const address = row.emailTo;
    await orQueryFailed(() => requestConfirmation(this.deps.database.db, address, now));
    return row;
  }

  /** Queues a `test` message now; returns its id (the webhook-id). */
  async sendTest(actor: AlertActor, id: string): Promise<{ alert: AlertRow; deliveryId: string }> {
    const { database } = this.deps;
    const row = await this.owned(actor.owner, id);
    if (row.webhookUrl === null) throw new ApiError('invalid_parameter', 'the alert has no webhook to test; set a webhook_url first', 'id');
    const now = this.deps.clock.now();
    const deliveryId = await orQueryFailed(() => queueTestMessage(database, row.id, now));
    await orQueryFailed(() => auditAlertAction(database.db, actor.owner, { keyId: actor.keyId, at: now, ip: actor.ip, kind: 'alert_test_sent', detail: `${row.name} (${row.id}): ${deliveryId}` }));
    return { alert: row, deliveryId };
  }

  /** Queues one of the alert's messages again, with its webhook-id; 404 delivery_not_found for another's. */
  async resend(actor: AlertActor, id: string, deliveryId: string): Promise<{ alert: AlertRow; delivery: { id: string; kind: 'events' | 'test' } }> {
    const { database } = this.deps;
    const row = await this.owned(actor.owner, id);
    const now = this.deps.clock.now();
    const [delivery] = await orQueryFailed(() =>
      database.db
        .update(webhookDeliveries)
        .set({ status: 'pending', nextAttemptAt: now, claimedUntil: null })
        .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.alertId, row.id)))
        .returning({ id: webhookDeliveries.id, kind: webhookDeliveries.kind }),
    );
    if (delivery === undefined) throw new ApiError('delivery_not_found', `no message ${deliveryId.slice(0, 40)} of alert ${row.id}`);
    await orQueryFailed(() => auditAlertAction(database.db, actor.owner, { keyId: actor.keyId, at: now, ip: actor.ip, kind: 'alert_message_resent', detail: `${row.name} (${row.id}): ${delivery.id}` }));
    return { alert: row, delivery: { id: delivery.id, kind: delivery.kind as 'events' | 'test' } };
  }

  private async owned(owner: AlertOwner, id: string): Promise<AlertRow> {
    const row = await this.find(owner, id);
    if (row === undefined) throw notFound(id);
    return row;
  }

  /**
   * Checks a webhook URL as it would be sent to (https, an address the rules allow, no user name
   * or password in it), or refuses it naming `webhook_url`: a refused target with the one
   * WEBHOOK_URL_REFUSED, its reason in the operator's log only.
   */
  private async checkedWebhookUrl(actor: AlertActor, url: string): Promise<string> {
    const parsed = parseWebhookUrl(url);
    // before any lookup: the fix is the customer's whatever the host is
    if (parsed.ok && hasCredentials(parsed.url)) throw new ApiError('invalid_parameter', WEBHOOK_URL_CREDENTIALS, 'webhook_url');
    const target = await checkWebhookTarget(url, {
      allowList: this.context.allowList,
      // a resolver that hangs must not hold the request: the answer then says resolving took too long
      deadline: performance.now() + RESOLVE_ON_SAVE_MS,
      ...(this.context.resolve !== undefined && { resolve: this.context.resolve }),
    });
    if (target.ok) return target.url.toString();
    if (target.message === WEBHOOK_URL_REFUSED) {
      this.deps.logger?.info({ ...actor.owner, keyId: actor.keyId ?? undefined, error: target.error, detail: target.detail }, 'a webhook_url was refused');
      throw new ApiError('invalid_parameter', WEBHOOK_URL_REFUSED, 'webhook_url');
    }
    throw new ApiError('invalid_parameter', `webhook_url: ${target.message}`, 'webhook_url');
  }

  private checkDigest(digest: string | null | undefined, email: string | null): void {
    if (digest === null || digest === undefined) return;
    if (!this.context.digestsAvailable) throw new ApiError('invalid_parameter', 'email_digest: this server sends no email (its operator has not configured SMTP); use a webhook', 'email_digest');
    if (email === null) throw new ApiError('invalid_parameter', 'email_digest: the key has no account, so there is no address to mail; create the alert with a key of your dashboard account', 'email_digest');
  }
}
