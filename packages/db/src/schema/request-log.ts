import {
  bigint,
  index,
  integer,
  pgTable,
  real,
  smallint,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

/**
 * The last 7 days of requests made with each key, for the dashboard's request log. Written in
 * batches off the request path (apps/api/src/request-log/). Partitioned by day on `at` (in the
 * migration's SQL: Drizzle does not describe partitions), so the days past 7 go by dropping their
 * partition, whatever they hold, instead of deleting rows one by one; the recorder makes each
 * day's partition before it is needed. No foreign key: a check against api_keys on every
 * inserted row would cost more than the log, and keys are never deleted.
 */
export const requestLog = pgTable(
  'request_log',
  {
    /** Breaks ties between requests of the same millisecond, for paging. */
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    /** When the request arrived. */
    at: timestamp('at', { withTimezone: true, precision: 3, mode: 'date' }).notNull(),
    keyId: text('key_id').notNull(),
    requestId: text('request_id').notNull(),
    method: text('method').notNull(),
    /** Path and query with every key-, token- or secret-like value replaced by [redacted]. */
    path: text('path').notNull(),
    status: smallint('status').notNull(),
    /** The error envelope's code, for an error answer. */
    errorCode: text('error_code'),
    durationMs: real('duration_ms').notNull(),
    rowsReturned: integer('rows_returned').notNull().default(0),
  },
  // One index: a second one, on request_id, cost each logged request more than all the rest of
  // its insert (random ids, random pages); a request id is found within its key's 7 days.
  (t) => [index('request_log_key_at_idx').on(t.keyId, t.at)],
);

/** A request log row as read. */
export type RequestLogRow = typeof requestLog.$inferSelect;
