import { resultRows, sql, type Database } from '@domain-index/db';
import { watchedByLiveOwner } from '@domain-index/names/live-watchers';
import { recordCheck } from '@domain-index/names/registration-record';
import type { CheckOutcome, RdapClient } from '@domain-index/rdap';
import type { Clock } from '@domain-index/runtime/clock';

/** One name checked, as `domain-index names refresh` prints it and the metrics count it. */
export interface CheckedName {
  domainName: string;
  outcome: CheckOutcome;
  server: string | null;
  phase: string | null;
  moved: { from: string; to: string } | null;
  nextCheckAt: Date | null;
  reason: string | null;
}

/** A claimed name's lease: another worker leaves it alone this long, then takes it up if this one died. */
const LEASE_MS = 5 * 60_000;

/** What a pass of checks may take at most, so a backlog is worked off in turns, not one long pass. */
export const CHECKS_PER_TURN = 500;

/**
 * Claims names for checking and pushes their next check past a lease, in one statement, skipping
 * rows another worker has locked: two workers never check the same name at once, and a worker
 * killed mid-check loses nothing (its names are due again when the lease ends). `all` takes
 * every watched name whatever its time; `domain` one name (watched or not). A name is watched
 * while an owner that can still sign in watches it (live-watchers.ts).
 */
async function claim(database: Database, now: Date, options: { all?: boolean; domain?: string; limit: number; notAttemptedSince?: Date }): Promise<string[]> {
  const lease = new Date(now.getTime() + LEASE_MS).toISOString();
  const due =
    options.domain !== undefined
      ? sql`r.domain_name = ${options.domain}`
      : options.all === true
        ? sql`${watchedByLiveOwner(now)}
              and (r.last_attempt_at is null or r.last_attempt_at < ${(options.notAttemptedSince ?? now).toISOString()}::timestamptz)`
        : sql`r.next_check_at <= ${now.toISOString()}::timestamptz and ${watchedByLiveOwner(now)}`;
  const rows = resultRows<{ domain_name: string }>(
    await database.db.execute(sql`
      update name_registrations set next_check_at = ${lease}::timestamptz
      where domain_name in (
        select r.domain_name from name_registrations r
        where ${due}
        order by r.next_check_at nulls first, r.domain_name
        limit ${options.limit}
        for update skip locked
      )
      returning domain_name`),
  );
  return rows.map((row) => row.domain_name).sort();
}

/**
 * The worker's registration checks: each turn claims the names that are due (at most
 * CHECKS_PER_TURN), asks RDAP about all of them at once (the client keeps every server within
 * its limits, queueing the rest), and records each answer as it comes (registration-record.ts).
 */
export class RegistrationChecks {
  constructor(
    private readonly deps: { database: Database; clock: Clock; rdap: RdapClient; onChecked?: (checked: CheckedName) => void },
  ) {}

  /** Checks the due names now (or every watched name, or one name), and says what each gave. */
  async run(options: { all?: boolean; domain?: string; limit?: number; notAttemptedSince?: Date; signal?: AbortSignal } = {}): Promise<CheckedName[]> {
    const { database, clock, rdap } = this.deps;
    if (options.domain !== undefined) {
      await database.db.execute(sql`insert into name_registrations (domain_name) values (${options.domain}) on conflict (domain_name) do nothing`);
    }
    const names = await claim(database, clock.now(), { ...options, limit: options.limit ?? CHECKS_PER_TURN });
    return Promise.all(
      names.map(async (domainName) => {
        const result = await rdap.check(domainName, options.signal === undefined ? {} : { signal: options.signal });
        const recorded = await recordCheck(database, domainName, result, clock.now());
        const checked: CheckedName = {
          domainName,
          outcome: result.outcome,
          server: result.server,
          phase: 'registration' in result ? result.registration.phase : null,
          moved: recorded.moved,
          nextCheckAt: recorded.nextCheckAt,
          reason: 'reason' in result ? result.reason : null,
        };
        this.deps.onChecked?.(checked);
        return checked;
      }),
    );
  }
}

/**
 * How many watched names are in each phase (null: not checked yet), and how many are overdue by
 * more than `lateMs`; names only stopped owners watch are not checked, so they are not counted.
 */
export async function watchedNamesState(database: Database, now: Date, lateMs: number): Promise<{ byPhase: Map<string, number>; overdue: number }> {
  const rows = resultRows<{ phase: string | null; names: number; overdue: number }>(
    await database.db.execute(sql`
      select r.phase, count(*)::int as names,
             count(*) filter (where r.next_check_at < ${new Date(now.getTime() - lateMs).toISOString()}::timestamptz)::int as overdue
      from name_registrations r
      where ${watchedByLiveOwner(now)}
      group by r.phase`),
  );
  return { byPhase: new Map(rows.map((row) => [row.phase ?? 'unchecked', row.names])), overdue: rows.reduce((sum, row) => sum + row.overdue, 0) };
}
