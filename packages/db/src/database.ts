import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { PgDialect } from 'drizzle-orm/pg-core';
import { bound, boundByDeadline } from './bounded-client';
import { parseDatabaseUrl } from './database-url';
import * as schema from './schema';

/** The Drizzle schema of the whole database. */
export type Schema = typeof schema;
/** A Drizzle database over either driver: the same queries run on both. */
export type Drizzle = PgDatabase<PgQueryResultHKT, Schema>;

/** An open database: PostgreSQL through postgres.js, or embedded PGlite. */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Drizzle;
  /** The underlying driver, for what Drizzle does not cover (migrations, advisory locks). */
  readonly driver:
    | {
        readonly kind: 'postgres';
        readonly client: postgres.Sql;
        /** The URL the driver connects to (without `pgbouncer`). */
        readonly url: string;
        /** A pooler in transaction mode is in between: no session state may be relied on. */
        readonly pooled: boolean;
      }
    | { readonly kind: 'pglite'; readonly client: PGlite };
  /** Runs raw SQL and returns its rows, whatever the driver. */
  rows<T extends Record<string, unknown>>(query: SQL): Promise<T[]>;
  /**
   * Runs a rendered statement (a query builder's `toSQL()`) and returns its rows as arrays in
   * select order, as the driver parsed them: no per-column mapping, for the hot read paths that
   * select exactly the values they answer with.
   */
  values(statement: RenderedStatement): Promise<unknown[][]>;
  /**
   * This database with every statement sent through the returned view bounded by `deadline`
   * (epoch ms): a statement still running then is abandoned and cancelled on the server, one
   * made later fails at once, and waiting for a connection counts (DeadlineExceededError,
   * classified `unavailable`). A request's handlers use the view of its deadline; work that
   * must not die with a request (flushes, background loops) uses the database itself, which
   * has no deadline. The embedded database runs in-process and has none: its view is itself.
   */
  until(deadline: number): Database;
  /** The database a view bounds (itself when it is not one): what memos made per database key on. */
  readonly root: Database;
  /** The pool's connections and waiting statements; undefined for the embedded database. */
  poolStats(): PoolStats | undefined;
  /** Closes the pool or the embedded instance. */
  close(): Promise<void>;
}

/** A statement as Drizzle renders it: text with $n placeholders, and its parameters. */
export interface RenderedStatement {
  sql: string;
  params: unknown[];
  /**
   * Prepare it once per connection and reuse it: one round trip instead of two, and after five
   * runs PostgreSQL plans it once for all values. Only for a statement whose text never changes
   * and whose best plan does not depend on its values (postgres.js keeps every prepared text for
   * the connection's life). Without it each run is parsed and planned for its own values.
   */
  prepare?: boolean;
}

/** Where the data lives: a PostgreSQL URL, or else an embedded PGlite data directory. */
export interface DatabaseOptions {
  /**
   * `postgres://...`; when absent the embedded PGlite in `dataDir` is used. `?pgbouncer=true`
   * says a pooler in transaction mode is in between (see database-url.ts).
   */
  databaseUrl?: string | undefined;
  /** PGlite data directory, or `memory://` for a throwaway in-memory database. */
  dataDir?: string | undefined;
  /** Connection pool size for PostgreSQL. */
  maxConnections?: number | undefined;
  /**
   * PostgreSQL cancels any statement running longer (the API's query budget); none when unset.
   * Sent as a startup parameter on a direct connection; through a transaction-mode pooler,
   * which refuses it there, the deadlines of deadline.ts bound the statements instead.
   */
  statementTimeoutMs?: number | undefined;
  /** How long a new connection may take to open before the attempt fails (default 10 s). */
  connectTimeoutMs?: number | undefined;
  /**
   * How long an unused connection stays open (default 30 s): idle sessions are given back, so a
   * pooler's PAUSE (or a server's maintenance) is not held up by connections nobody uses.
   */
  idleTimeoutMs?: number | undefined;
  /**
   * PGlite only: start from this dump (a tarball from PGlite's `dumpDataDir`) instead of an empty
   * database, as PGlite's own `clone()` does. The suites copy a migrated database this way.
   */
  pgliteDump?: Blob | undefined;
}

