import { sql } from 'drizzle-orm';
import { check, index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { apiKeys } from './api-keys';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/**
 * Watchlists: names an owner follows, whether or not any marketplace lists them. Owned like
 * alerts: by the key's account, or by the key itself when it has none.
 */
export const watchlists = pgTable(
  'watchlists',
  {
    /** `wl_` and random characters. */
    id: text('id').primaryKey(),
    accountId: text('account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    keyId: text('key_id').references(() => apiKeys.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('watchlists_account_id_idx').on(t.accountId),
    index('watchlists_key_id_idx').on(t.keyId),
    check('watchlists_owner_check', sql`(${t.accountId} is not null) <> (${t.keyId} is not null)`),
  ],
);

/** A watchlist as read. */
export type WatchlistRow = typeof watchlists.$inferSelect;

/** The names of each watchlist, in ASCII (punycode) and lowercase. */
export const watchlistDomains = pgTable(
  'watchlist_domains',
  {
    watchlistId: text('watchlist_id')
      .notNull()
      .references(() => watchlists.id, { onDelete: 'cascade' }),
    domainName: text('domain_name').notNull(),
    addedAt: instant('added_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.watchlistId, t.domainName] }),
    // which watchlists follow a name: every change of a listing or a registration asks
    index('watchlist_domains_domain_name_idx').on(t.domainName),
  ],
);
