import { alerts, and, eq, getTableColumns, inArray, sql, webhookDeliveries, type Database, type Drizzle } from '@domain-index/db';
import { generateWebhookId } from '@domain-index/webhooks/signing';
import { alertEventQuery } from './alert-query';
import { eventMatcher, type EventFilterRow } from './event-matcher';
import { ownerStopReason } from './owner-state';

/** Events in one webhook message at most: 5,000 matches are 50 requests, not 5,000. */
export const EVENTS_PER_MESSAGE = 100;
/** Events of the feed one fill reads at a time, for every alert behind. */
const WINDOW = 20_000;

/** Queues a `test` message for an alert, due now; returns its id (the webhook-id). */
export async function queueTestMessage(database: Database, alertId: string, now: Date): Promise<string> {
  const id = generateWebhookId();
  await database.db.insert(webhookDeliveries).values({ id, alertId, kind: 'test', eventIds: [], status: 'pending', nextAttemptAt: now, createdAt: now });
  return id;
}

/** The columns eventMatcher reads, as one window of the feed loads them. */
const FILTER_COLUMNS = sql`id::text as id, type, source, (extract(epoch from occurred_at) * 1000)::float8 as occurred_at, domain_name, watchlist_id, tld, status, has_hyphens, has_numbers,
  (extract(epoch from auction_end_time) * 1000)::float8 as auction_end_time, current_bid::float8 as current_bid, length, index_score,
  seoa_dr::text as seoa_dr, seob_tf::text as seob_tf, max_backlinks::float8 as max_backlinks, domain_age, keyword_search_volume, word_count, extensions_taken`;

type LoadedRow = Record<string, unknown> & { id: string; type: string; source: string; occurred_at: number; domain_name: string | null };

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
/** A float4 column's value: PostgreSQL writes it as its shortest decimal, which reads back as the float4. */
const float4 = (value: unknown): number | null => (value === null || value === undefined ? null : Math.fround(Number(value)));

function toFilterRow(row: LoadedRow): EventFilterRow {
  return {
    id: Number(row.id),
    type: row.type,
    source: row.source,
    occurredAt: row.occurred_at,
    domainName: row.domain_name,
    watchlistId: (row.watchlist_id as string | null) ?? null,
    tld: (row.tld as string | null) ?? null,
    status: (row.status as string | null) ?? null,
    hasHyphens: (row.has_hyphens as boolean | null) ?? null,
    hasNumbers: (row.has_numbers as boolean | null) ?? null,
    auctionEndTime: num(row.auction_end_time),
    currentBid: num(row.current_bid),
    length: num(row.length),
    indexScore: num(row.index_score),
    seoaDr: float4(row.seoa_dr),
    seobTf: float4(row.seob_tf),
    maxBacklinks: num(row.max_backlinks),
    domainAge: num(row.domain_age),
    keywordSearchVolume: num(row.keyword_search_volume),
    wordCount: num(row.word_count),
    extensionsTaken: num(row.extensions_taken),
  };
}

/** The events after `after` (at most `limit`), in id order, as eventMatcher reads them. */
export async function loadWindow(database: Database, after: number, limit: number): Promise<EventFilterRow[]> {
  return (await database.rows<LoadedRow>(sql`select ${FILTER_COLUMNS} from listing_events where listing_events.id > ${after} order by listing_events.id limit ${limit}`)).map(toFilterRow);
}

/**
 * Fills the webhook outbox from the change feed: for each alert with a webhook, the events
 * after its stored position that match its query become messages of up to 100 events, in commit
 * order, and the position moves past them. A window of the feed (WINDOW events after the
 * furthest-behind alert) is read once and matched in memory against every alert behind its end
 * (eventMatcher: the SQL filters rule for rule), then the messages and the new positions are
 * written in one transaction that first locks the alerts' rows (SKIP LOCKED: a worker beside it
 * takes the others). A process that dies leaves every position where its last commit put it:
 * the next fill starts there, so no event is lost and none is queued twice. A paused alert, a
 * disabled webhook, or an alert whose owner is no longer live (ownerStopReason: disabled,
 * revoked, expired) moves past its events without queueing them. Returns the messages queued.
 */
export async function fillOutbox(database: Database, now: Date, budgetMs = 5_000): Promise<number> {
  const started = Date.now();
  let queued = 0;
  for (;;) {
    const behind = await database.db
      .select()
      .from(alerts)
      .where(sql`${alerts.webhookUrl} is not null and ${alerts.webhookPosition} < (select coalesce(max(id), 0) from listing_events)`);
    if (behind.length === 0) return queued;
    const from = Math.min(...behind.map((alert) => alert.webhookPosition));
    const rows = await loadWindow(database, from, WINDOW);
    if (rows.length === 0) return queued;
    const to = rows.at(-1)!.id;
    queued += await database.db.transaction(async (tx) => {
      const locked = await tx
        .select({ ...getTableColumns(alerts), stopped: ownerStopReason(now) })
        .from(alerts)
        .where(and(inArray(alerts.id, behind.map((alert) => alert.id)), sql`${alerts.webhookPosition} < ${to}`))
        .for('update', { skipLocked: true });
      const messages: (typeof webhookDeliveries.$inferInsert)[] = [];
      for (const alert of locked) {
        if (!alert.paused && alert.stopped === null && alert.webhookDisabledAt === null && alert.webhookUrl !== null) {
          const matches = eventMatcher(alertEventQuery(alert.query, alert.watchlistId));
          const ids = rows.filter((row) => row.id > alert.webhookPosition && matches(row)).map((row) => row.id);
          for (let i = 0; i < ids.length; i += EVENTS_PER_MESSAGE) {
            messages.push({ id: generateWebhookId(), alertId: alert.id, kind: 'events', eventIds: ids.slice(i, i + EVENTS_PER_MESSAGE), status: 'pending', nextAttemptAt: now, createdAt: now });
          }
        }
      }
      // in alert order, each alert's messages in commit order: the sequence gives them that order
      for (let i = 0; i < messages.length; i += 500) await tx.insert(webhookDeliveries).values(messages.slice(i, i + 500));
      if (locked.length > 0) await tx.update(alerts).set({ webhookPosition: to }).where(inArray(alerts.id, locked.map((alert) => alert.id)));
      return messages.length;
    });
    if (Date.now() - started > budgetMs) return queued;
  }
}

/**
 * Cancels an alert's queued matches (not its test messages), keeping `reason` on each: what
 * pausing an alert does, in the transaction that pauses it.
 */
export async function cancelQueuedMatches(tx: Pick<Drizzle, 'update'>, alertId: string, reason: string): Promise<number> {
  const cancelled = await tx
    .update(webhookDeliveries)
    .set({ status: 'cancelled', cancelledReason: reason })
    .where(and(eq(webhookDeliveries.alertId, alertId), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.kind, 'events')))
    .returning({ id: webhookDeliveries.id });
  return cancelled.length;
}
