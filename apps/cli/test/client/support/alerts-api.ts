// The real API in this process, on an in-memory PGlite, with the alerts' delivery as the
// `sync` worker runs it: what an alerts test needs to create alerts through the client, make
// matching events happen, and have their webhooks sent to a loopback receiver.
import { createAccount } from '@domain-index/accounts/account-store';
import { createKey } from '@domain-index/accounts/key-store';
import { systemClock } from '@domain-index/runtime/clock';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { parseAllowedHosts } from '@domain-index/webhooks/address-rules';
import { jsonlFeed } from '@domain-index/test-support/feeds';
import { startApi } from '@domain-index/api/test/support/start-api';
import { SOURCE } from './events-api';
import { suiteDeliveryTask } from '../../support/delivery-task';

export interface AlertsApi {
  readonly baseUrl: string;
  /** A new key of an account on `plan` (pro: 50 alerts, free: 2). */
  keyOn(plan: 'pro' | 'free'): Promise<string>;
  /** Imports a batch of the source (every listing of it, as a feed does); it must apply. */
  load(records: readonly Record<string, unknown>[]): Promise<void>;
  /** One turn of the delivery worker: the outbox filled from the change feed, and what is due sent. */
  deliver(): Promise<void>;
  close(): Promise<void>;
}

/** Webhooks may reach 127.0.0.1 (WEBHOOK_ALLOWED_HOSTS=127.0.0.1): the receivers of the tests. */
const loopback = (() => {
  const parsed = parseAllowedHosts('127.0.0.1');
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.allowList;
})();

export async function startAlertsApi(): Promise<AlertsApi> {
  const api = await startApi('pglite', { sources: [SOURCE], overrides: { alerts: { allowList: loopback } } });
  const { database } = api.test;
  const task = await suiteDeliveryTask(database, api.baseUrl, loopback);
  let accounts = 0;
  return {
    baseUrl: api.baseUrl,
    async keyOn(plan) {
      accounts += 1;
      const account = await createAccount(database, { email: `alerts${accounts}@example.com`, planId: plan, at: new Date() });
      return (await createKey(database, { planId: plan, environment: 'live', accountId: account.id })).key;
    },
    async load(records) {
      const summary = await importBatch({ database, source: SOURCE, clock: systemClock, input: jsonlFeed(records) });
      if (summary.outcome !== 'applied') throw new Error(`the batch was not applied: ${summary.reason ?? ''}`);
    },
    deliver: () => task.run(),
    close: () => api.close(),
  };
}
