import { countTurnedOffWebhooks } from '@domain-index/alerts/alert-store';
import { html, type SafeHtml } from '@domain-index/html/html';
import { DASHBOARD } from '../layout';
import type { Database } from '@domain-index/db';

/**
 * A notice for the page an owner lands on (the keys page) while a webhook of the account is
 * turned off (410 Gone, or failing for days): its matches are being missed until they act.
 */
export async function webhooksOffNotice(database: Database, accountId: string): Promise<SafeHtml> {
  const off = await countTurnedOffWebhooks(database, accountId);
  if (off === 0) return html``;
  return html`<p class="notice error" role="alert">
    <strong>${off === 1 ? 'A webhook of your alerts is turned off' : `${off} webhooks of your alerts are turned off`}</strong>: their matches are no longer
    sent. <a href="${DASHBOARD}/alerts">See your alerts</a>.
  </p>`;
}
