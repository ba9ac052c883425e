import { randomBytes } from 'node:crypto';
import { resultRows, sql, type Database } from '@domain-index/db';
import { adoptWorkTable, createWorkTable, dropWorkTable, forgetWorkTable } from './work-tables';

type Transaction = Parameters<Parameters<Database['db']['transaction']>[0]>[0];

/** The listings table's indexes as they stand, to build the same ones on the loaded table. */
interface IndexPlan {
  /** The index's name on listings, which the loaded table's index takes at the swap. */
  name: string;
  /** Its name on the loaded table until the swap (index names are unique per schema). */
  loadName: string;
  /** CREATE INDEX for the loaded table. */
  create: string;
  /**
   * The statistics targets set on its columns (migration 0027: the bigrams'), set again on the
   * loaded table's index once it is built: CREATE INDEX from its definition leaves the default.
   */
  targets: string[];
  /** The primary key or unique constraint that owns it, added back over it at the swap. */
  constraint: { name: string; kind: 'PRIMARY KEY' | 'UNIQUE' } | undefined;
}

/**
 * The bulk path of a first load into an empty index: the rows go into a new table without
 * indexes, its indexes are built once the rows are in, and it replaces the empty listings
 * table at the end of the transaction.
 *
 * Why a new table rather than dropping the indexes of listings: dropping an index takes an
 * ACCESS EXCLUSIVE lock until commit, and PostgreSQL sends that lock to every streaming
 * replica, where each search waits for it: a first load of 1,000,000 rows would stall searches
 * on hot replicas for its whole length (about 45 s), past the query timeout. Here listings is
 * only held in SHARE ROW EXCLUSIVE mode while the load runs (other writers wait, readers do not,
 * and replicas never see it), and ACCESS EXCLUSIVE only for the swap: a drop, renames and two
 * constraints over built indexes, a few milliseconds.
 *
 * Building the indexes after the rows is about three times faster than entering every row into
 * seventeen btrees and two GIN indexes (200,000 rows: 5.6 s of index builds against 14.5 s of
 * index maintenance), and appending without the unique index and its conflict check took
 * 1,000,000 rows from 15.3 s to 6.2 s.
 */
export class FirstLoad {
  private constructor(
    private readonly database: Database,
    /** The table the rows are appended to. */
    readonly table: string,
    private readonly indexes: readonly IndexPlan[],
    private readonly grants: readonly string[],
    /** The statements that make listings' extended statistics objects again, with their targets. */
    private readonly statistics: readonly string[],
  ) {}

