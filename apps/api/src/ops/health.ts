import { migrationStatus, sourceBatches, sourceSyncs, sql, type Database } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import { Redis } from 'ioredis';
import type { Clock } from '../clock';
import { answersWithin } from './answers-within';
import { redisConnected } from '../ratelimit/redis-connected';

/** One check of the health report, as draft-inadmissible-rest-api-health-check words it. */
export interface HealthCheck {
  componentType: 'datastore' | 'component';
  status: HealthStatus;
  observedValue?: number | string;
  observedUnit?: string;
  output?: string;
  time: string;
}

/** `pass`, `warn` (serving, but look) or `fail` (not serving as it should). */
export type HealthStatus = 'pass' | 'warn' | 'fail';

/** The body of GET /health, `application/health+json`. */
export interface HealthReport {
  status: HealthStatus;
  serviceId: 'domain-index';
  description: string;
  checks: Record<string, HealthCheck[]>;
}

/** A dependency that answers slower than this is as good as down for a request. */
const CHECK_TIMEOUT_MS = 1_000;

/** A source is overdue when its last success is older than this many of its intervals. */
const OVERDUE_INTERVALS = 2;

export interface HealthDeps {
  /** The primary (and the only database without replicas); may come later (useDatabase). */
  database?: Database | undefined;
  /** Checked when the process uses Redis. */
  redisUrl: string | undefined;
  sources: readonly SourceConfig[];
  clock: Clock;
  /** What this process is, for the report's description. */
  description: string;
}

/**
 * The detailed health of a process for its admin listener: PostgreSQL with its response time,
 * Redis, the schema's migrations and the sync state of every source. The overall status is
 * `fail` when the process cannot serve (PostgreSQL or Redis down, migrations missing), `warn`
 * when it serves but something needs a look (a source overdue or failing), else `pass`.
 */
export class Health {
  private redis: Redis | undefined;
  private database: Database | undefined;
  private readonly more: (() => Record<string, HealthCheck[]>)[] = [];

  constructor(private readonly deps: HealthDeps) {
    this.database = deps.database;
  }

  /** Adds checks the process knows of itself (its replicas, for one). */
  alsoReport(checks: () => Record<string, HealthCheck[]>): void {
    this.more.push(checks);
  }

  /** The database to check, once the process has opened and migrated it. */
  useDatabase(database: Database): void {
    this.database = database;
  }

  async report(): Promise<HealthReport> {
    if (this.database === undefined)
      return startingReport(this.deps.description, this.deps.clock.now());
    const time = this.deps.clock.now().toISOString();
    const database = await this.checkDatabase(this.database, time);
    const checks: Record<string, HealthCheck[]> = { 'postgresql:responseTime': [database.check] };
    if (this.deps.redisUrl !== undefined)
      checks['redis:responseTime'] = [await this.checkRedis(time)];
    if (database.reachable) {
      const [migrations, sync] = await Promise.all([
        this.checkMigrations(this.database, time),
        this.checkSources(this.database, time),
      ]);
      checks.migrations = [migrations];
      Object.assign(checks, sync);
    }
    for (const more of this.more) Object.assign(checks, more());
    const statuses = Object.values(checks).flatMap((list) => list.map((check) => check.status));
    const status: HealthStatus = statuses.includes('fail')
      ? 'fail'
      : statuses.includes('warn')
        ? 'warn'
        : 'pass';
    return { status, serviceId: 'domain-index', description: this.deps.description, checks };
  }

  close(): Promise<void> {
    this.redis?.disconnect();
    return Promise.resolve();
  }

  private async checkDatabase(
    database: Database,
    time: string,
  ): Promise<{ reachable: boolean; check: HealthCheck }> {
    const started = performance.now();
    const reachable = await answersWithin(database.rows(sql`select 1 as ok`).then(() => true), CHECK_TIMEOUT_MS);
    const ms = round(performance.now() - started);
    return {
      reachable,
      check: reachable
        ? {
            componentType: 'datastore',
            status: 'pass',
            observedValue: ms,
            observedUnit: 'ms',
            time,
          }
        : {
            componentType: 'datastore',
            status: 'fail',
            output: `no answer within ${CHECK_TIMEOUT_MS} ms`,
            time,
          },
    };
  }

