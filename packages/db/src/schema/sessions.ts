import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/** Dashboard sign-in sessions. Only the SHA-256 hash of a session token is stored. */
export const sessions = pgTable(
  'sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    createdAt: instant('created_at').notNull(),
    /** The idle expiry counts from here. */
    lastSeenAt: instant('last_seen_at').notNull(),
    /** The absolute expiry, however active the session. */
    expiresAt: instant('expires_at').notNull(),
    /** The browser's User-Agent at sign-in (cut to 512 characters), for the sessions page. */
    userAgent: text('user_agent'),
    /** The client address at sign-in. */
    ip: text('ip'),
  },
  (t) => [index('sessions_account_id_idx').on(t.accountId)],
);