  /**
   * Starts a first load when listings is empty and replacing it loses nothing: this role owns
   * it (the new table would be this role's, and the API's role could lose its access), and no
   * trigger, rule, policy, column privilege, publication, non-default replica identity or other
   * object that depends on it (a view, a foreign key) would be dropped or left behind. Otherwise
   * the rows take the ordinary path. Returns undefined, having changed nothing, then. Holds
   * listings in SHARE ROW EXCLUSIVE mode, so that it stays empty until the swap.
   */
  static async begin(tx: Transaction, database: Database): Promise<FirstLoad | undefined> {
    if (!(await isEmpty(tx))) return undefined;
    await tx.execute(sql`lock table listings in share row exclusive mode`);
    // another process may have loaded rows between the check and the lock
    if (!(await isEmpty(tx)) || !(await isReplaceable(tx))) return undefined;

    const table = `listings_load_${randomBytes(6).toString('hex')}`;
    // Columns, defaults, the identity, generated columns, CHECK constraints, storage and
    // comments; not the indexes (built after the rows) nor the options and statistics targets
    // (set below), which LIKE does not copy, nor the extended statistics objects (made again
    // after the swap, below).
    // A work table (work-tables.ts): a process killed before the swap leaves it behind, with a
    // lease that lapses, and the next import drops it.
    await createWorkTable(
      database,
      table,
      sql.raw(`create table "${table}" (like listings including all excluding indexes excluding statistics)`),
      tx,
    );
    const options = resultRows<{ options: string | null }>(
      await tx.execute(
        sql`select array_to_string(reloptions, ', ') as options from pg_class where oid = 'listings'::regclass`,
      ),
    )[0]?.options;
    if (options) await tx.execute(sql.raw(`alter table "${table}" set (${options})`));
    const targets = resultRows<{ column: string; target: number }>(
      await tx.execute(sql`
        select quote_ident(attname) as column, attstattarget as target from pg_attribute
        where attrelid = 'listings'::regclass and attnum > 0 and not attisdropped and attstattarget >= 0`),
    );
    for (const { column, target } of targets)
      await tx.execute(
        sql.raw(`alter table "${table}" alter column ${column} set statistics ${target}`),
      );

    const indexes = resultRows<{
      name: string;
      definition: string;
      constraint_name: string | null;
      constraint_type: string | null;
      targets: string[];
    }>(
      await tx.execute(sql`
        select quote_ident(c.relname) as name, pg_get_indexdef(i.indexrelid) as definition,
               quote_ident(k.conname) as constraint_name, k.contype::text as constraint_type,
               array(select format('alter column %s set statistics %s', a.attnum, a.attstattarget)
                     from pg_attribute a where a.attrelid = i.indexrelid and a.attstattarget >= 0
                     order by a.attnum) as targets
        from pg_index i
        join pg_class c on c.oid = i.indexrelid
        left join pg_constraint k on k.conindid = i.indexrelid and k.conrelid = i.indrelid and k.contype in ('p', 'u')
        where i.indrelid = 'listings'::regclass
        order by k.contype nulls last, c.relname`),
    );
    const plans = indexes.map((index, i): IndexPlan => {
      const loadName = `${table}_${i}`;
      // CREATE [UNIQUE] INDEX name ON [public.]listings USING ...: the same index, on the loaded table
      const create = index.definition.replace(
        /^(CREATE (?:UNIQUE )?INDEX )\S+( ON (?:ONLY )?)(?:\S+\.)?listings( USING )/,
        `$1"${loadName}"$2"${table}"$3`,
      );
      if (create === index.definition)
        throw new Error(`unexpected index definition: ${index.definition}`);
      const constraint =
        index.constraint_name === null
          ? undefined
          : {
              name: index.constraint_name,
              kind: index.constraint_type === 'p' ? ('PRIMARY KEY' as const) : ('UNIQUE' as const),
            };
      const targets = index.targets.map((alteration) => `alter index "${loadName}" ${alteration}`);
      return { name: index.name, loadName, create, targets, constraint };
    });
    // Privileges granted on listings (a read-only role of the API, say) go to its successor.
    const grants = resultRows<{ grant: string }>(
      await tx.execute(sql`
        select format('grant %s on listings to %s%s', a.privilege_type,
                      case when a.grantee = 0 then 'public' else quote_ident(r.rolname) end,
                      case when a.is_grantable then ' with grant option' else '' end) as grant
        from pg_class c, aclexplode(c.relacl) a
        left join pg_roles r on r.oid = a.grantee
        where c.oid = 'listings'::regclass and a.grantee <> c.relowner`),
    ).map((row) => row.grant);
    // Extended statistics objects (the not-ended rule's, status with bid). LIKE would copy them
    // under names PostgreSQL makes from the load table's name and without their targets: a
    // migration that names one would then fail, and a list of 1000 pairs would shrink to 100.
    // They are made again under their own names once the loaded table is listings.
    const statistics = resultRows<{ create: string; target: string | null }>(
      await tx.execute(sql`
        select pg_get_statisticsobjdef(s.oid) as create,
               case when coalesce(s.stxstattarget::int, -1) >= 0
                    then format('alter statistics %I.%I set statistics %s', n.nspname, s.stxname, s.stxstattarget) end as target
        from pg_statistic_ext s join pg_namespace n on n.oid = s.stxnamespace
        where s.stxrelid = 'listings'::regclass order by s.stxname`),
    ).flatMap((row) => (row.target === null ? [row.create] : [row.create, row.target]));
    if (database.kind === 'postgres') await raiseMaintenanceMemory(tx);
    return new FirstLoad(database, table, plans, grants, statistics);
  }

  /**
   * Builds the indexes on the loaded rows in the switch's own transaction, then puts the loaded
   * table in place of listings (`swap`).
   */
  async finish(tx: Transaction): Promise<void> {
    for (const index of this.indexes) {
      await tx.execute(sql.raw(index.create));
      for (const target of index.targets) await tx.execute(sql.raw(target));
    }
    await this.swap(tx);
  }

  /**
   * Builds the indexes of a loaded table that is committed (a prepared load), from `sessions`
   * sessions side by side, the two GIN indexes first: they take the longest and PostgreSQL
   * builds them on one core, while each btree build already has parallel workers. Stops taking
   * new indexes once one build has failed, and throws that failure.
   */
  async buildIndexes(database: Database, sessions: number): Promise<void> {
    const queue = [...this.indexes].sort(
      (a, b) => Number(/ using gin /i.test(b.create)) - Number(/ using gin /i.test(a.create)),
    );
    let failure: Error | undefined;
    await Promise.all(
      Array.from({ length: sessions }, async () => {
        for (
          let index = queue.shift();
          index !== undefined && failure === undefined;
          index = queue.shift()
        ) {
          try {
            await database.db.transaction(async (tx) => {
              await raiseMaintenanceMemory(tx);
              await tx.execute(sql.raw(index.create));
              for (const target of index.targets) await tx.execute(sql.raw(target));
            });
          } catch (error) {
            failure ??= error instanceof Error ? error : new Error(String(error));
          }
        }
      }),
    );
    if (failure !== undefined) throw failure;
  }

