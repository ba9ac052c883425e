import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { plans } from './plans';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/**
 * API keys. Only the SHA-256 hash of a key is stored; the key itself is shown once. A key that
 * an account owns takes its plan from the account (`plan_id` is kept as the plan at creation).
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    /** Hex SHA-256 of the full key. */
    keyHash: text('key_hash').notNull().unique(),
    /** The first characters of the key, enough to recognise it in a list. */
    displayPrefix: text('display_prefix').notNull(),
    name: text('name'),
    planId: text('plan_id')
      .notNull()
      .references(() => plans.id),
    createdAt: instant('created_at').notNull().defaultNow(),
    lastUsedAt: instant('last_used_at'),
    revokedAt: instant('revoked_at'),
    /** Why the key was revoked, e.g. seen in a URL and treated as leaked. */
    revokedReason: text('revoked_reason'),
    /** The dashboard account that owns the key; null for keys made with `keys create`. */
    accountId: text('account_id').references(() => accounts.id),
    /** After this the key is refused like a revoked one: a chosen expiry, or a rotation's overlap. */
    expiresAt: instant('expires_at'),
    /** The key a rotation made to replace this one (which then works until `expires_at`). */
    replacedBy: text('replaced_by'),
  },
  (t) => [index('api_keys_plan_id_idx').on(t.planId), index('api_keys_account_id_idx').on(t.accountId)],
);

/** An API key row as read. */
export type ApiKeyRow = typeof apiKeys.$inferSelect;
