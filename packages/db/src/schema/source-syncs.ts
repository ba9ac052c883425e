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
  /**
   * `applied`, `rejected` (too many bad rows, previous batch kept), `failed` (fetch/database) or
   * `unchanged` (the feed is the one of the applied batch; nothing was switched).
   */
  lastOutcome: text('last_outcome'),
  /** The batch summary or the failure reason. */
  lastSummary: jsonb('last_summary'),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
  /**
   * What identifies the feed of the applied batch: ETag, Last-Modified, content hash, the
   * source's configuration fingerprint and the batch's applied_at (valid only while
   * source_batches still holds that batch). Lets the next sync skip an unchanged feed.
   */
  feedValidators: jsonb('feed_validators'),
});

/** A source's sync state as read. */
export type SourceSyncRow = typeof sourceSyncs.$inferSelect;
