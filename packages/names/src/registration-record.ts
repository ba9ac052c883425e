import type { EventType, RegistrationPhase } from '@domain-index/contract';
import { eq, nameRegistrations, resultRows, sql, type Database } from '@domain-index/db';
import { lockEventLog } from '@domain-index/events/event-log-lock';
import { ensureEventPartitions } from '@domain-index/events/partitions';
import type { CheckResult } from '@domain-index/rdap';
import { nextCheckAt, retryAfterFailure } from './check-schedule';

/** The phases in which a name is registered to somebody. */
const HELD: ReadonlySet<RegistrationPhase> = new Set(['registered', 'grace', 'redemption', 'pending_delete']);

/**
 * The event of a move from one phase to another: `name.dropped` when a held name became
 * available, `name.registered` when an available one became held, `name.phase_changed` for every
 * other move. One event per move, so a receiver of every type sees each move once.
 */
export function phaseEventType(from: RegistrationPhase, to: RegistrationPhase): EventType {
  if (HELD.has(from) && to === 'available') return 'name.dropped';
  if (from === 'available' && HELD.has(to)) return 'name.registered';
  return 'name.phase_changed';
}

/** What recording a check did. */
export interface RecordedCheck {
  /** The phase before and after, when the check moved the name from one to another. */
  moved: { from: RegistrationPhase; to: RegistrationPhase } | null;
  /** When the name is checked next; null when nobody watches it. */
  nextCheckAt: Date | null;
}

/**
 * Stores what a check learned, in one transaction: the registration (or, for a failed attempt,
 * the failure and when to try again), the next check of a watched name, and for a move between
 * phases the name's history row and one event per watchlist of the name, under the event log's
 * lock. The first answer for a name records its phase without an event: there is no move yet.
 */
export async function recordCheck(database: Database, domainName: string, result: CheckResult, now: Date, random: () => number = Math.random): Promise<RecordedCheck> {
  // a move appends events: their day's partition is made first, in a transaction of its own (known ones are remembered)
  await ensureEventPartitions(database, now);
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`insert into name_registrations (domain_name) values (${domainName}) on conflict (domain_name) do nothing`);
    const [row] = await tx.select().from(nameRegistrations).where(eq(nameRegistrations.domainName, domainName)).for('update');
    const [watched] = resultRows<{ watched: boolean }>(await tx.execute(sql`select exists (select 1 from watchlist_domains where domain_name = ${domainName}) as watched`));
    const isWatched = watched?.watched === true;
    const before = (row?.phase ?? null) as RegistrationPhase | null;
    if (!('registration' in result)) {
      const failures = (row?.failures ?? 0) + 1;
      const next = isWatched ? (result.retryAt ?? retryAfterFailure(failures, before, now)) : null;
      await tx
        .update(nameRegistrations)
        .set({ lastOutcome: result.outcome, lastServer: result.server, lastAttemptAt: now, failures, nextCheckAt: next })
        .where(eq(nameRegistrations.domainName, domainName));
      return { moved: null, nextCheckAt: next };
    }
    const registration = result.registration;
    const phase = registration.phase;
    const availableSince = phase === 'available' ? (before === 'available' ? (row?.registryUpdatedAt ?? row?.checkedAt ?? now) : now) : null;
    const next = isWatched ? nextCheckAt({ phase, expiresAt: registration.expiresAt, expectedDropAt: registration.expectedDropAt, availableSince }, now, random) : null;
    await tx
      .update(nameRegistrations)
      .set({
        phase,
        statuses: registration.statuses,
        registrarName: registration.registrar?.name ?? null,
        registrarIanaId: registration.registrar?.ianaId ?? null,
        registeredAt: registration.createdAt,
        expiresAt: registration.expiresAt,
        // an available name keeps when it became available here, for its schedule
        registryUpdatedAt: phase === 'available' ? availableSince : registration.updatedAt,
        expectedDropAt: registration.expectedDropAt,
        checkedAt: now,
        lastOutcome: result.outcome,
        lastServer: result.server,
        lastAttemptAt: now,
        failures: 0,
        nextCheckAt: next,
      })
      .where(eq(nameRegistrations.domainName, domainName));
    if (before === null || before === phase) return { moved: null, nextCheckAt: next };
    await tx.execute(sql`
      insert into name_history (domain_name, occurred_at, kind, phase, previous_phase)
      values (${domainName}, ${now.toISOString()}::timestamptz, 'phase_changed', ${phase}, ${before})`);
    if (isWatched) {
      await lockEventLog(tx);
      await tx.execute(sql`
        insert into listing_events (id, occurred_at, type, source, domain_name, previous, watchlist_id, phase, expected_drop_at)
        select nextval('listing_events_id_seq'), ${now.toISOString()}::timestamptz, ${phaseEventType(before, phase)}, 'rdap', ${domainName},
               jsonb_build_object('phase', ${before}::text), w.watchlist_id, ${phase}, ${registration.expectedDropAt?.toISOString() ?? null}::timestamptz
        from watchlist_domains w
        where w.domain_name = ${domainName}
        order by w.watchlist_id`);
    }
    return { moved: { from: before, to: phase }, nextCheckAt: next };
  });
}
