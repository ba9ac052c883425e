import type { Contract } from '@domain-index/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Request, Response } from 'express';
import type { RouteDeps } from '../app';
import type { AlertActions, AlertActor } from '@domain-index/alerts/alert-actions';
import { ownerOfKey } from '@domain-index/alerts/alert-store';
import type { Caller } from '../auth/authenticate';
import { orQueryFailed } from '@domain-index/api-errors/query-failed';
import { databaseOf } from '../http/request-deadline';

type Handlers = Pick<
  { [K in keyof Contract]: AppRouteImplementation<Contract[K]> },
  'createAlert' | 'listAlerts' | 'getAlert' | 'updateAlert' | 'deleteAlert' | 'rotateAlertSecret'
>;

/** The caller's identity as authentication left it. */
export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}

/** The key acting on alerts: the alerts it sees are its account's, or its own without one. */
export async function keyActor(deps: Pick<RouteDeps, 'database'>, req: Pick<Request, 'ip'>, res: Response): Promise<AlertActor> {
  const { keyId } = callerOf(res);
  const { owner, email } = await orQueryFailed(() => ownerOfKey(databaseOf(res, deps), keyId));
  return { owner, email, keyId, ip: req.ip };
}

/**
 * The alert endpoints, over the rules of AlertActions: an alert belongs to the key's account
 * (or the key, without one); another owner's alert answers 404 exactly as a made-up id does.
 * A signing secret is in the creating (or rotating) answer only.
 */
export function alertRoutes(deps: RouteDeps, actions: AlertActions): Handlers {
  /** The actions on this request's view of the database, bounded by its deadline. */
  const acting = (res: Response) => actions.on(databaseOf(res, deps));
  return {
    createAlert: async ({ body, req, res }) => {
      const { alert, secret } = await acting(res).create(await keyActor(deps, req, res), callerOf(res).plan, body);
      return { status: 201, body: { ...alert, webhook_secret: secret } };
    },

    listAlerts: async ({ req, res }) => {
      const { owner } = await keyActor(deps, req, res);
      return { status: 200, body: { object: 'list', data: await acting(res).list(owner) } };
    },

    getAlert: async ({ params, req, res }) => {
      const { owner } = await keyActor(deps, req, res);
      return { status: 200, body: await acting(res).get(owner, params.id) };
    },

    updateAlert: async ({ params, body, req, res }) => {
      const { alert, secret } = await acting(res).update(await keyActor(deps, req, res), params.id, body);
      // a first webhook URL gets its secret here, shown this once
      return { status: 200, body: { ...alert, webhook_secret: secret } };
    },

    deleteAlert: async ({ params, req, res }) => {
      const deleted = await acting(res).delete(await keyActor(deps, req, res), params.id);
      return { status: 200, body: { object: 'alert', id: deleted.id, deleted: true } };
    },

    rotateAlertSecret: async ({ params, req, res }) => {
      const { alert, secret } = await acting(res).rotateSecret(await keyActor(deps, req, res), params.id);
      return { status: 200, body: { ...alert, webhook_secret: secret } };
    },
  };
}
