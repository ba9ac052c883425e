import { bigint, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/** What happened to an account and its keys, shown to the account in its dashboard. */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    at: instant('at').notNull(),
    /** e.g. key_created, key_revoked, sign_in_failed (dashboard/audit.ts lists them). */
    kind: text('kind').notNull(),
    /** The client address of the request that caused it; null when no request did (an expiry). */
    ip: text('ip'),
    keyId: text('key_id'),
    detail: text('detail'),
  },
  (t) => [index('audit_events_account_at_idx').on(t.accountId, t.at)],
);
