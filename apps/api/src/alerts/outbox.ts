import { alerts, and, eq, listingEvents, sql, webhookDeliveries, type Database } from '@domain-index/db';
import { eventConditions } from '../events/feed-page';
import { generateWebhookId } from '../webhooks/signing';
import { alertEventQuery } from './alert-query';

/** Events in one webhook message at most: 5,000 matches are 50 requests, not 5,000. */
export const EVENTS_PER_MESSAGE = 100;
/** Events of the feed one alert's fill reads at a time. */
const WINDOW = 5_000;

/** Queues a `test` message for an alert, due now; returns its id (the webhook-id). */
export async function queueTestMessage(database: Database, alertId: string, now: Date): Promise<string> {
  const id = generateWebhookId();
  await database.db.insert(webhookDeliveries).values({ id, alertId, kind: 'test', eventIds: [], status: 'pending', nextAttemptAt: now, createdAt: now });
  return id;
}

/**
 * Fills the webhook outbox from the change feed: for each alert with a webhook, the events
 * after its stored position that match its query become messages of up to 100 events, in
 * commit order, and the position moves past them, in one transaction per alert and window. A
 * process that dies mid-way leaves the position where its last commit put it: the next fill
 * starts there, so no event is lost and none is queued twice. An alert row is taken with SKIP
 * LOCKED, so workers side by side fill different alerts. A paused alert, or a disabled webhook,
 * moves past its events without queueing them. Returns the messages queued.
 */
export async function fillOutbox(database: Database, now: Date, budgetMs = 5_000): Promise<number> {
  const started = Date.now();
  const candidates = await database.db
    .select({ id: alerts.id })
    .from(alerts)
    .where(sql`${alerts.webhookUrl} is not null and ${alerts.webhookPosition} < (select coalesce(max(id), 0) from listing_events)`);
  let queued = 0;
  for (const { id } of candidates) {
    for (let more = true; more && Date.now() - started < budgetMs; ) {
      const step = await fillOne(database, id, now);
      queued += step.queued;
      more = step.more;
    }
  }
  return queued;
}

async function fillOne(database: Database, alertId: string, now: Date): Promise<{ queued: number; more: boolean }> {
  return database.db.transaction(async (tx) => {
    const [alert] = await tx
      .select()
      .from(alerts)
      .where(eq(alerts.id, alertId))
      .for('update', { skipLocked: true });
    if (alert === undefined || alert.webhookUrl === null) return { queued: 0, more: false };
    const from = alert.webhookPosition;
    const [window] = await tx.execute(sql`select max(id)::text as last, count(*)::int as n from (select id from listing_events where id > ${from} order by id limit ${WINDOW}) w`).then((result) =>
      (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { last: string | null; n: number }[],
    );
    if (window?.last === null || window?.last === undefined) return { queued: 0, more: false };
    const to = Number(window.last);
    let queued = 0;
    if (!alert.paused && alert.webhookDisabledAt === null) {
      const matched = await tx
        .select({ id: listingEvents.id })
        .from(listingEvents)
        .where(and(sql`${listingEvents.id} > ${from} and ${listingEvents.id} <= ${to}`, eventConditions(alertEventQuery(alert.query), { sourceLoaded: 'when-asked' })))
        .orderBy(listingEvents.id);
      for (let i = 0; i < matched.length; i += EVENTS_PER_MESSAGE) {
        await tx.insert(webhookDeliveries).values({
          id: generateWebhookId(),
          alertId,
          kind: 'events',
          eventIds: matched.slice(i, i + EVENTS_PER_MESSAGE).map((row) => row.id),
          status: 'pending',
          nextAttemptAt: now,
          createdAt: now,
        });
        queued += 1;
      }
    }
    await tx.update(alerts).set({ webhookPosition: to }).where(eq(alerts.id, alertId));
    return { queued, more: window.n === WINDOW };
  });
}
