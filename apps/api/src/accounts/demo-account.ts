import type { Database } from '@domain-index/db';
import { systemClock } from '../clock';
import { DASHBOARD } from '../dashboard/layout';
import { assignKey, createAccount, issueLink } from './account-store';

/** The account the first embedded start makes, so that a laptop has the dashboard to try. */
export const DEMO_EMAIL = 'demo@example.com';

/** Creates the demo account on the pro plan, gives it the demo key, and returns its one-time link. */
export async function createDemoAccount(database: Database, demoKeyId: string, publicUrl: string): Promise<string> {
  const at = systemClock.now();
  const account = await createAccount(database, { email: DEMO_EMAIL, planId: 'pro', at });
  await assignKey(database, demoKeyId, account.id);
  return setPasswordLink(publicUrl, await issueLink(database, account.id, at));
}

/** The address of a one-time set-password link. */
export function setPasswordLink(publicUrl: string, token: string): string {
  return `${publicUrl}${DASHBOARD}/set-password/${token}`;
}
