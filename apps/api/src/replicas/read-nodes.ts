import type { Database } from '@domain-index/db';
import type { ApiMetrics, StatementKind } from '../ops/api-metrics';
import type { NamedPool } from '@domain-index/runtime/pool-metrics';

/**
 * Where the API's read statements run (searches, counts, lookups, key checks, plans, stats).
 * `read` picks the node, runs the statements `run` sends to it, and times them by kind and node.
 * Writes never go through here: they go to the primary.
 */
export interface ReadNodes {
  /** The engine every node runs: the embedded database has no replicas and no statement timeout. */
  readonly engine: Database['kind'];
  /** Whether reads may come from a replica, so a row written a moment ago may not be there yet. */
  readonly replicated: boolean;
  read<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T>;
  /**
   * A read that holds its connection for long (an export's cursor): on a replica when one is
   * usable, never cut short by the replica read timeout and never retried once started (rows
   * may have been sent). It bounds itself.
   */
  readLong<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T>;
  /** A read that must see every committed write: on the primary, timed like the others. */
  readPrimary<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T>;
  /** Every node's pool, named as the metrics name the node: for the pool gauges. */
  pools(): NamedPool[];
  close(): Promise<void>;
}

/** Every read on the primary: the deployment without replicas, and the embedded database. */
export class PrimaryReads implements ReadNodes {
  readonly engine: Database['kind'];
  readonly replicated = false;

  constructor(
    private readonly primary: Database,
    private readonly metrics: ApiMetrics,
  ) {
    this.engine = primary.kind;
  }

  read<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T> {
    return this.metrics.timeQuery(kind, 'primary', () => run(this.primary));
  }

  readPrimary<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T> {
    return this.read(kind, run);
  }

  readLong<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T> {
    return this.read(kind, run);
  }

  pools(): NamedPool[] {
    return [{ node: 'primary', database: this.primary }];
  }

  async close(): Promise<void> {
    // the primary belongs to the caller
  }
}

/**
 * `reads` for one request: every node it picks is handed to the statements as that node's view
 * bounded by `deadline` (Database.until), so a request's reads end with its deadline.
 */
export function readsUntil(reads: ReadNodes, deadline: number): ReadNodes {
  return new DeadlineReads(reads, deadline);
}

class DeadlineReads implements ReadNodes {
  readonly engine: Database['kind'];
  readonly replicated: boolean;

  constructor(
    private readonly reads: ReadNodes,
    private readonly deadline: number,
  ) {
    this.engine = reads.engine;
    this.replicated = reads.replicated;
  }

  read<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T> {
    return this.reads.read(kind, (database) => run(database.until(this.deadline)));
  }

  readLong<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T> {
    return this.reads.readLong(kind, (database) => run(database.until(this.deadline)));
  }

  readPrimary<T>(kind: StatementKind, run: (database: Database) => Promise<T>): Promise<T> {
    return this.reads.readPrimary(kind, (database) => run(database.until(this.deadline)));
  }

  pools(): NamedPool[] {
    return this.reads.pools();
  }

  close(): Promise<void> {
    // the nodes belong to the reads it views
    return Promise.resolve();
  }
}
