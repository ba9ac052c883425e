import { classifyDatabaseFailure, isDeadlineExceeded, sql, type Database } from '@domain-index/db';
import type { Logger } from '@domain-index/runtime/logger';
import type { ApiMetrics, StatementKind } from '../ops/api-metrics';
import type { HealthCheck } from '@domain-index/runtime/health-report';
import type { NamedPool } from '@domain-index/runtime/pool-metrics';
import type { ReadNodes } from './read-nodes';
import { lastRecordEnd, parseLsn, WalHistory } from './wal-history';

/** A streaming replica the router may read from, and what its last check found. */
interface Replica {
  /** `replica1`, `replica2`, ...: the metrics' node label and the health check's name. */
  readonly name: string;
  readonly database: Database;
  /** Staleness bound at the last check, ms; undefined when it could not be measured. */
  stalenessMs: number | undefined;
  /** When the last check answered (ms); staleness grows from there. */
  checkedAt: number;
  /** Why it is left out, when it is. */
  problem: string | undefined;
  /** Whether it has been confirmed to be a copy of the primary (same system identifier). */
  sameSystem: boolean | 'unknown';
  /** Reads running on it now. */
  inFlight: number;
  /** Its check in progress: each replica is checked on its own, so one that hangs delays no other. */
  checking: Promise<void> | undefined;
}

/** Where one read runs. */
interface Node {
  name: string;
  database: Database;
  replica?: Replica;
}

export interface ReplicaRouterOptions {
  /** A replica staler than this is left out until it catches up (REPLICA_MAX_LAG_MS). */
  maxLagMs: number;
  /** How often the primary and every replica are checked (REPLICA_CHECK_INTERVAL_MS). */
  checkIntervalMs: number;
  /** Longest a check may take before the replica counts as unreachable. */
  checkTimeoutMs?: number;
  /**
   * Longest a read may run on a replica before the replica counts as gone and the read is
   * retried elsewhere: above the statement timeout, which the server enforces, so only a
   * replica that stopped answering (a network partition, no reset) reaches it.
   */
  readTimeoutMs?: number;
  now?: () => number;
  /** Breaks ties between equally busy replicas. */
  random?: () => number;
}

/** SQLSTATE of a statement cancelled by its statement timeout: the query's own cost, not the node's. */
const STATEMENT_TIMEOUT = '57014';

/** A read on a replica that did not answer within the read timeout. */
class ReplicaSilentError extends Error {
  override readonly name = 'ReplicaSilentError';
}

/**
 * Reads on PostgreSQL streaming replicas, writes elsewhere on the primary.
 *
 * Every `checkIntervalMs` the primary's WAL position is sampled, then each replica's replayed
 * position: a replica is used while it answers, is in recovery, is a copy of this primary and
 * is at most `maxLagMs` stale (wal-history.ts). A read goes to the usable replica with the
 * fewest reads running, picked at random among equals, or to the primary when none is usable.
 * Its staleness when served is at most `maxLagMs + 2 * checkIntervalMs`: a replica whose last
 * good check is older than two intervals is not used. That is the bound on revocations,
 * disabled accounts and plan changes (docs/operating.md, "Reads on replicas"); an expiry needs none, as the API's own clock
 * decides it.
 *
 * A read that fails because of its node (a recovery conflict cancelled it, the replica went
 * away or refused the connection) is retried once on another node, the primary included, before
 * any 503; the replica is left out until its next good check. So is a read that a replica
 * leaves unanswered past `readTimeoutMs`. A statement timeout is not retried: the same query
 * would cost as much elsewhere.
 */
export class ReplicaRouter implements ReadNodes {
  readonly engine = 'postgres' as const;
  readonly replicated = true;
  private readonly replicas: Replica[];
  private readonly history: WalHistory;
  private readonly now: () => number;
  private readonly checkTimeoutMs: number;
  private readonly readTimeoutMs: number;
  private readonly random: () => number;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private primarySystem: string | undefined;

  constructor(
    private readonly primary: Database,
    replicas: readonly Database[],
    private readonly metrics: ApiMetrics,
    private readonly logger: Logger,
    private readonly options: ReplicaRouterOptions,
  ) {
    this.replicas = replicas.map((database, i) => ({
      name: `replica${i + 1}`,
      database,
      stalenessMs: undefined,
      checkedAt: -Infinity,
      problem: 'not checked yet',
      sameSystem: 'unknown',
      inFlight: 0,
      checking: undefined,
    }));
    this.now = options.now ?? (() => Date.now());
    this.random = options.random ?? Math.random;
    this.checkTimeoutMs = options.checkTimeoutMs ?? Math.max(250, Math.min(options.checkIntervalMs, 2_000));
    this.readTimeoutMs = options.readTimeoutMs ?? 30_000;
    // past maxLag a replica is out anyway; the margin keeps the sample it may need to come back
    this.history = new WalHistory(options.maxLagMs + 10 * options.checkIntervalMs);
  }

