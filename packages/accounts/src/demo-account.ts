import type { Database } from '@domain-index/db';
import { systemClock } from '@domain-index/runtime/clock';
import { assignKey, createAccount, issueLink } from './account-store';

/** The account the first embedded start makes, so that a laptop has the dashboard to try. */
export const DEMO_EMAIL = 'demo@example.com';

/**
 * Creates the demo account on the pro plan, gives it the demo key, and returns its one-time link
 * into the dashboard at `dashboardUrl` (the app that shows the pages knows their address).
 */
export async function createDemoAccount(database: Database, demoKeyId: string, dashboardUrl: string): Promise<string> {
  const at = systemClock.now();
  const account = await createAccount(database, { email: DEMO_EMAIL, planId: 'pro', at });
  await assignKey(database, demoKeyId, account.id);
  return setPasswordLink(dashboardUrl, await issueLink(database, account.id, at));
}

/** The address of a one-time set-password link in the dashboard at `dashboardUrl`. */
export function setPasswordLink(dashboardUrl: string, token: string): string {
  return `${dashboardUrl}/set-password/${token}`;
}
