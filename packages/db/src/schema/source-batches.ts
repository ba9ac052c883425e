import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The batch each marketplace's rows come from. Written in the same transaction as the rows, so
 * it always describes the set a reader sees: `applied_at` is every listing's `last_checked_at`.
 */
export const sourceBatches = pgTable('source_batches', {
  source: text('source').primaryKey(),
  appliedAt: timestamp('applied_at', { withTimezone: true, precision: 3, mode: 'date' }).notNull(),
});
