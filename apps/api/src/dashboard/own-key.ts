import type { Request, Response } from 'express';
import { listAccountKeys, type AccountKey } from '@domain-index/accounts/account-keys';
import { signedIn, type DashboardDeps } from './dashboard-deps';
import { html } from '@domain-index/html/html';
import { DASHBOARD, page } from './layout';
import { databaseOf } from '../http/request-deadline';

/**
 * The path's key (`:id`) when it is one of the signed-in account's, as the key pages list it;
 * otherwise the "no such key" page is sent (404) and nothing is returned.
 */
export async function ownKeyOrNotFound(deps: DashboardDeps, req: Request, res: Response, at: Date): Promise<AccountKey | undefined> {
  const me = signedIn(res)!;
  const key = (await listAccountKeys(databaseOf(res, deps), me.id, at)).find((one) => one.id === req.params.id);
  if (key === undefined) {
    res.status(404).send(
      page({
        title: 'No such key',
        email: me.email,
        section: '/keys',
        body: html`<p>This account has no such key. <a href="${DASHBOARD}/keys">Back to your keys</a></p>`,
      }),
    );
  }
  return key;
}
