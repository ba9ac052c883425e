import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/** One-time links to set an account's password. Only the SHA-256 hash of a link's token is stored. */
export const accountLinks = pgTable(
  'account_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    /** Set when the link is used: it works once. */
    usedAt: instant('used_at'),
  },
  (t) => [index('account_links_account_id_idx').on(t.accountId)],
);
