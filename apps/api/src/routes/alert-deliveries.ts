import type { Contract } from '@domain-index/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Response } from 'express';
import type { RouteDeps } from '../app';
import type { AlertActions } from '@domain-index/alerts/alert-actions';
import { keyActor } from './alerts';
import { databaseOf } from '../http/request-deadline';

type Handlers = Pick<{ [K in keyof Contract]: AppRouteImplementation<Contract[K]> }, 'testAlert' | 'listDeliveries' | 'resendDelivery'>;

/** Sending a test now, the webhook attempts of the last 7 days, and sending a message again. */
export function alertDeliveryRoutes(deps: RouteDeps, actions: AlertActions): Handlers {
  /** The actions on this request's view of the database, bounded by its deadline. */
  const acting = (res: Response) => actions.on(databaseOf(res, deps));
  return {
    testAlert: async ({ params, req, res }) => {
      const { alert, deliveryId } = await acting(res).sendTest(await keyActor(deps, req, res), params.id);
      return { status: 202, body: { object: 'delivery', id: deliveryId, alert_id: alert.id, kind: 'test', status: 'pending' } };
    },

    listDeliveries: async ({ params, query, req, res }) => {
      const { owner } = await keyActor(deps, req, res);
      const { attempts, nextCursor } = await acting(res).deliveryLog(owner, params.id, { after: query.after, limit: query.limit });
      return {
        status: 200,
        body: {
          object: 'list',
          data: attempts.map((attempt) => ({
            object: 'delivery_attempt' as const,
            delivery_id: attempt.deliveryId,
            at: attempt.at.toISOString(),
            kind: attempt.kind,
            event_ids: attempt.eventIds.map((eventId) => `evt_${eventId}`),
            http_status: attempt.httpStatus,
            error: attempt.error,
            duration_ms: attempt.durationMs,
            response: attempt.response,
          })),
          pagination: { next_cursor: nextCursor, has_more: nextCursor !== null },
        },
      };
    },

    resendDelivery: async ({ params, req, res }) => {
      const { alert, delivery } = await acting(res).resend(await keyActor(deps, req, res), params.id, params.deliveryId);
      return { status: 202, body: { object: 'delivery', id: delivery.id, alert_id: alert.id, kind: delivery.kind, status: 'pending' } };
    },
  };
}
