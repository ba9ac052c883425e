import { bigint, boolean, pgTable, timestamp } from 'drizzle-orm/pg-core';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/**
 * The state of the change feed, one row: how far the time-driven events have been appended
 * (every listing whose end time is at or before `ending_soon_through` has had its
 * `listing.ending_soon`; at or before `ended_through` its `listing.ended`), and the last event
 * id that retention has removed (a cursor at or before it has expired). Written under the event
 * log's lock only.
 */
export const eventLog = pgTable('event_log', {
  singleton: boolean('singleton').primaryKey().default(true),
  endingSoonThrough: instant('ending_soon_through'),
  endedThrough: instant('ended_through'),
  droppedThroughId: bigint('dropped_through_id', { mode: 'number' }).notNull().default(0),
});
