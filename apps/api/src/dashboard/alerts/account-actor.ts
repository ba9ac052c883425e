import { findPlan } from '@domain-index/accounts/plan-store';
import type { Request, Response } from 'express';
import type { AlertActor, AlertPlan } from '@domain-index/alerts/alert-actions';
import type { WatchPlan } from '@domain-index/names/watchlist-actions';
import { clientAddress } from '../../http/client-address';
import { signedIn } from '../dashboard-deps';
import type { Database } from '@domain-index/db';

/**
 * The signed-in account acting on its alerts: it owns them (as every key of the account does
 * through the API), a digest goes to its email, and the audit log names no key, a person acted.
 */
export function accountActor(req: Request, res: Response): AlertActor {
  const me = signedIn(res)!;
  return { owner: { accountId: me.id }, email: me.email, keyId: null, ip: clientAddress(req) };
}

/** The account's plan as far as alerts go; a plan missing from the table allows none (nothing is guessed). */
export async function accountAlertPlan(database: Database, planId: string): Promise<AlertPlan> {
  const plan = await findPlan(database, planId);
  return plan === undefined ? { id: planId, alertsLimit: 0 } : { id: plan.id, alertsLimit: plan.alertsLimit };
}

/** The account's plan as far as watched names go; a plan missing from the table allows none. */
export async function accountWatchPlan(database: Database, planId: string): Promise<WatchPlan> {
  const plan = await findPlan(database, planId);
  return plan === undefined ? { id: planId, watchLimit: 0 } : { id: plan.id, watchLimit: plan.watchLimit };
}