  /**
   * Takes the place of listings with a prepared load, in the switch transaction: when listings
   * is still empty and replaceable (another process may have loaded it meanwhile), swaps the
   * tables and returns true; otherwise changes nothing and returns false, and the caller
   * switches the batch by the ordinary path.
   */
  async takeOver(tx: Transaction): Promise<boolean> {
    await tx.execute(sql`lock table listings in share row exclusive mode`);
    if (!(await isEmpty(tx)) || !(await isReplaceable(tx))) return false;
    await this.swap(tx);
    return true;
  }

  /** Drops the loaded table if it is still there: a failed or abandoned prepared load. */
  /** After the transaction that created the table rolled back: nothing is left to drop. */
  forget(): void {
    forgetWorkTable(this.database, this.table);
  }

  async discard(): Promise<void> {
    await dropWorkTable(this.database, this.table);
  }

  /**
   * Puts the loaded table in place of listings under the original names of the table, its
   * identity sequence, its indexes and constraints, with its grants and statistics objects.
   */
  private async swap(tx: Transaction): Promise<void> {
    // From here to the commit: milliseconds of ACCESS EXCLUSIVE.
    await tx.execute(sql`lock table listings in access exclusive mode`);
    await tx.execute(sql`drop table listings`);
    await tx.execute(sql.raw(`alter table "${this.table}" rename to listings`));
    const sequence = resultRows<{ name: string | null }>(
      await tx.execute(sql`select pg_get_serial_sequence('listings', 'id') as name`),
    )[0]?.name;
    if (sequence) await tx.execute(sql.raw(`alter sequence ${sequence} rename to listings_id_seq`));
    for (const index of this.indexes) {
      if (index.constraint === undefined)
        await tx.execute(sql.raw(`alter index "${index.loadName}" rename to ${index.name}`));
      // the constraint takes the index, renaming it to the constraint's name
      else
        await tx.execute(
          sql.raw(
            `alter table listings add constraint ${index.constraint.name} ${index.constraint.kind} using index "${index.loadName}"`,
          ),
        );
    }
    for (const grant of this.grants) await tx.execute(sql.raw(grant));
    // empty until the next ANALYZE, as the copies LIKE would have made were
    for (const statement of this.statistics) await tx.execute(sql.raw(statement));
    await adoptWorkTable(this.database, this.table, tx);
  }
}

async function isEmpty(tx: Transaction): Promise<boolean> {
  return (
    resultRows<{ empty: boolean }>(
      await tx.execute(sql`select not exists (select 1 from listings) as empty`),
    )[0]?.empty === true
  );
}

/** GIN builds sort their keys in memory; PostgreSQL's 64 MB default makes them spill to disk. */
async function raiseMaintenanceMemory(tx: Transaction): Promise<void> {
  await tx.execute(sql`
    select set_config('maintenance_work_mem', '512MB', true)
    where pg_size_bytes(current_setting('maintenance_work_mem')) < pg_size_bytes('512MB')`);
}

/**
 * Whether replacing listings loses nothing (see `FirstLoad.begin`): this role owns it, and no
 * trigger, rule, policy, column privilege, publication, non-default replica identity or
 * dependent object would be dropped or left behind.
 */
async function isReplaceable(tx: Transaction): Promise<boolean> {
  const [replaceable] = resultRows<{ ok: boolean }>(
    await tx.execute(sql`
        select c.relowner = (select oid from pg_roles where rolname = current_user)
           and c.relreplident = 'd'
           and not exists (select 1 from pg_trigger where tgrelid = c.oid and not tgisinternal)
           and not exists (select 1 from pg_rewrite where ev_class = c.oid)
           and not exists (select 1 from pg_policy where polrelid = c.oid)
           and not exists (select 1 from pg_attribute where attrelid = c.oid and attacl is not null)
           and not exists (select 1 from pg_publication_rel where prrelid = c.oid)
           -- a view's rule, a foreign key (LIKE copies none), a function body that names it;
           -- not its own CHECK constraints and generated columns, which LIKE copies
           and not exists (
             select 1 from pg_depend d
             where d.refclassid = 'pg_class'::regclass and d.refobjid = c.oid and d.deptype = 'n'
               and not (d.classid = 'pg_constraint'::regclass
                        and exists (select 1 from pg_constraint k where k.oid = d.objid and k.conrelid = c.oid and k.contype <> 'f'))
               and not (d.classid = 'pg_attrdef'::regclass
                        and exists (select 1 from pg_attrdef a where a.oid = d.objid and a.adrelid = c.oid)))
           as ok
        from pg_class c where c.oid = 'listings'::regclass`),
  );
  return replaceable?.ok === true;
}
