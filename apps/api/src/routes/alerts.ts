import type { Contract } from '@domain-index/contract';
import { alerts, and, eq, webhookDeliveries } from '@domain-index/db';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Response } from 'express';
import type { RouteDeps } from '../app';
import type { AlertContext } from '../alerts/alert-deps';
import { parseAlertQuery } from '../alerts/alert-query';
import { alertObjects, auditAlertAction, countOwnAlerts, findAlert, listOwnAlerts, newAlertId, newestEventPosition, ownerOfKey, type AlertOwner } from '../alerts/alert-store';
import type { Caller } from '../auth/authenticate';
import { ApiError } from '../http/api-error';
import { orQueryFailed } from '../http/query-failed';
import { checkWebhookTarget } from '../webhooks/safe-request';
import { generateWebhookSecret } from '../webhooks/signing';

type Handlers = Pick<
  { [K in keyof Contract]: AppRouteImplementation<Contract[K]> },
  'createAlert' | 'listAlerts' | 'getAlert' | 'updateAlert' | 'deleteAlert' | 'rotateAlertSecret'
>;

const notFound = (id: string) => new ApiError('alert_not_found', `no alert ${id.slice(0, 40)} of yours`);

/** The caller's identity as authentication left it. */
function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}

const RESOLVE_ON_SAVE_MS = 10_000;

/** Checks a webhook URL as it would be sent to (https, an address the rules allow), or refuses it naming `webhook_url`. */
async function checkedWebhookUrl(context: AlertContext, url: string): Promise<string> {
  const target = await checkWebhookTarget(url, {
    allowList: context.allowList,
    // a resolver that hangs must not hold the request: the answer then says resolving took too long
    deadline: performance.now() + RESOLVE_ON_SAVE_MS,
    ...(context.resolve !== undefined && { resolve: context.resolve }),
  });
  if (!target.ok) throw new ApiError('invalid_parameter', `webhook_url: ${target.message}`, 'webhook_url');
  return target.url.toString();
}

function checkedDigest(context: AlertContext, digest: string | null | undefined, email: string | null): void {
  if (digest === null || digest === undefined) return;
  if (!context.digestsAvailable) throw new ApiError('invalid_parameter', 'email_digest: this server sends no email (its operator has not configured SMTP); use a webhook', 'email_digest');
  if (email === null) throw new ApiError('invalid_parameter', 'email_digest: the key has no account, so there is no address to mail; create the alert with a key of your dashboard account', 'email_digest');
}

/** When a new digest period ends. */
export function nextDigestDue(period: string, from: Date): Date {
  const ms = period === 'hourly' ? 3_600_000 : 86_400_000;
  return new Date(Math.floor(from.getTime() / ms) * ms + ms);
}

/**
 * The alert endpoints: an alert belongs to the key's account (or the key, without one); another
 * owner's alert answers 404 exactly as a made-up id does. Secrets are generated here, sealed
 * before they are stored, and shown in the creating (or rotating) answer only.
 */
