import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

const instant = (name: string) =>
  timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/**
 * A new key between the form that made it and the page that shows it, once (post, redirect,
 * get): keyed by the hash of the form's one-time token, so a second post of the same form finds
 * the first one's key instead of making another. The key is sealed with a key derived from the
 * session token, which only the browser holds; it is erased when shown, and the row expires.
 */
export const keyReveals = pgTable(
  'key_reveals',
  {
    /** SHA-256 of the form token. */
    formTokenHash: text('form_token_hash').primaryKey(),
    /** The public handle in the address of the page that shows it. */
    id: text('id').notNull().unique(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /**
     * The key made: a new one (`created`) or a rotation's successor (`rotated`); for an alert's
     * new signing secret (`alert_...` kinds), the alert.
     */
    keyId: text('key_id').notNull(),
    kind: text('kind').notNull(),
    /** AES-256-GCM of the key under a key derived from the session token; null once shown. */
    sealed: text('sealed'),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    shownAt: instant('shown_at'),
  },
  (t) => [index('key_reveals_account_id_idx').on(t.accountId)],
);
