import { bigint, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { apiKeys } from './api-keys';

/**
 * Requests and rows returned per key per hour, shared by every instance. Instances add their
 * counts in batches (an upsert every few seconds), never one write per request.
 */
export const keyUsage = pgTable(
  'key_usage',
  {
    keyId: text('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    /** The start of the hour, UTC. */
    hour: timestamp('hour', { withTimezone: true, precision: 0, mode: 'date' }).notNull(),
    /** Every request, whatever its answer: the sum of the four outcomes below (rows from before they were counted have only this). */
    requests: integer('requests').notNull().default(0),
    rowsReturned: bigint('rows_returned', { mode: 'number' }).notNull().default(0),
    /** Answered below 400. */
    ok: integer('ok').notNull().default(0),
    /** Answered 4xx, but not 429. */
    clientErrors: integer('client_errors').notNull().default(0),
    /** Refused by the rate limit (429): the only requests the limit did not let through. */
    rateLimited: integer('rate_limited').notNull().default(0),
    /** Answered 5xx. */
    serverErrors: integer('server_errors').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.hour] })],
);
