import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { apiKeys } from './api-keys';
import { watchlists } from './watchlists';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/**
 * Alerts: saved change-feed queries whose matching events are delivered by a signed webhook, an
 * email digest, or both. The first resource a customer writes; the index stays read-only. An
 * alert belongs to the key's account, or to the key itself when the key has no account.
 */
export const alerts = pgTable(
  'alerts',
  {
    /** `alt_` and random characters. */
    id: text('id').primaryKey(),
    accountId: text('account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    keyId: text('key_id').references(() => apiKeys.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The validated GET /api/v1/events query (normalised), without `after` and `limit`. */
    query: jsonb('query').notNull(),
    /** The same query as a canonical query string, as shown and as pasted back. */
    queryString: text('query_string').notNull(),
    /** Delivers the name events of this watchlist (of the same owner), beside or instead of the query's. */
    watchlistId: text('watchlist_id').references(() => watchlists.id, { onDelete: 'cascade' }),
    webhookUrl: text('webhook_url'),
    /** The signing secret, sealed (webhooks/secret-box.ts, bound to the alert's id); shown once. */
    webhookSecret: text('webhook_secret'),
    /** The secret before the last rotation, which also signs for 24 hours after it. */
    previousWebhookSecret: text('previous_webhook_secret'),
    secretRotatedAt: instant('secret_rotated_at'),
    /** Set when the webhook was turned off (410 Gone, or 5 days of failures): nothing is sent until the owner changes the URL. */
    webhookDisabledAt: instant('webhook_disabled_at'),
    webhookDisabledReason: text('webhook_disabled_reason'),
    /** The start of the webhook's current run of failed attempts; null after a success. */
    failingSince: instant('failing_since'),
    /** `hourly` or `daily`; null without an email digest. */
    emailDigest: text('email_digest'),
    /** Where the digest goes: the account's email when it was set. */
    emailTo: text('email_to'),
    /** When the next digest is due. */
    digestDueAt: instant('digest_due_at'),
    paused: boolean('paused').notNull().default(false),
    /** Why the service paused it (`owner disabled`, `key revoked`, ...); null when its owner did, or it runs. */
    pausedReason: text('paused_reason'),
    /** The change feed's position up to which events were matched for the webhook (the outbox is filled from here). */
    webhookPosition: bigint('webhook_position', { mode: 'number' }).notNull(),
    /** The same for the email digest. */
    digestPosition: bigint('digest_position', { mode: 'number' }).notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('alerts_account_id_idx').on(t.accountId),
    index('alerts_key_id_idx').on(t.keyId),
    index('alerts_watchlist_id_idx').on(t.watchlistId),
    check('alerts_owner_check', sql`(${t.accountId} is not null) <> (${t.keyId} is not null)`),
    check('alerts_email_digest_check', sql`${t.emailDigest} in ('hourly', 'daily')`),
  ],
);

/** An alert as read. */
export type AlertRow = typeof alerts.$inferSelect;
