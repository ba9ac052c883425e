import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The tables an import works in while it runs (staging tables `listing_import_*`, a first
 * load's `listings_load_*`), each with a lease its process renews while it lives. A table whose
 * lease has run out belongs to a process that died (or hangs): the next `import`, `sync` or
 * `migrate` drops it. Registered in the transaction that creates the table, so no table of this
 * kind exists without a row, except one left by a version that did not register them.
 */
export const workTables = pgTable('work_tables', {
  name: text('name').primaryKey(),
  /** Until when the owner vouches for it; renewed while the owner runs. */
  leaseUntil: timestamp('lease_until', { withTimezone: true, precision: 3, mode: 'date' }).notNull(),
  /**
   * The machine and process that made it: a later start on the same machine drops it at once when
   * that process is gone (a killed import's rerun), without waiting for the lease to run out.
   */
  ownerHost: text('owner_host'),
  ownerPid: integer('owner_pid'),
});
