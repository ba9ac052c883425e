import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/**
 * The last sync of each marketplace, so that a restarted worker keeps each source's schedule
 * and an operator can see when a feed last loaded and how it went.
 */
export const sourceSyncs = pgTable('source_syncs', {
  source: text('source').primaryKey(),
  lastStartedAt: instant('last_started_at'),
  lastFinishedAt: instant('last_finished_at'),
  /** `applied`, `rejected` (too many bad rows, previous batch kept) or `failed` (fetch/database). */
  lastOutcome: text('last_outcome'),
  /** The batch summary or the failure reason. */
  lastSummary: jsonb('last_summary'),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
});

/** A source's sync state as read. */
export type SourceSyncRow = typeof sourceSyncs.$inferSelect;
