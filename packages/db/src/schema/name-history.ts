import { bigint, index, numeric, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
const money = (name: string) => numeric(name, { precision: 14, scale: 2, mode: 'number' });

/**
 * A watched name's history, a row per change: kept 365 days, beyond the change feed's retention,
 * and compact (no copy of the listing), so a year of it for every watched name stays small.
 */
export const nameHistory = pgTable(
  'name_history',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    domainName: text('domain_name').notNull(),
    occurredAt: instant('occurred_at').notNull(),
    /** listed, price_changed, delisted, ended, phase_changed */
    kind: text('kind').notNull(),
    /** The marketplace, for the listing kinds. */
    source: text('source'),
    /** The listing's price after the change (its last for delisted and ended). */
    price: money('price'),
    previousPrice: money('previous_price'),
    phase: text('phase'),
    previousPhase: text('previous_phase'),
  },
  (t) => [index('name_history_domain_name_idx').on(t.domainName, t.occurredAt)],
);

/** A row of a name's history as read. */
export type NameHistoryRow = typeof nameHistory.$inferSelect;
