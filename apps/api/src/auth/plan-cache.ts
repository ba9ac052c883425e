import { plans, type Database } from '@domain-index/db';
import type { Clock } from '@domain-index/runtime/clock';
import type { ReadNodes } from '../replicas/read-nodes';

/** A plan's allowance. */
export interface Plan {
  id: string;
  limit: number;
  windowSeconds: number;
  /** Alerts one owner may have on this plan. */
  alertsLimit: number;
  /** Names one owner may watch over its watchlists. */
  watchLimit: number;
  /** Registration checks (`?refresh=true`) a key may ask for an hour. */
  rdapRefreshesPerHour: number;
  /** Rows one export may stream; null for no cap beyond the hourly allowance. */
  exportRowsMax: number | null;
}

/** Plans change rarely; every instance re-reads them at most this often. */
const REFRESH_MS = 30_000;

/**
 * The plans table, cached per instance. A plan that cannot be resolved (unknown id, or the
 * table unreadable with nothing cached) is reported as undefined; the caller refuses the
 * request rather than guessing a limit.
 */
export class PlanCache {
  private plans = new Map<string, Plan>();
  private loadedAt = -Infinity;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly reads: ReadNodes,
    private readonly clock: Clock,
  ) {}

  /** `reads`: the request's (bounded by its deadline), else the cache's own; `now`: the request's time (epoch ms). */
  async resolve(planId: string, reads: ReadNodes = this.reads, now = this.clock.now().getTime()): Promise<Plan | undefined> {
    if (now - this.loadedAt >= REFRESH_MS || !this.plans.has(planId)) {
      try {
        await this.refresh(now, reads);
        // A plan a replica does not have yet may have been created a moment ago.
        if (!this.plans.has(planId) && reads.replicated) await this.refresh(now, reads, 'primary');
      } catch {
        // keep serving the last good copy; with none, the plan is unresolvable
      }
    }
    return this.plans.get(planId);
  }

  private refresh(now: number, reads: ReadNodes, from: 'any' | 'primary' = 'any'): Promise<void> {
    this.loading ??= (async () => {
      try {
        const load = (database: Database) => database.db.select().from(plans);
        const rows = from === 'primary' ? await reads.readPrimary('plans', load) : await reads.read('plans', load);
        this.plans = new Map(rows.map((row) => [row.id, { id: row.id, limit: row.requestsPerWindow, windowSeconds: row.windowSeconds, alertsLimit: row.alertsLimit, watchLimit: row.watchLimit, rdapRefreshesPerHour: row.rdapRefreshesPerHour, exportRowsMax: row.exportRowsMax }]));
        this.loadedAt = now;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }
}
