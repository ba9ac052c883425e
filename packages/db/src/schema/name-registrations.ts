import { index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/**
 * What RDAP last said of a name, and when to ask again. A row exists for every name that is
 * watched or was ever checked; the worker checks the watched ones when `next_check_at` comes.
 */
export const nameRegistrations = pgTable(
  'name_registrations',
  {
    domainName: text('domain_name').primaryKey(),
    /** registered, grace, redemption, pending_delete, available or unknown; null until a check answered. */
    phase: text('phase'),
    /** The RDAP status values as the registry gave them. */
    statuses: jsonb('statuses').$type<string[]>(),
    registrarName: text('registrar_name'),
    registrarIanaId: integer('registrar_iana_id'),
    /** The registry's events: registration, expiration, last changed. */
    registeredAt: instant('registered_at'),
    expiresAt: instant('expires_at'),
    registryUpdatedAt: instant('registry_updated_at'),
    expectedDropAt: instant('expected_drop_at'),
    /** When a check last answered (found, not found, or no RDAP for the TLD). */
    checkedAt: instant('checked_at'),
    /** The last attempt's outcome (found, not_found, no_rdap, rate_limited, timeout, error) and server. */
    lastOutcome: text('last_outcome'),
    lastServer: text('last_server'),
    lastAttemptAt: instant('last_attempt_at'),
    /** Failed attempts since the last answer: the backoff grows with them. */
    failures: integer('failures').notNull().default(0),
    /** When the worker checks it next; null when nobody watches it. */
    nextCheckAt: instant('next_check_at'),
  },
  (t) => [index('name_registrations_next_check_at_idx').on(t.nextCheckAt)],
);

/** A name's registration as read. */
export type NameRegistrationRow = typeof nameRegistrations.$inferSelect;
