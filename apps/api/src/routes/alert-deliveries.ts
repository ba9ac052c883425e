import type { Contract } from '@domain-index/contract';
import { and, desc, eq, gte, lt, webhookAttempts, webhookDeliveries } from '@domain-index/db';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Response } from 'express';
import type { RouteDeps } from '../app';
import { auditAlertAction, findAlert, ownerOfKey } from '../alerts/alert-store';
import { queueTestMessage } from '../alerts/outbox';
import type { Caller } from '../auth/authenticate';
import { ApiError } from '../http/api-error';
import { orQueryFailed } from '../http/query-failed';

type Handlers = Pick<{ [K in keyof Contract]: AppRouteImplementation<Contract[K]> }, 'testAlert' | 'listDeliveries' | 'resendDelivery'>;

/** How long the attempts of an alert are kept and listed. */
export const DELIVERY_LOG_DAYS = 7;

const notFound = (id: string) => new ApiError('alert_not_found', `no alert ${id.slice(0, 40)} of yours`);

/** A page of attempts ends at an attempt id: the cursor is that id, in base64url JSON. */
function decodeCursor(cursor: string): number | null {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { before?: unknown };
    return typeof value.before === 'number' && Number.isSafeInteger(value.before) && value.before > 0 ? value.before : null;
  } catch {
    return null;
  }
}
const encodeCursor = (before: number) => Buffer.from(JSON.stringify({ before })).toString('base64url');

/** Sending a test now, the webhook attempts of the last 7 days, and sending a message again. */
export function alertDeliveryRoutes(deps: RouteDeps): Handlers {
  const { database } = deps;
  const ownAlert = async (res: Response, id: string) => {
    const { owner } = await orQueryFailed(() => ownerOfKey(database, (res.locals.caller as Caller).keyId));
    const row = await orQueryFailed(() => findAlert(database, owner, id));
    if (row === undefined) throw notFound(id);
    return Object.assign(row, { owner });
  };
  return {
    testAlert: async ({ params, req, res }) => {
      const alert = await ownAlert(res, params.id);
      if (alert.webhookUrl === null) throw new ApiError('invalid_parameter', 'the alert has no webhook to test; set a webhook_url first', 'id');
      const id = await orQueryFailed(() => queueTestMessage(database, alert.id, deps.clock.now()));
      await orQueryFailed(() => auditAlertAction(database, alert.owner, { keyId: (res.locals.caller as Caller).keyId, at: deps.clock.now(), ip: req.ip, kind: 'alert_test_sent', detail: `${alert.name} (${alert.id}): ${id}` }));
      return { status: 202, body: { object: 'delivery', id, alert_id: alert.id, kind: 'test', status: 'pending' } };
    },

    listDeliveries: async ({ params, query, res }) => {
      const alert = await ownAlert(res, params.id);
      const before = query.after === undefined ? undefined : decodeCursor(query.after);
      if (before === null) throw new ApiError('invalid_parameter', "after is malformed; pass a page's next_cursor back unchanged", 'after');
      const since = new Date(deps.clock.now().getTime() - DELIVERY_LOG_DAYS * 86_400_000);
      const rows = await orQueryFailed(() =>
        database.db
          .select({
            id: webhookAttempts.id,
            deliveryId: webhookAttempts.deliveryId,
            at: webhookAttempts.at,
            kind: webhookDeliveries.kind,
            eventIds: webhookDeliveries.eventIds,
            httpStatus: webhookAttempts.httpStatus,
            error: webhookAttempts.error,
            durationMs: webhookAttempts.durationMs,
            response: webhookAttempts.response,
          })
          .from(webhookAttempts)
          .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
          .where(and(eq(webhookAttempts.alertId, alert.id), gte(webhookAttempts.at, since), before === undefined ? undefined : lt(webhookAttempts.id, before)))
          .orderBy(desc(webhookAttempts.id))
          .limit(query.limit + 1),
      );
      const page = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      return {
        status: 200,
        body: {
          object: 'list',
          data: page.map((row) => ({
            object: 'delivery_attempt' as const,
            delivery_id: row.deliveryId,
            at: row.at.toISOString(),
            kind: row.kind as 'events' | 'test',
            event_ids: row.eventIds.map((eventId) => `evt_${eventId}`),
            http_status: row.httpStatus,
            error: row.error,
            duration_ms: row.durationMs,
            response: row.response,
          })),
          pagination: { next_cursor: hasMore ? encodeCursor(page.at(-1)!.id) : null, has_more: hasMore },
        },
      };
    },

    resendDelivery: async ({ params, req, res }) => {
      const alert = await ownAlert(res, params.id);
      const now = deps.clock.now();
      const [delivery] = await orQueryFailed(() =>
        database.db
          .update(webhookDeliveries)
          .set({ status: 'pending', nextAttemptAt: now, claimedUntil: null })
          .where(and(eq(webhookDeliveries.id, params.deliveryId), eq(webhookDeliveries.alertId, alert.id)))
          .returning({ id: webhookDeliveries.id, kind: webhookDeliveries.kind }),
      );
      if (delivery === undefined) throw new ApiError('delivery_not_found', `no message ${params.deliveryId.slice(0, 40)} of alert ${alert.id}`);
      await orQueryFailed(() => auditAlertAction(database, alert.owner, { keyId: (res.locals.caller as Caller).keyId, at: now, ip: req.ip, kind: 'alert_message_resent', detail: `${alert.name} (${alert.id}): ${delivery.id}` }));
      return { status: 202, body: { object: 'delivery', id: delivery.id, alert_id: alert.id, kind: delivery.kind as 'events' | 'test', status: 'pending' } };
    },
  };
}
