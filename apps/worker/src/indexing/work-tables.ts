import { hostname } from 'node:os';
import { sql, type Database, type SQL } from '@domain-index/db';
import { processRuns } from '@domain-index/runtime/process-runs';

/** A work table's lease: how long its process vouches for it without renewing. */
const LEASE_SECONDS = 600;
/** How often a live process renews the leases of the work tables it holds. */
const RENEW_EVERY_MS = 60_000;

type Executor = Pick<Database['db'], 'execute'>;

/** The work tables this process holds in one database, and the timer renewing their leases. */
class Holdings {
  readonly names = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly database: Database) {}

  hold(name: string): void {
    this.names.add(name);
    // unref: a lease must never keep a finished process alive
    this.timer ??= setInterval(() => void this.renew(), RENEW_EVERY_MS).unref();
  }

  letGo(name: string): void {
    this.names.delete(name);
    if (this.names.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private async renew(): Promise<void> {
    if (this.names.size === 0) return;
    const names = sql.join([...this.names].map((name) => sql`${name}`), sql`, `);
    // A failed renewal is retried at the next tick; ten minutes of failures let the lease lapse.
    await this.database.db.execute(sql`update work_tables set lease_until = now() + make_interval(secs => ${LEASE_SECONDS}) where name in (${names})`).catch(() => undefined);
  }
}

const holdings = new WeakMap<Database, Holdings>();

function holdingsOf(database: Database): Holdings {
  let held = holdings.get(database);
  if (held === undefined) {
    held = new Holdings(database);
    holdings.set(database, held);
  }
  return held;
}

/**
 * Creates a work table (`create` is its CREATE statement) and registers its lease in the same
 * transaction (`tx`, or one of its own), so the table never exists without a lease; this
 * process renews the lease until `releaseWorkTable`. Once the transaction commits, a process
 * that dies leaves a table whose lease runs out, which `dropAbandonedWorkTables` removes.
 */
export async function createWorkTable(database: Database, name: string, create: SQL, tx?: Executor): Promise<void> {
  const register = async (executor: Executor) => {
    await executor.execute(create);
    await executor.execute(
      sql`insert into work_tables (name, lease_until, owner_host, owner_pid) values (${name}, now() + make_interval(secs => ${LEASE_SECONDS}), ${hostname()}, ${process.pid})`,
    );
  };
  if (tx !== undefined) await register(tx);
  else await database.db.transaction(register);
  holdingsOf(database).hold(name);
}

/** Drops a work table of this process (if it is still there) and its lease. */
export async function dropWorkTable(database: Database, name: string): Promise<void> {
  try {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`drop table if exists "${name}"`));
      await tx.execute(sql`delete from work_tables where name = ${name}`);
    });
  } finally {
    // not renewed any more: if the drop failed, the lapsed lease lets the next start drop it
    holdingsOf(database).letGo(name);
  }
}

/** Forgets a work table that became something else in `tx` (a first load's table swapped in as listings). */
export async function adoptWorkTable(database: Database, name: string, tx: Executor): Promise<void> {
  await tx.execute(sql`delete from work_tables where name = ${name}`);
  holdingsOf(database).letGo(name);
}

/** Stops renewing a work table whose creating transaction rolled back (it does not exist). */
export function forgetWorkTable(database: Database, name: string): void {
  holdingsOf(database).letGo(name);
}

/**
 * Drops the work tables that no live process vouches for: a staging table (`listing_import_*`)
 * or a first load's table (`listings_load_*`) whose lease ran out (its process died or hangs),
 * or that has no lease at all (left by a version that did not register them). Returns their
 * names. Safe to run beside running imports: a live import's tables have a current lease.
 */
export async function dropAbandonedWorkTables(database: Database): Promise<string[]> {
  const candidates = await database.rows<{ name: string; owner_host: string | null; owner_pid: number | null; leased: boolean }>(sql`
    select c.relname as name, w.owner_host, w.owner_pid, coalesce(w.lease_until > now(), false) as leased
    from pg_class c left join work_tables w on w.name = c.relname
    where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'
      and (c.relname like 'listing\\_import\\_%' or c.relname like 'listings\\_load\\_%')
    order by c.relname`);
  // A lease still running is taken at its word, except for a process of this machine that is
  // gone: a killed import's tables go at the very next start, not ten minutes later.
  const abandoned = candidates.filter(
    (table) => !table.leased || (table.owner_host === hostname() && table.owner_pid !== null && table.owner_pid !== process.pid && !processRuns(table.owner_pid)),
  );
  for (const { name } of abandoned) {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`drop table if exists "${name.replace(/"/g, '""')}"`));
      await tx.execute(sql`delete from work_tables where name = ${name}`);
    });
  }
  // leases of tables that are gone (dropped by hand, or by a restore)
  await database.db.execute(sql`
    delete from work_tables w
    where w.lease_until < now()
      and not exists (select 1 from pg_class c where c.relname = w.name and c.relnamespace = current_schema()::regnamespace)`);
  return abandoned.map(({ name }) => name);
}