/** How many connections of a PostgreSQL pool are in use and how many statements wait for one. */
export interface PoolStats {
  /** The pool's size. */
  max: number;
  /** Connections running statements or holding a transaction or a reservation. */
  inUse: number;
  /** Connections open and unused. */
  idle: number;
  /** Connections being opened. */
  connecting: number;
  /** Statements (or transactions) waiting for a connection. */
  waiting: number;
}

/** Opens PostgreSQL when `databaseUrl` is set, PGlite (with pg_trgm) otherwise. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl !== undefined) return openPostgres(options.databaseUrl, options);
  return openPglite(options.dataDir ?? './.data', options.pgliteDump);
}

/** What the patched postgres.js (patches/postgres@3.4.9.patch) tells of its queues. */
interface DriverPoolStats {
  max: number;
  connecting: number;
  open: number;
  busy: number;
  full: number;
  reserved: number;
  closed: number;
  waiting: number;
}

function openPostgres(rawUrl: string, options: DatabaseOptions): Database {
  const { url, pooled } = parseDatabaseUrl(rawUrl);
  const statementTimeoutMs = options.statementTimeoutMs;
  const driverClient = postgres(url, {
    max: options.maxConnections ?? 10,
    onnotice: () => undefined,
    // Statements are sent unnamed unless a hot path asks (RenderedStatement.prepare, never
    // through a pooler): a query's own option wins over this default only with our patch of the
    // driver (patches/postgres@3.4.9.patch; upstream, prepare: false here silently unprepared the
    // lookup and the key check, and a lookup cost 2.5 times as much). Through a transaction-mode pooler each statement may reach another
    // server connection, where a statement prepared by name on the first is unknown: a failed
    // Bind inside a transaction aborted it, and its COMMIT (a named statement by the driver's
    // default) then rolled it back silently. Unnamed, a transaction is safe through any pooler.
    prepare: false,
    connect_timeout: (options.connectTimeoutMs ?? 10_000) / 1000,
    idle_timeout: (options.idleTimeoutMs ?? 30_000) / 1000,
    // Seconds before reconnecting after failed attempts. The driver's default grows to 20 s, so
    // once PostgreSQL had been away for a few seconds, queries kept waiting up to 20 s after it
    // was back; at most 2 s here, which costs a down server a connection attempt per pool slot
    // every 2 s.
    backoff: (attempts: number) => Math.min(0.05 * 2 ** attempts, 2),
    connection: pooled
      ? // A pooler refuses startup parameters it does not track (PgBouncer: "unsupported startup
        // parameter"), and would not keep them per client anyway: only the name goes.
        { application_name: 'domain-index' }
      : {
          application_name: 'domain-index',
          // Short indexed statements: compiling them with JIT costs more than it could save.
          jit: 'off',
          // float8 values reach the API as text parsed by the driver (money, counts up to 2^53):
          // any value above 0 makes PostgreSQL write the exact shortest form (the default since
          // PostgreSQL 12, set here against a server or role that lowers it).
          extra_float_digits: 3,
          ...(statementTimeoutMs === undefined ? {} : { statement_timeout: statementTimeoutMs }),
        },
  });
  const stats = () => {
    const pool = (driverClient as unknown as { stats: () => DriverPoolStats }).stats();
    return { max: pool.max, inUse: pool.busy + pool.full + pool.reserved, idle: pool.open, connecting: pool.connecting, waiting: pool.waiting };
  };
  return new PostgresDatabase({ client: driverClient, url, pooled, stats, close: () => driverClient.end({ timeout: 5 }) }, undefined, drizzlePostgres(driverClient, { schema }), undefined);
}

