import { integer, pgTable, text } from 'drizzle-orm/pg-core';

/** Rate-limit plans are data: a key's plan decides its request allowance per window. */
export const plans = pgTable('plans', {
  id: text('id').primaryKey(),
  requestsPerWindow: integer('requests_per_window').notNull(),
  windowSeconds: integer('window_seconds').notNull(),
  description: text('description').notNull(),
  /** Alerts (saved searches delivered by webhook or email) one owner may have. */
  alertsLimit: integer('alerts_limit').notNull().default(2),
  /** Names one owner may watch, over all its watchlists. */
  watchLimit: integer('watch_limit').notNull().default(100),
  /** Registration checks a key may ask for now (`?refresh=true`) per hour; the worker's own schedule is not counted. */
  rdapRefreshesPerHour: integer('rdap_refreshes_per_hour').notNull().default(20),
  /** Rows one export may stream; null for no limit beyond the hourly request allowance. */
  exportRowsMax: integer('export_rows_max'),
});

/** A plan as read. */
export type PlanRow = typeof plans.$inferSelect;