export function alertRoutes(deps: RouteDeps, context: AlertContext): Handlers {
  const { database } = deps;
  const owned = async (res: Response): Promise<{ owner: AlertOwner; email: string | null }> => orQueryFailed(() => ownerOfKey(database, callerOf(res).keyId));
  const withLatest = async (id: string) => {
    const [row] = await database.db.select().from(alerts).where(eq(alerts.id, id));
    return (await alertObjects(database, [row!]))[0]!;
  };
  return {
    createAlert: async ({ body, req, res }) => {
      const { owner, email } = await owned(res);
      const query = parseAlertQuery(body.query);
      const webhookUrl = body.webhook_url === null || body.webhook_url === undefined ? null : await checkedWebhookUrl(context, body.webhook_url);
      checkedDigest(context, body.email_digest, email);
      if (webhookUrl === null && (body.email_digest === null || body.email_digest === undefined)) {
        throw new ApiError('invalid_parameter', 'webhook_url: an alert needs somewhere to deliver: a webhook_url, an email_digest, or both', 'webhook_url');
      }
      const plan = callerOf(res).plan;
      if ((await orQueryFailed(() => countOwnAlerts(database, owner))) >= plan.alertsLimit) {
        throw new ApiError('alert_limit_reached', `your plan (${plan.id}) allows ${plan.alertsLimit} alerts and you have ${plan.alertsLimit}: delete one, or move to a plan with more`);
      }
      const id = newAlertId();
      const secret = webhookUrl === null ? null : generateWebhookSecret();
      const box = await orQueryFailed(() => context.secretBox());
      const now = deps.clock.now();
      const position = await orQueryFailed(() => newestEventPosition(database));
      await orQueryFailed(() =>
        database.db.insert(alerts).values({
          id,
          ...(owner.accountId !== undefined ? { accountId: owner.accountId } : { keyId: owner.keyId }),
          name: body.name,
          query: query.params,
          queryString: query.queryString,
          webhookUrl,
          webhookSecret: secret === null ? null : box.seal(secret, id),
          emailDigest: body.email_digest ?? null,
          emailTo: body.email_digest === null || body.email_digest === undefined ? null : email,
          digestDueAt: body.email_digest === null || body.email_digest === undefined ? null : nextDigestDue(body.email_digest, now),
          webhookPosition: position,
          digestPosition: position,
          createdAt: now,
          updatedAt: now,
        }),
      );
      await orQueryFailed(() => auditAlertAction(database, owner, { keyId: callerOf(res).keyId, at: now, ip: req.ip, kind: 'alert_created', detail: `${body.name} (${id})` }));
      const created = await orQueryFailed(() => withLatest(id));
      return { status: 201, body: { ...created, webhook_secret: secret } };
    },

    listAlerts: async ({ res }) => {
      const { owner } = await owned(res);
      const rows = await orQueryFailed(() => listOwnAlerts(database, owner));
      return { status: 200, body: { object: 'list', data: await orQueryFailed(() => alertObjects(database, rows)) } };
    },

    getAlert: async ({ params, res }) => {
      const { owner } = await owned(res);
      const row = await orQueryFailed(() => findAlert(database, owner, params.id));
      if (row === undefined) throw notFound(params.id);
      return { status: 200, body: (await orQueryFailed(() => alertObjects(database, [row])))[0]! };
    },

    updateAlert: async ({ params, body, req, res }) => {
      const { owner, email } = await owned(res);
      const row = await orQueryFailed(() => findAlert(database, owner, params.id));
      if (row === undefined) throw notFound(params.id);
      const now = deps.clock.now();
      const changes: Partial<typeof alerts.$inferInsert> = { updatedAt: now };
      if (body.name !== undefined) changes.name = body.name;
      if (body.query !== undefined) {
        const query = parseAlertQuery(body.query);
        changes.query = query.params;
        changes.queryString = query.queryString;
      }
      if (body.paused !== undefined) changes.paused = body.paused;
      if (body.webhook_url !== undefined) {
        if (body.webhook_url === null) {
          Object.assign(changes, { webhookUrl: null, webhookSecret: null, previousWebhookSecret: null, secretRotatedAt: null, webhookDisabledAt: null, webhookDisabledReason: null, failingSince: null });
        } else {
          // setting the URL (again) turns a disabled webhook back on; a first URL gets a secret
          Object.assign(changes, { webhookUrl: await checkedWebhookUrl(context, body.webhook_url), webhookDisabledAt: null, webhookDisabledReason: null, failingSince: null });
        }
      }
      if (body.email_digest !== undefined) {
        checkedDigest(context, body.email_digest, email);
        changes.emailDigest = body.email_digest;
        changes.emailTo = body.email_digest === null ? null : email;
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
        changes.webhookSecret = (await orQueryFailed(() => context.secretBox())).seal(secret, row.id);
      }
      await orQueryFailed(() =>
        database.db.transaction(async (tx) => {
          await tx.update(alerts).set(changes).where(eq(alerts.id, row.id));
          // a webhook switched off or pointed elsewhere drops the messages still queued for the old one
          if (body.webhook_url !== undefined && body.webhook_url !== row.webhookUrl) {
            await tx.update(webhookDeliveries).set({ status: 'cancelled' }).where(and(eq(webhookDeliveries.alertId, row.id), eq(webhookDeliveries.status, 'pending')));
          }
        }),
      );
      await orQueryFailed(() => auditAlertAction(database, owner, { keyId: callerOf(res).keyId, at: now, ip: req.ip, kind: 'alert_changed', detail: `${row.name} (${row.id}): ${Object.keys(body).join(', ')}` }));
      const updated = await orQueryFailed(() => withLatest(row.id));
      // a first webhook URL gets its secret here, shown this once
      return { status: 200, body: { ...updated, webhook_secret: secret } };
    },

    deleteAlert: async ({ params, req, res }) => {
      const { owner } = await owned(res);
      const row = await orQueryFailed(() => findAlert(database, owner, params.id));
      if (row === undefined) throw notFound(params.id);
      await orQueryFailed(() => database.db.delete(alerts).where(eq(alerts.id, row.id)));
      await orQueryFailed(() => auditAlertAction(database, owner, { keyId: callerOf(res).keyId, at: deps.clock.now(), ip: req.ip, kind: 'alert_deleted', detail: `${row.name} (${row.id})` }));
      return { status: 200, body: { object: 'alert', id: row.id, deleted: true } };
    },

    rotateAlertSecret: async ({ params, req, res }) => {
      const { owner } = await owned(res);
      const row = await orQueryFailed(() => findAlert(database, owner, params.id));
      if (row === undefined) throw notFound(params.id);
      if (row.webhookUrl === null || row.webhookSecret === null) {
        throw new ApiError('invalid_parameter', 'the alert has no webhook, so no signing secret to rotate; set a webhook_url first', 'id');
      }
      const box = await orQueryFailed(() => context.secretBox());
      const secret = generateWebhookSecret();
      const now = deps.clock.now();
      await orQueryFailed(() =>
        database.db
          .update(alerts)
          .set({ webhookSecret: box.seal(secret, row.id), previousWebhookSecret: row.webhookSecret, secretRotatedAt: now, updatedAt: now })
          .where(eq(alerts.id, row.id)),
      );
      await orQueryFailed(() => auditAlertAction(database, owner, { keyId: callerOf(res).keyId, at: now, ip: req.ip, kind: 'alert_secret_rotated', detail: `${row.name} (${row.id})` }));
      const rotated = await orQueryFailed(() => withLatest(row.id));
      return { status: 200, body: { ...rotated, webhook_secret: secret } };
    },
  };
}
