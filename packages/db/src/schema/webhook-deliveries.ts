import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { alerts } from './alerts';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/**
 * The webhook outbox and its log: one row per message (up to 100 events, or a test), whose id
 * is the `webhook-id` of every attempt. Filled in the transaction that moves the alert's
 * position, claimed by a lease, so a message is sent at least once, in order per alert,
 * whatever process dies.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    /** `msg_` and random characters: the webhook-id. */
    id: text('id').primaryKey(),
    alertId: text('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    /** Order of the messages of one alert. */
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity(),
    /** `events` or `test`. */
    kind: text('kind').notNull(),
    /** The change feed's ids of the events it carries. */
    eventIds: bigint('event_ids', { mode: 'number' }).array().notNull(),
    /** `pending`, `delivered`, `failed` (its schedule ran out) or `cancelled` (the webhook was disabled or removed, or its owner stopped). */
    status: text('status').notNull(),
    /** Why a `cancelled` message was never sent, e.g. `owner disabled`, `key revoked`, `webhook removed`. */
    cancelledReason: text('cancelled_reason'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: instant('next_attempt_at').notNull(),
    /** A sender's claim: another sender leaves it alone until then. */
    claimedUntil: instant('claimed_until'),
    /** Which sender holds the claim (`host:pid`): a restarted sender on that machine takes over a dead one's claims at once. */
    claimedBy: text('claimed_by'),
    createdAt: instant('created_at').notNull(),
    deliveredAt: instant('delivered_at'),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_alert_idx').on(t.alertId, t.seq),
    // An alert's oldest pending match, which every claim looks up for each candidate: without it
    // the lookup walked the alert's delivered messages (kept 7 days) along alert_idx first.
    index('webhook_deliveries_pending_matches_idx').on(t.alertId, t.seq).where(sql`status = 'pending' and kind = 'events'`),
  ],
);

/** Every attempt to send a message: what the receiver answered, or why nothing reached it. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    alertId: text('alert_id').notNull(),
    at: instant('at').notNull(),
    /** The HTTP status; null when no answer came (refused address, timeout, connection). */
    httpStatus: integer('http_status'),
    /** Why no answer came, in a few words. */
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    /** The first 1 KB of the answer. */
    response: text('response'),
  },
  (t) => [index('webhook_attempts_alert_idx').on(t.alertId, t.at)],
);
