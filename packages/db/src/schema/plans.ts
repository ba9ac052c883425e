import { integer, pgTable, text } from 'drizzle-orm/pg-core';

/** Rate-limit plans are data: a key's plan decides its request allowance per window. */
export const plans = pgTable('plans', {
  id: text('id').primaryKey(),
  requestsPerWindow: integer('requests_per_window').notNull(),
  windowSeconds: integer('window_seconds').notNull(),
  description: text('description').notNull(),
  /** Alerts (saved searches delivered by webhook or email) one owner may have. */
  alertsLimit: integer('alerts_limit').notNull().default(2),
});

/** A plan as read. */
export type PlanRow = typeof plans.$inferSelect;