  private async checkRedis(time: string): Promise<HealthCheck> {
    if (this.redis === undefined) {
      // A connection of its own: the health check must not queue behind, or disturb, the limiter's.
      this.redis = new Redis(this.deps.redisUrl!, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: CHECK_TIMEOUT_MS,
        retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      });
      this.redis.on('error', () => {
        /* reported by the check; reconnection is automatic */
      });
    }
    const redis = this.redis;
    const started = performance.now();
    // the first check may come before the connection is made
    if (redis.status === 'connecting' || redis.status === 'wait')
      await redisConnected(redis, CHECK_TIMEOUT_MS);
    const answered = await answersWithin(redis.ping().then((reply) => reply === 'PONG'), CHECK_TIMEOUT_MS);
    const ms = round(performance.now() - started);
    return answered
      ? { componentType: 'datastore', status: 'pass', observedValue: ms, observedUnit: 'ms', time }
      : { componentType: 'datastore', status: 'fail', output: 'Redis did not answer PING', time };
  }

  private async checkMigrations(database: Database, time: string): Promise<HealthCheck> {
    try {
      const { applied, shipped, pending } = await migrationStatus(database);
      const base = {
        componentType: 'datastore' as const,
        observedValue: applied,
        observedUnit: 'migrations',
        time,
      };
      if (pending > 0)
        return {
          ...base,
          status: 'fail',
          output: `${pending} of the ${shipped} shipped migrations are not applied`,
        };
      if (applied > shipped)
        return {
          ...base,
          status: 'warn',
          output: `the database has ${applied} migrations, newer than this version's ${shipped}`,
        };
      return { ...base, status: 'pass', output: `${applied} of ${shipped} applied` };
    } catch {
      return {
        componentType: 'datastore',
        status: 'fail',
        output: 'the migrations could not be read',
        time,
      };
    }
  }

  private async checkSources(
    database: Database,
    time: string,
  ): Promise<Record<string, HealthCheck[]>> {
    const [syncs, batches] = await Promise.all([
      database.db.select().from(sourceSyncs),
      database.db.select().from(sourceBatches),
    ]);
    const now = this.deps.clock.now().getTime();
    const checks: Record<string, HealthCheck[]> = {};
    for (const source of this.deps.sources) {
      const sync = syncs.find((row) => row.source === source.id);
      const success = lastSuccess(sync, batches.find((row) => row.source === source.id)?.appliedAt);
      const base = { componentType: 'component' as const, time };
      let check: HealthCheck;
      if (success === undefined) {
        check = {
          ...base,
          status: 'warn',
          output:
            sync === undefined
              ? 'never synced'
              : `never synced successfully; last outcome ${sync.lastOutcome ?? 'unknown'}`,
        };
      } else if (now - success.getTime() > OVERDUE_INTERVALS * source.everyMinutes * 60_000) {
        check = {
          ...base,
          status: 'warn',
          observedValue: success.toISOString(),
          output: `last success is older than ${OVERDUE_INTERVALS} intervals of ${source.everyMinutes} minutes`,
        };
      } else if (sync?.lastOutcome === 'failed' || sync?.lastOutcome === 'rejected') {
        check = {
          ...base,
          status: 'warn',
          observedValue: success.toISOString(),
          output: `the last sync was ${sync.lastOutcome}; the previous batch is served`,
        };
      } else {
        check = {
          ...base,
          status: 'pass',
          observedValue: success.toISOString(),
          output: `last outcome ${sync?.lastOutcome ?? 'applied'}`,
        };
      }
      checks[`sync:${source.id}`] = [check];
    }
    return checks;
  }
}

/**
 * When the source last synced successfully: its last applied batch (written with the rows), or
 * a later sync that found the feed unchanged.
 */
export function lastSuccess(
  sync: { lastOutcome: string | null; lastFinishedAt: Date | null } | undefined,
  appliedAt: Date | undefined,
): Date | undefined {
  const checkedUnchanged =
    sync?.lastOutcome === 'unchanged' ? (sync.lastFinishedAt ?? undefined) : undefined;
  if (appliedAt === undefined) return checkedUnchanged;
  return checkedUnchanged !== undefined && checkedUnchanged > appliedAt
    ? checkedUnchanged
    : appliedAt;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** The report of a process that has not opened its database yet. */
function startingReport(description: string, now: Date): HealthReport {
  return {
    status: 'fail',
    serviceId: 'domain-index',
    description,
    checks: {
      startup: [
        {
          componentType: 'component',
          status: 'fail',
          output: 'starting: the database is being opened and migrated',
          time: now.toISOString(),
        },
      ],
    },
  };
}
