import type { Domain, Name, Registration } from '@domain-index/contract';
import { and, desc, eq, gt, listings, nameHistory, nameRegistrations, type Database, type NameRegistrationRow } from '@domain-index/db';
import { DOMAIN_COLUMNS, domainFromValues } from '@domain-index/listings/domain-values';
import { LOOKUP_ORDER } from '@domain-index/listings/lookup-order';
import { notEnded } from '@domain-index/listings/not-ended';

/** How far back a name's history goes. */
export const HISTORY_DAYS = 365;
/** The most history entries a name's page shows (newest first). */
export const HISTORY_MAX = 1_000;

/** Every marketplace's current listing of the name, in the lookup's order. */
export async function listingsOfName(database: Database, domainName: string, now: Date): Promise<Domain[]> {
  const query = database.db
    .select({ domain: DOMAIN_COLUMNS })
    .from(listings)
    .where(and(eq(listings.domainName, domainName), notEnded(now)))
    .orderBy(...LOOKUP_ORDER)
    .toSQL();
  const rows = await database.values({ sql: query.sql, params: query.params });
  return rows.map((row) => domainFromValues(row));
}

/** What RDAP last said of the name, or undefined when it was never asked. */
export async function registrationRow(database: Database, domainName: string): Promise<NameRegistrationRow | undefined> {
  const [row] = await database.db.select().from(nameRegistrations).where(eq(nameRegistrations.domainName, domainName));
  return row;
}

/** The registration as the API shows it: null until a check answered. */
export function registrationObject(row: NameRegistrationRow | undefined): Registration | null {
  if (row === undefined || row.checkedAt === null || row.phase === null) return null;
  return {
    phase: row.phase as Registration['phase'],
    statuses: row.statuses ?? [],
    registrar: row.registrarName === null && row.registrarIanaId === null ? null : { name: row.registrarName, iana_id: row.registrarIanaId },
    created_at: row.registeredAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    updated_at: row.registryUpdatedAt?.toISOString() ?? null,
    checked_at: row.checkedAt.toISOString(),
    expected_drop_at: row.expectedDropAt?.toISOString() ?? null,
  };
}

/** The name's history of the last HISTORY_DAYS days, newest first. */
export async function historyOfName(database: Database, domainName: string, now: Date): Promise<Name['history']> {
  const since = new Date(now.getTime() - HISTORY_DAYS * 86_400_000);
  const rows = await database.db
    .select()
    .from(nameHistory)
    .where(and(eq(nameHistory.domainName, domainName), gt(nameHistory.occurredAt, since)))
    .orderBy(desc(nameHistory.occurredAt), desc(nameHistory.id))
    .limit(HISTORY_MAX);
  return rows.map((row) => ({
    at: row.occurredAt.toISOString(),
    kind: row.kind as Name['history'][number]['kind'],
    source: row.source,
    price: row.price,
    previous_price: row.previousPrice,
    phase: (row.phase as Registration['phase'] | null) ?? null,
    previous_phase: (row.previousPhase as Registration['phase'] | null) ?? null,
  }));
}

/** A name's page: its listings, its registration and its history, read side by side. */
export async function readName(database: Database, domainName: string, now: Date): Promise<Omit<Name, 'refresh'>> {
  const [found, registration, history] = await Promise.all([listingsOfName(database, domainName, now), registrationRow(database, domainName), historyOfName(database, domainName, now)]);
  return { domain_name: domainName, listings: found, registration: registrationObject(registration), history };
}
