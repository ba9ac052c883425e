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
 * batches off the request path (apps/api/src/request-log/); rows older than 7 days are deleted
 * in bounded batches. No foreign key: a check against api_keys on every inserted row would cost
 * more than the log, and keys are never deleted.
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
  (t) => [
    index('request_log_key_at_idx').on(t.keyId, t.at),
    index('request_log_request_id_idx').on(t.requestId),
    // rows arrive in time order, so a BRIN index finds the old ones for a few pages of index
    index('request_log_at_brin_idx').using('brin', t.at),
  ],
);

/** A request log row as read. */
export type RequestLogRow = typeof requestLog.$inferSelect;