  /** The longest a served read can be behind the primary, ms. */
  get stalenessBoundMs(): number {
    return this.options.maxLagMs + 2 * this.options.checkIntervalMs;
  }

  /** Checks every node once, then keeps checking in the background. */
  async start(): Promise<void> {
    await this.check();
    await Promise.all(this.replicas.map((replica) => replica.checking ?? Promise.resolve()));
    this.timer = setInterval(() => {
      void this.check();
    }, this.options.checkIntervalMs);
    this.timer.unref();
  }

  async read<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T> {
    const first = this.pick(undefined);
    try {
      return await this.runOn(kind, first, run);
    } catch (error) {
      if (first.replica === undefined || !(error instanceof ReplicaSilentError || nodeFailure(error))) throw error;
      this.leaveOut(first.replica, `a read failed: ${describe(error)}`);
      this.metrics.readRetries.inc({ node: first.name });
      return this.runOn(kind, this.pick(first.replica), run);
    }
  }

  private async runOn<T>(
    kind: StatementKind,
    node: Node,
    run: (database: Database) => Promise<T>,
  ): Promise<T> {
    const { replica } = node;
    if (replica === undefined) return this.metrics.timeQuery(kind, node.name, () => run(node.database));
    replica.inFlight += 1;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await this.metrics.timeQuery(kind, node.name, () => {
        const reading = run(node.database);
        // left behind on a timeout: its own failure, when it comes, is nobody's to handle
        reading.catch(() => undefined);
        const silence = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new ReplicaSilentError(`no answer within ${this.readTimeoutMs} ms`)), this.readTimeoutMs);
        });
        return Promise.race([reading, silence]);
      });
    } finally {
      clearTimeout(timer);
      replica.inFlight -= 1;
    }
  }

  readPrimary<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T> {
    return this.metrics.timeQuery(kind, 'primary', () => run(this.primary));
  }

  async readLong<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T> {
    const node = this.pick(undefined);
    const { replica } = node;
    if (replica !== undefined) replica.inFlight += 1;
    try {
      return await this.metrics.timeQuery(kind, node.name, () => run(node.database));
    } finally {
      if (replica !== undefined) replica.inFlight -= 1;
    }
  }

  pools(): NamedPool[] {
    return [{ node: 'primary', database: this.primary }, ...this.replicas.map((replica) => ({ node: replica.name, database: replica.database }))];
  }

  /** One health check per replica, for the admin listener's /health. */
  healthChecks(): Record<string, HealthCheck[]> {
    const now = this.now();
    const time = new Date(now).toISOString();
    return Object.fromEntries(
      this.replicas.map((replica) => {
        const usable = this.usable(replica, now);
        const check: HealthCheck = {
          componentType: 'datastore',
          // a replica left out costs the primary load, not the service: warn, never fail
          status: usable ? 'pass' : 'warn',
          ...(replica.stalenessMs === undefined
            ? {}
            : { observedValue: replica.stalenessMs, observedUnit: 'ms' }),
          output: usable
            ? `in use; staleness bound ${this.stalenessBoundMs} ms`
            : `left out: ${replica.problem ?? `over ${this.options.maxLagMs} ms behind`}`,
          time,
        };
        return [`postgresql:${replica.name}`, [check]];
      }),
    );
  }

  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.checking?.catch(() => undefined);
    await Promise.allSettled(this.replicas.map((replica) => replica.checking ?? Promise.resolve()));
    await Promise.allSettled(this.replicas.map((replica) => replica.database.close()));
  }

  /** The least busy usable replica (never `exclude`), at random among equals; else the primary. */
  private pick(exclude: Replica | undefined): Node {
    const now = this.now();
    const usable = this.replicas.filter(
      (replica) => replica !== exclude && this.usable(replica, now),
    );
    if (usable.length === 0) return { name: 'primary', database: this.primary };
    const fewest = Math.min(...usable.map((replica) => replica.inFlight));
    const idlest = usable.filter((replica) => replica.inFlight === fewest);
    const replica = idlest[Math.floor(this.random() * idlest.length)] ?? idlest[0]!;
    return { name: replica.name, database: replica.database, replica };
  }

  private usable(replica: Replica, now: number): boolean {
    return (
      replica.problem === undefined &&
      replica.sameSystem !== false &&
      replica.stalenessMs !== undefined &&
      replica.stalenessMs <= this.options.maxLagMs &&
      now - replica.checkedAt <= 2 * this.options.checkIntervalMs
    );
  }

  private leaveOut(replica: Replica, problem: string): void {
    if (replica.problem === undefined)
      this.logger.warn(
        { node: replica.name, problem },
        'a replica is left out: reads go to the other nodes',
      );
    replica.problem = problem;
    this.metrics.replicaInUse.set({ node: replica.name }, 0);
  }

  /** One round: a sample of the primary (rounds never overlap), then each replica not being checked. */
  private check(): Promise<void> {
    this.checking ??= this.samplePrimary()
      .then(() => {
        for (const replica of this.replicas) {
          replica.checking ??= this.checkReplica(replica).finally(() => {
            replica.checking = undefined;
          });
        }
      })
      .finally(() => {
        this.checking = undefined;
      });
    return this.checking;
  }

  /**
   * The primary's WAL insert position, timed from before the statement is sent: every commit
   * visible before that moment lies at or below it, even with synchronous_commit off (the write
   * position can trail a visible commit then). A replica is compared only with samples taken
   * before it was read. An insert position just past a page header counts as the boundary
   * before it (lastRecordEnd), which is what an idle primary's caught-up replica reports.
   */
  private async samplePrimary(): Promise<void> {
    const at = this.now();
    try {
      const [row] = await this.withinTimeout(
        this.primary.rows<{ lsn: string; page: string; segment: string; system: string | null }>(sql`
          select pg_current_wal_insert_lsn()::text as lsn,
                 current_setting('wal_block_size') as page,
                 (select setting from pg_settings where name = 'wal_segment_size') as segment,
                 (select system_identifier::text from pg_control_system()) as system`),
      );
      this.history.record(at, lastRecordEnd(parseLsn(row!.lsn), BigInt(row!.page), BigInt(row!.segment)));
      this.primarySystem ??= row!.system ?? undefined;
    } catch {
      // Without a fresh sample, replicas can only look staler: the bound still holds.
    }
  }

  private async checkReplica(replica: Replica): Promise<void> {
    let row: { recovery: boolean; replayed: string | null; system: string | null } | undefined;
    try {
      [row] = await this.withinTimeout(
        replica.database.rows<{
          recovery: boolean;
          replayed: string | null;
          system: string | null;
        }>(sql`
          select pg_is_in_recovery() as recovery,
                 pg_last_wal_replay_lsn()::text as replayed,
                 (select system_identifier::text from pg_control_system()) as system`),
      );
    } catch (error) {
      this.leaveOut(replica, `unreachable: ${describe(error)}`);
      return;
    }
    const now = this.now();
    if (this.primarySystem !== undefined && row?.system != null)
      replica.sameSystem = row.system === this.primarySystem;
    let problem: string | undefined;
    if (replica.sameSystem === false)
      problem = 'not a copy of the primary (another system identifier)';
    else if (row?.recovery !== true || row.replayed === null)
      problem = 'not in recovery: not a streaming replica (promoted?)';
    replica.stalenessMs =
      problem === undefined ? this.history.stalenessOf(parseLsn(row!.replayed!), now) : undefined;
    replica.checkedAt = now;
    if (
      problem === undefined &&
      (replica.stalenessMs === undefined || replica.stalenessMs > this.options.maxLagMs)
    ) {
      problem = `over ${this.options.maxLagMs} ms behind the primary`;
    }
    if (problem !== undefined) {
      this.leaveOut(replica, problem);
    } else {
      if (replica.problem !== undefined)
        this.logger.info(
          { node: replica.name, stalenessMs: replica.stalenessMs },
          'a replica is in use again',
        );
      replica.problem = undefined;
      this.metrics.replicaInUse.set({ node: replica.name }, 1);
    }
    if (replica.stalenessMs !== undefined)
      this.metrics.replicaStaleness.set({ node: replica.name }, replica.stalenessMs / 1000);
  }

  private async withinTimeout<T>(query: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        query,
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${this.checkTimeoutMs} ms`)),
            this.checkTimeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * A failure of the node rather than of the statement: it went away, refused the connection, or
 * a recovery conflict cancelled the statement (SQLSTATE 40001 on a replica). Another node may
 * answer. A statement timeout is the query's own cost, and a refused statement would be refused
 * anywhere.
 */
function nodeFailure(error: unknown): boolean {
  // a request's deadline passing is the request's budget running out, like a statement timeout
  if (isDeadlineExceeded(error)) return false;
  const failure = classifyDatabaseFailure(error);
  return failure.kind === 'unavailable' && failure.sqlstate !== STATEMENT_TIMEOUT;
}

/** The failure in a few words for the log: its SQLSTATE or code, never a statement. */
function describe(error: unknown): string {
  const failure = classifyDatabaseFailure(error);
  return (
    failure.sqlstate ?? (error instanceof Error ? error.message.split('\n')[0]! : String(error))
  );
}
