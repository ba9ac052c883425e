import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Secrets every API instance must share, created once by the first instance that needs them
 * (e.g. the key that signs search cursors), so N stateless instances need no extra setting.
 */
export const serviceSecrets = pgTable('service_secrets', {
  name: text('name').primaryKey(),
  /** Base64url random bytes. */
  value: text('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, precision: 3, mode: 'date' }).notNull().defaultNow(),
});
