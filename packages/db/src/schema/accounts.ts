import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { plans } from './plans';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/** Dashboard accounts. An account's plan is the plan of every key it owns. */
export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  /** Lowercased; one account per address. */
  email: text('email').notNull().unique(),
  /** Argon2id PHC string; null until the owner sets a password through a one-time link. */
  passwordHash: text('password_hash'),
  planId: text('plan_id')
    .notNull()
    .references(() => plans.id),
  createdAt: instant('created_at').notNull().defaultNow(),
  /** Set by the operator: the account's sessions end and its keys are refused. */
  disabledAt: instant('disabled_at'),
});

/** An account as read. */
export type AccountRow = typeof accounts.$inferSelect;
