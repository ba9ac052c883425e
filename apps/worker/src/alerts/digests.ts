import { alerts, and, digestRecipients, eq, getTableColumns, isNotNull, listingEvents, lte, sql, type AlertRow, type Database } from '@domain-index/db';
import type { Event } from '@domain-index/contract';
import type { Clock } from '@domain-index/runtime/clock';
import { eventConditions, eventsByIds } from '@domain-index/events/feed-page';
import type { Logger } from '@domain-index/runtime/logger';
import type { Mailer } from '@domain-index/mail/mailer';
import { html } from '@domain-index/html/html';
import { alertEventQuery } from '@domain-index/alerts/alert-query';
import { nextDigestDue } from '@domain-index/alerts/alert-actions';
import { requestConfirmation } from '@domain-index/alerts/digest-recipients';
import { ownerStopReason } from '@domain-index/alerts/owner-state';
import { unsubscribeToken } from '@domain-index/alerts/unsubscribe-token';

/** Matches listed in one digest; the rest are counted. */
export const DIGEST_LISTED = 200;

/** What sending digests needs. */
export interface DigestSettings {
  mailer: Mailer;
  clock: Clock;
  logger: Logger;
  /** PUBLIC_URL: the unsubscribe links are built from it. */
  publicUrl: string;
  /** The shared secret the unsubscribe tokens are made with. */
  secret: Buffer;
}

/**
 * Sends the email digests that are due: for each alert with a digest whose period has ended,
 * the events matched since the last digest, one mail if there are any (nothing when nothing
 * matched), then the period moves on. A worker claims a period by moving its due time forward
 * in one statement (two workers never mail the same period); the position moves past the mailed
 * events only once the mail was accepted, and a mail that fails gives the period back to be
 * tried at the next turn. A worker that dies between the two leaves the events to the next
 * period's mail: late, never lost. A paused alert, one whose owner is no longer live
 * (ownerStopReason), and one whose address is not confirmed (digest-recipients.ts: not yet, or
 * no longer since it unsubscribed) have their periods pass without a mail. Returns the mails sent.
 */
export async function sendDueDigests(database: Database, settings: DigestSettings): Promise<number> {
  const now = settings.clock.now();
  const due = await database.db
    .select({ ...getTableColumns(alerts), stopped: ownerStopReason(now), confirmed: sql<boolean>`coalesce(${digestRecipients.confirmedAt} is not null, false)`, known: sql<boolean>`${digestRecipients.address} is not null` })
    .from(alerts)
    .leftJoin(digestRecipients, eq(digestRecipients.address, sql`lower(${alerts.emailTo})`))
    .where(and(isNotNull(alerts.emailDigest), isNotNull(alerts.emailTo), lte(alerts.digestDueAt, now)));
  let sent = 0;
  for (const alert of due) {
    if (alert.emailDigest === null || alert.digestDueAt === null) continue;
    const claimed = await database.db
      .update(alerts)
      .set({ digestDueAt: nextDigestDue(alert.emailDigest, now) })
      .where(and(eq(alerts.id, alert.id), eq(alerts.digestDueAt, alert.digestDueAt)))
      .returning({ position: alerts.digestPosition });
    if (claimed.length === 0) continue;
    // an address nobody asked to confirm (an alert written by another path than the API's): asked now
    if (!alert.known && alert.emailTo !== null) await requestConfirmation(database.db, alert.emailTo, now);
    const [head] = await database.rows<{ head: string }>(sql`select coalesce(max(id), 0)::text as head from listing_events`);
    const to = Math.max(Number(head?.head ?? 0), alert.digestPosition);
    if (!alert.paused && alert.stopped === null && alert.confirmed) {
      const conditions = and(sql`${listingEvents.id} > ${alert.digestPosition} and ${listingEvents.id} <= ${to}`, eventConditions(alertEventQuery(alert.query, alert.watchlistId), { sourceLoaded: 'when-asked' }));
      const [{ total } = { total: 0 }] = await database.db.select({ total: sql<number>`count(*)::int` }).from(listingEvents).where(conditions);
      if (total > 0) {
        const ids = await database.db.select({ id: listingEvents.id }).from(listingEvents).where(conditions).orderBy(listingEvents.id).limit(DIGEST_LISTED);
        const events = await eventsByIds(database, ids.map((row) => row.id));
        const outcome = await settings.mailer.send(digestMail(alert, events, total, settings, now));
        if (!outcome.ok) {
          await database.db.update(alerts).set({ digestDueAt: alert.digestDueAt }).where(eq(alerts.id, alert.id));
          settings.logger.warn({ alertId: alert.id, error: outcome.error, reason: outcome.message }, 'an email digest could not be sent; it is tried again at the next turn');
          continue;
        }
        sent += 1;
      }
    }
    await database.db.update(alerts).set({ digestPosition: to }).where(eq(alerts.id, alert.id));
  }
  return sent;
}

function money(value: number | null | undefined): string {
  return value === null || value === undefined ? '-' : `$${value.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
}

/** One digest: each match's name, what happened, price, end time and link; at most DIGEST_LISTED, with a count of the rest. */
export function digestMail(alert: AlertRow, events: readonly Event[], total: number, settings: Pick<DigestSettings, 'publicUrl' | 'secret'>, now: Date) {
  const unsubscribeUrl = `${settings.publicUrl}/alerts/unsubscribe/${alert.id}/${unsubscribeToken(settings.secret, alert.id, now)}`;
  const period = alert.emailDigest === 'hourly' ? 'hour' : 'day';
  const rest = total - events.length;
  const more = rest > 0 ? `and ${rest} more: read them all with GET /api/v1/events?${alert.queryString}` : '';
  const what = (event: Event) => event.type.replace('listing.', '').replace('_', ' ');
  const text = events.map((event) => {
    const listing = event.data.object;
    return listing === null
      ? `${event.source}: ${event.type} (${event.data.listings_loaded ?? 0} listings)`
      : `${listing.domain_name} (${what(event)}) ${money(listing.current_bid)} on ${listing.source}, ends ${listing.auction_end_time ?? '-'} ${listing.marketplace_url ?? ''}`.trim();
  });
  const items = events.map((event) => {
    const listing = event.data.object;
    return listing === null
      ? html`<li>${event.source}: ${event.type} (${event.data.listings_loaded ?? 0} listings)</li>`
      : html`<li><a href="${listing.marketplace_url ?? '#'}">${listing.domain_name}</a> (${what(event)}) ${money(listing.current_bid)} on ${listing.source}, ends ${listing.auction_end_time ?? '-'}</li>`;
  });
  const matches = `${total} new ${total === 1 ? 'match' : 'matches'}`;
  return {
    to: alert.emailTo!,
    subject: `${total} ${total === 1 ? 'match' : 'matches'} for "${alert.name}" this ${period}`,
    text: [`${matches} for your alert "${alert.name}" (${alert.queryString}), until ${now.toISOString()}:`, '', ...text.map((line) => `- ${line}`), ...(more === '' ? [] : ['', more]), '', `Stop these emails: ${unsubscribeUrl}`].join('\n'),
    html: html`<p>${matches} for your alert <b>${alert.name}</b> (<code>${alert.queryString}</code>):</p><ul>${items}</ul>${more === '' ? '' : html`<p>${more}</p>`}<p><a href="${unsubscribeUrl}">Stop these emails</a></p>`.text,
    unsubscribeUrl,
  };
}