/** What a PostgreSQL database and its deadline views share. */
interface PostgresPool {
  /** The driver's client, unbound: each view binds it to its own deadline. */
  client: postgres.Sql;
  url: string;
  pooled: boolean;
  stats: () => PoolStats;
  close: () => Promise<void>;
}

/** Renders raw SQL for `rows` without a Drizzle instance (a view makes its own only when asked). */
const dialect = new PgDialect();

/**
 * A Database over the pool's client: the database itself (no deadline), or a view whose
 * statements must finish by `deadline`. A view is made per request, so it is cheap: a class (no
 * closures made per instance); its hot paths (`values`, `rows`) bind each statement to the
 * deadline directly, and the bound client (a Proxy, for transactions and Drizzle) and its
 * Drizzle instance are made only if a handler asks for `driver` or `db`.
 */
class PostgresDatabase implements Database {
  readonly kind = 'postgres';
  readonly root: Database;
  private drizzle: Drizzle | undefined;
  private boundClient: postgres.Sql | undefined;

  constructor(
    private readonly pool: PostgresPool,
    private readonly deadline: number | undefined,
    drizzle: Drizzle | undefined,
    root: Database | undefined,
  ) {
    this.drizzle = drizzle;
    this.root = root ?? this;
  }

  /** The client this database's statements go through: the pool's, bound by the view's deadline. */
  private get client(): postgres.Sql {
    if (this.deadline === undefined) return this.pool.client;
    this.boundClient ??= boundByDeadline(this.pool.client, this.deadline);
    return this.boundClient;
  }

  get driver(): Extract<Database['driver'], { kind: 'postgres' }> {
    return { kind: 'postgres', client: this.client, url: this.pool.url, pooled: this.pool.pooled };
  }

  get db(): Drizzle {
    // a view's own: no schema, since nothing uses Drizzle's relational queries and reading it costs
    this.drizzle ??= drizzlePostgres(this.client) as unknown as Drizzle;
    return this.drizzle;
  }

  async rows<T extends Record<string, unknown>>(query: SQL): Promise<T[]> {
    const rendered = dialect.sqlToQuery(query);
    const made = this.pool.client.unsafe(rendered.sql, rendered.params as postgres.ParameterOrJSON<never>[]);
    return [...(await this.bounded(made))] as unknown as T[];
  }

  async values(statement: RenderedStatement): Promise<unknown[][]> {
    const prepare = !this.pool.pooled && statement.prepare === true;
    const made = this.pool.client.unsafe(statement.sql, statement.params as postgres.ParameterOrJSON<never>[], { prepare }).values();
    return [...(await this.bounded(made))];
  }

  /** A statement of this database, bound by its deadline when it is a view. */
  private bounded<Q>(made: Q): Q {
    return this.deadline === undefined ? made : bound(made, this.deadline);
  }

  until(deadline: number): Database {
    return new PostgresDatabase(this.pool, deadline, undefined, this.root);
  }

  poolStats(): PoolStats {
    return this.pool.stats();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

async function openPglite(dataDir: string, dump: Blob | undefined): Promise<Database> {
  const client = new PGlite(dataDir, { extensions: { pg_trgm }, ...(dump !== undefined && { loadDataDir: dump }) });
  await client.waitReady;
  const db = drizzlePglite(client, { schema });
  const database: Database = {
    kind: 'pglite',
    db,
    driver: { kind: 'pglite', client },
    rows: async <T extends Record<string, unknown>>(query: SQL) => (await db.execute(query)).rows as T[],
    values: async (statement) => (await client.query<unknown[]>(statement.sql, statement.params, { rowMode: 'array' })).rows,
    // PGlite runs in-process, one statement at a time: nothing to bound, the view is itself
    until: () => database,
    get root() {
      return database;
    },
    poolStats: () => undefined,
    close: () => client.close(),
  };
  return database;
}
