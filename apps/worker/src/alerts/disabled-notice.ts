import { accounts, eq, type AlertRow, type Database } from '@domain-index/db';
import { html } from '@domain-index/html/html';
import type { Logger } from '@domain-index/runtime/logger';
import type { Mailer } from '@domain-index/mail/mailer';

/**
 * Tells an alert's owner by mail that its webhook was turned off (410 Gone, or failing for the
 * disable window), with the reason and how to turn it back on. The dashboard shows the same
 * state; the mail is for an owner who is not looking. An alert owned by a key alone has no
 * address to write to. A mail that cannot be sent is one warning line: the webhook stays off
 * either way, and the next notice is for the next disable.
 */
export function webhookDisabledNotice(options: { database: Database; mailer: Mailer; publicUrl: string; logger: Logger }) {
  const { database, mailer, publicUrl, logger } = options;
  return async (alert: AlertRow, reason: string): Promise<void> => {
    if (alert.accountId === null) return;
    const [owner] = await database.db.select({ email: accounts.email }).from(accounts).where(eq(accounts.id, alert.accountId));
    if (owner === undefined) return;
    const page = new URL(`/dashboard/alerts/${encodeURIComponent(alert.id)}`, publicUrl).toString();
    const outcome = await mailer.send({
      to: owner.email,
      subject: `Webhook turned off: alert "${alert.name.slice(0, 80)}"`,
      text: [
        `The webhook of your alert "${alert.name}" (${alert.queryString}) is turned off: ${reason}.`,
        '',
        'Matches are no longer sent to it. Fix the receiver, then set its URL again (in the dashboard,',
        'or PATCH /api/v1/alerts/{id} with webhook_url) to turn it back on.',
        '',
        page,
      ].join('\n'),
      html: html`<p>The webhook of your alert <b>${alert.name}</b> (<code>${alert.queryString}</code>) is turned off: ${reason}.</p><p>Matches are no longer sent to it. Fix the receiver, then set its URL again (in the dashboard, or <code>PATCH /api/v1/alerts/{id}</code> with <code>webhook_url</code>) to turn it back on.</p><p><a href="${page}">Open the alert</a></p>`.text,
    });
    if (!outcome.ok) logger.warn({ alertId: alert.id, error: outcome.error, reason: outcome.message }, 'the mail telling an owner their webhook was turned off could not be sent');
  };
}
