import { migrationStatus, sql, type Database } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import { Redis } from 'ioredis';
import type { Clock } from '@domain-index/runtime/clock';
import { answersWithin } from '@domain-index/runtime/answers-within';
import { REDIS_DISCONNECT_TIMEOUT_MS } from '@domain-index/api/ratelimit/close-redis';
import { redisConnected } from '@domain-index/api/ratelimit/redis-connected';
import { readSyncStates, type SourceSyncState } from '@domain-index/worker/ops/sync-state';
import { VERSION } from '../version';
import type { HealthCheck, HealthReport, HealthStatus } from '@domain-index/runtime/health-report';

/**
 * The check of one source (`sync:ID`): a health check with the source's sync state, the same
 * as `domain-index sources` shows. `observedValue` is the last success.
 */
export interface SourceHealthCheck extends HealthCheck {
  /** `applied`, `unchanged`, `rejected` or `failed`; absent before the first sync. */
  lastOutcome?: string;
  /** When the last sync finished. */
  lastSyncAt?: string;
  /** Why the last sync was rejected or failed (never SQL or a secret). */
  lastError?: string;
  /** Rejected or failed syncs since the last success. */
  consecutiveFailures: number;
  /**
   * When a worker syncs the source next (its last sync plus its interval, or after a failed sync
   * its retry delay: 1, 5, 15, then every 60 minutes, at most the interval), or `now`.
   */
  nextSyncDue: string;
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
    return { status, serviceId: 'domain-index', version: VERSION, description: this.deps.description, checks };
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
        disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS,
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
    const now = this.deps.clock.now().getTime();
    const checks: Record<string, HealthCheck[]> = {};
    const states = await readSyncStates(database, this.deps.sources);
    for (const [index, source] of this.deps.sources.entries())
      checks[`sync:${source.id}`] = [sourceCheck(source, states[index]!, now, time)];
    return checks;
  }
}

/**
 * A source's check: `warn` when it never synced successfully, when its last success is older
 * than two of its intervals, or when its last sync was rejected or failed (the error, the
 * count of failures in a row and when it is tried next are in the check, as `sources` shows
 * them).
 */
function sourceCheck(
  source: SourceConfig,
  state: SourceSyncState,
  now: number,
  time: string,
): SourceHealthCheck {
  const problems: string[] = [];
  if (state.lastSuccess === undefined) problems.push(state.lastOutcome === undefined ? 'never synced' : 'never synced successfully');
  else if (now - state.lastSuccess.getTime() > OVERDUE_INTERVALS * source.everyMinutes * 60_000)
    problems.push(`last success is older than ${OVERDUE_INTERVALS} intervals of ${source.everyMinutes} minutes`);
  if (state.lastError !== undefined) {
    const times = state.consecutiveFailures === 1 ? 'once' : `${state.consecutiveFailures} times in a row`;
    problems.push(`the last sync ${state.lastOutcome === 'failed' ? 'failed' : 'was rejected'}: ${state.lastError} (${times}); ${state.lastSuccess === undefined ? 'no batch of it has been applied' : 'the previous batch is served'}`);
  }
  return {
    componentType: 'component',
    status: problems.length === 0 ? 'pass' : 'warn',
    ...(state.lastSuccess !== undefined && { observedValue: state.lastSuccess.toISOString() }),
    output: problems.length === 0 ? `last outcome ${state.lastOutcome ?? 'applied'}` : problems.join('; '),
    ...(state.lastOutcome !== undefined && { lastOutcome: state.lastOutcome }),
    ...(state.lastFinishedAt !== undefined && { lastSyncAt: state.lastFinishedAt.toISOString() }),
    ...(state.lastError !== undefined && { lastError: state.lastError }),
    consecutiveFailures: state.consecutiveFailures,
    nextSyncDue: state.nextDue?.toISOString() ?? 'now',
    time,
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** The report of a process that has not opened its database yet. */
function startingReport(description: string, now: Date): HealthReport {
  return {
    status: 'fail',
    serviceId: 'domain-index',
    version: VERSION,
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
