import { sql, type Database } from '@domain-index/db';
import { Gauge, Registry } from 'prom-client';
import { answersWithin } from './answers-within';

/** Where an instance is in its life, as a load balancer must see it. */
export type Phase = 'starting' | 'ready' | 'draining';

/** The answer of the readiness probe. */
export interface ReadinessAnswer {
  ready: boolean;
  /** Why not: still starting, draining after SIGTERM, or the database unreachable. */
  reason?: 'starting' | 'draining' | 'database unreachable';
}

/**
 * Whether this instance should receive traffic: not while starting, not from the moment SIGTERM
 * arrives, and not while PostgreSQL cannot be reached. The database check has a short timeout
 * and its answer is kept for a second, so a balancer polling every instance often costs the
 * database one trivial statement per instance per second at most.
 */
export class Readiness {
  private phase: Phase;
  private lastCheck: { at: number; ok: Promise<boolean> } | undefined;

  /**
   * `database` may come later (useDatabase), for a process whose admin listener answers
   * "starting" while it opens and migrates its database.
   */
  constructor(
    private database: Database | undefined,
    options: { phase?: Phase; checkTimeoutMs?: number; cacheMs?: number } = {},
  ) {
    this.phase = options.phase ?? 'starting';
    this.checkTimeoutMs = options.checkTimeoutMs ?? 1_000;
    this.cacheMs = options.cacheMs ?? 1_000;
  }

  private readonly checkTimeoutMs: number;
  private readonly cacheMs: number;

  /** The database to check from now on. */
  useDatabase(database: Database): void {
    this.database = database;
  }

  /** The listener is up and migrations are applied. */
  markReady(): void {
    if (this.phase === 'starting') this.phase = 'ready';
  }

  /** SIGTERM arrived: fail readiness at once, before the listener closes. */
  markDraining(): void {
    this.phase = 'draining';
  }

  async answer(now = Date.now()): Promise<ReadinessAnswer> {
    if (this.phase !== 'ready' || this.database === undefined) return { ready: false, reason: this.phase === 'ready' ? 'starting' : this.phase };
    if (this.lastCheck === undefined || now - this.lastCheck.at >= this.cacheMs) this.lastCheck = { at: now, ok: this.reachDatabase() };
    return (await this.lastCheck.ok) ? { ready: true } : { ready: false, reason: 'database unreachable' };
  }

  private async reachDatabase(): Promise<boolean> {
    const database = this.database;
    if (database === undefined) return false;
    return answersWithin(database.rows(sql`select 1 as ok`).then(() => true), this.checkTimeoutMs);
  }
}

/**
 * `domain_index_ready`, in a registry of its own: 1 while the instance answers /readyz with
 * 200, else 0, taken at each scrape. The admin listener adds it to every /metrics it serves
 * (one process's, or the primary's sum of its workers'), so `serve`, `serve` with WORKERS and
 * `sync` all report it, as the process a balancer or an operator polls sees itself.
 */
export function readinessRegistry(readiness: Readiness): Registry {
  const registry = new Registry();
  new Gauge({
    name: 'domain_index_ready',
    help: 'Whether the process is ready (1) or not (0: starting, draining, or its database unreachable), as GET /readyz answers.',
    registers: [registry],
    async collect() {
      this.set((await readiness.answer()).ready ? 1 : 0);
    },
  });
  return registry;
}
