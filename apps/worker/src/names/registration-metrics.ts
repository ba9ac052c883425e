import type { Database } from '@domain-index/db';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '@domain-index/runtime/clock';
import { boundedCollector } from '@domain-index/runtime/bounded-collect';
import { REGISTRATION_PHASES } from '@domain-index/contract';
import { watchedNamesState, type CheckedName } from './registration-checks';

/** A check more than this late counts as overdue: the schedule's tightest interval is 10 minutes. */
export const OVERDUE_AFTER_MS = 15 * 60_000;

/**
 * The registration checks' metrics: `domain_index_registration_checks_total{outcome,server}` per
 * check (server: the RDAP host), and read at each scrape from the database,
 * `domain_index_watched_names{phase}` and `domain_index_registration_checks_overdue` (watched
 * names whose check is more than 15 minutes late: the checks fall behind).
 */
export class RegistrationMetrics {
  private readonly checks: Counter<'outcome' | 'server'>;

  constructor(registry: Registry, database: Database, clock: Clock) {
    this.checks = new Counter({
      name: 'domain_index_registration_checks_total',
      help: 'RDAP checks of names by outcome (found, not_found, no_rdap, rate_limited, timeout, error) and RDAP server host.',
      labelNames: ['outcome', 'server'],
      registers: [registry],
    });
    const read = boundedCollector(registry, 'watched_names', () => watchedNamesState(database, clock.now(), OVERDUE_AFTER_MS));
    new Gauge({
      name: 'domain_index_watched_names',
      help: 'Names on at least one watchlist, by registration phase (unchecked: never answered yet).',
      labelNames: ['phase'],
      registers: [registry],
      async collect() {
        const measured = await read();
        if (measured === undefined) return;
        for (const phase of [...REGISTRATION_PHASES, 'unchecked']) this.set({ phase }, measured.byPhase.get(phase) ?? 0);
      },
    });
    new Gauge({
      name: 'domain_index_registration_checks_overdue',
      help: 'Watched names whose registration check is more than 15 minutes past due.',
      registers: [registry],
      async collect() {
        const measured = await read();
        if (measured !== undefined) this.set(measured.overdue);
      },
    });
  }

  /** Counts one check. */
  checked(checked: CheckedName): void {
    this.checks.inc({ outcome: checked.outcome, server: checked.server === null ? 'none' : hostOf(checked.server) });
  }
}

function hostOf(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return 'invalid';
  }
}
