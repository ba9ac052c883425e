import { resultRows, sql, type Database } from '@domain-index/db';
import { appendBatchEvents, appendSourceLoaded, recordBatchChanges } from '../events/batch-events';
import { ensureEventPartitions } from '@domain-index/events/partitions';
import { FirstLoad } from './first-load';
import { LISTING_COLUMN_LIST as columnNames, LISTING_COLUMNS } from './listing-columns';

/** What switching one source's batch did to the index. */
export interface SwitchCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  removed: number;
}

/** One staged batch to switch in: the source and its staging table. */
export interface StagedSource {
  sourceId: string;
  table: string;
}

type Transaction = Parameters<Parameters<Database['db']['transaction']>[0]>[0];

/** The columns a batch can change: all but the conflict key (source, domain_name). */
const valueColumns = LISTING_COLUMNS.map(([name]) => name).filter((name) => name !== 'domain_name' && name !== 'source');
const updateSet = valueColumns.map((name) => `"${name}" = excluded."${name}"`).join(', ');
const qualified = (alias: string, names: readonly string[]) => names.map((name) => `${alias}."${name}"`).join(', ');
/** The row's values as one record, so `is distinct from` compares them all, NULLs included. */
const valuesOf = (alias: string) => sql.raw(`(${qualified(alias, valueColumns)})`);
/** Every written column of the staging table, qualified for a statement that joins it. */
const stagedColumns = sql.raw(qualified('s', LISTING_COLUMNS.map(([name]) => name)));

/** Sessions that build a prepared first load's indexes side by side (one per core of the benchmark's server). */
const INDEX_BUILD_SESSIONS = 2;

/**
 * Makes each source's rows exactly its staged rows, all in one transaction: readers see the old
 * sets or the new sets, never a mix and never none. Advisory locks, taken in a fixed order,
 * serialise switches of one source across processes. A first load into an empty index takes
 * the bulk path of first-load.ts: on PostgreSQL prepared before the switch, its indexes built
 * from several sessions; on PGlite (one connection) inside it.
 */
export async function switchBatches(database: Database, batches: readonly StagedSource[], now: Date): Promise<SwitchCounts[]> {
  const at = now.toISOString();
  // the change feed's partition of the batch's day, made before the switch (partitions.ts)
  await ensureEventPartitions(database, now);
  const counts = await switchUncommitted(database, batches, at);
  await confirmCommitted(database, batches, at);
  return counts;
}

async function switchUncommitted(database: Database, batches: readonly StagedSource[], at: string): Promise<SwitchCounts[]> {
  // Two batches of one source must go through the upsert, the second replacing the first.
  const distinctSources = new Set(batches.map((batch) => batch.sourceId)).size === batches.length;
  if (distinctSources && database.kind === 'postgres') {
    const switched = await switchPreparedLoad(database, batches, at);
    if (switched !== undefined) return switched;
  }
  let load: FirstLoad | undefined;
  try {
    return await database.db.transaction(async (tx) => {
      await lockSources(tx, batches);
      load = distinctSources ? await FirstLoad.begin(tx, database) : undefined;
      const counts: SwitchCounts[] = [];
      for (const batch of batches) counts.push(load ? await appendSource(tx, batch, at, load.table) : await switchSource(tx, batch, at));
      await load?.finish(tx);
      return counts;
    });
  } catch (error) {
    // the load's table went with the rolled-back transaction
    load?.forget();
    throw error;
  }
}

/** A switch whose COMMIT did not take effect: the previous batch is still in place. */
export class SwitchNotCommittedError extends Error {
  override readonly name = 'SwitchNotCommittedError';
}

/**
 * Reads back, after the COMMIT, that every batch's record is there. PostgreSQL answers COMMIT
 * of a transaction that an error aborted with ROLLBACK and no error, and a pooler in
 * transaction mode that is not declared (DATABASE_URL without ?pgbouncer=true) made exactly
 * that happen: a failed named statement aborted the switch, its COMMIT "succeeded", and the
 * import said applied while listings held nothing new. A batch is applied only when its
 * record can be read back.
 */
async function confirmCommitted(database: Database, batches: readonly StagedSource[], at: string): Promise<void> {
  const sources = [...new Set(batches.map((batch) => batch.sourceId))];
  const found = await database.rows<{ source: string }>(sql`
    select source from source_batches
    where source in (${sql.join(sources.map((source) => sql`${source}`), sql`, `)}) and applied_at = ${at}::timestamptz`);
  if (found.length !== sources.length) {
    throw new SwitchNotCommittedError(
      'the switch transaction did not commit (the server rolled it back); the previous batch is kept. If DATABASE_URL points at PgBouncer (or another pooler) in transaction mode, add ?pgbouncer=true to it',
    );
  }
}

async function lockSources(tx: Transaction, batches: readonly StagedSource[]): Promise<void> {
  for (const sourceId of batches.map((batch) => batch.sourceId).sort()) {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`domain-index:switch:${sourceId}`}))`);
  }
}

/**
 * A first load prepared outside the switch transaction, so that its indexes can be built from
 * several sessions: the new table is created and committed, the rows appended, the indexes
 * built side by side, and only then does the switch transaction swap it in, if listings is
 * still empty. Readers see nothing of it before the swap (the table is not listings), and a
 * failure anywhere, or a listings that another import filled meanwhile, drops the new table and
 * leaves listings as it was; undefined then, or when listings is not empty or not replaceable,
 * and the batches take the ordinary path. A process killed in the middle leaves a table named
 * listings_load_*, as it leaves its staging tables, which nothing reads.
 */
async function switchPreparedLoad(database: Database, batches: readonly StagedSource[], at: string): Promise<SwitchCounts[] | undefined> {
  const load = await database.db.transaction((tx) => FirstLoad.begin(tx, database));
  if (load === undefined) return undefined;
  try {
    const counts: SwitchCounts[] = [];
    for (const batch of batches) counts.push(await database.db.transaction((tx) => appendRows(tx, batch, at, load.table)));
    await load.buildIndexes(database, INDEX_BUILD_SESSIONS);
    return await database.db.transaction(async (tx) => {
      await lockSources(tx, batches);
      if (!(await load.takeOver(tx))) return undefined;
      for (const [i, batch] of batches.entries()) {
        await recordBatch(tx, batch.sourceId, at);
        await appendSourceLoaded(tx, batch.sourceId, at, counts[i]!.inserted, batch.table);
      }
      return counts;
    });
  } finally {
    await load.discard();
  }
}

async function switchSource(tx: Transaction, { sourceId, table }: StagedSource, at: string): Promise<SwitchCounts> {
  const staging = sql.identifier(table);
  const [staged] = resultRows<{ rows: number; first: boolean }>(
    await tx.execute(sql`
      select (select count(*)::int from ${staging}) as rows,
             not exists (select 1 from listings where source = ${sourceId}) as first`),
  );
  const rows = staged?.rows ?? 0;
  if (staged?.first === true) {
    // A source's first batch: every row is new, and the change feed says so once (source.loaded).
    await tx.execute(sql`
      insert into listings (${sql.raw(columnNames)}, updated_at)
      select ${stagedColumns}, ${at}::timestamptz from ${staging} s order by s.domain_name`);
    await recordBatch(tx, sourceId, at);
    await appendSourceLoaded(tx, sourceId, at, rows, table);
    return { inserted: rows, updated: 0, unchanged: 0, removed: 0 };
  }
  // What the batch changes, recorded once (batch_changes): the switch applies exactly those rows
  // and the change feed copies them. An unchanged row is not written at all: a steady-state
  // sync costs its changes only (one hash join leaves the unchanged rows out; probing the unique
  // index for each of 1,000,000 unchanged rows took 11.7 s, against 2.6 s for the join).
  const changes = await recordBatchChanges(tx, sourceId, table, at, valuesOf);
  await tx.execute(sql`
    delete from listings l using batch_changes c
    where c.type = 'listing.removed' and l.source = ${sourceId} and l.domain_name = c.domain_name`);
  // In name order: most sort indexes are (key, domain_name, id) over a key with few distinct
  // values, so each key's insertion point then moves forward through pages already in memory.
  await tx.execute(sql`
    insert into listings (${sql.raw(columnNames)}, updated_at)
    select ${sql.raw(qualified('c', LISTING_COLUMNS.map(([name]) => name)))}, c.updated_at
    from batch_changes c
    where c.type <> 'listing.removed'
    order by c.domain_name
    on conflict (source, domain_name) do update set ${sql.raw(updateSet)}, updated_at = excluded.updated_at
    where ${valuesOf('listings')} is distinct from ${valuesOf('excluded')}`);
  await recordBatch(tx, sourceId, at);
  await appendBatchEvents(tx, at);
  return { inserted: changes.inserted, updated: changes.updated, unchanged: rows - changes.inserted - changes.updated, removed: changes.removed };
}

/**
 * The bulk path's switch of one source into the new, index-free table: every staged row is new,
 * so it is appended as it is, with no conflict to check and nothing to remove. In name order,
 * as the upsert writes it, so that both paths leave the same physical order.
 */
async function appendSource(tx: Transaction, batch: StagedSource, at: string, target: string): Promise<SwitchCounts> {
  const counts = await appendRows(tx, batch, at, target);
  await recordBatch(tx, batch.sourceId, at);
  await appendSourceLoaded(tx, batch.sourceId, at, counts.inserted, batch.table);
  return counts;
}

/** Appends a staged batch's rows, every one new, to a first load's table. */
async function appendRows(tx: Transaction, { table }: StagedSource, at: string, target: string): Promise<SwitchCounts> {
  const [appended] = resultRows<{ inserted: number }>(
    await tx.execute(sql`
      with appended as (
        insert into ${sql.identifier(target)} (${sql.raw(columnNames)}, updated_at)
        select ${sql.raw(columnNames)}, ${at}::timestamptz from ${sql.identifier(table)}
        order by domain_name
        returning 1
      )
      select count(*)::int as inserted from appended`),
  );
  return { inserted: appended?.inserted ?? 0, updated: 0, unchanged: 0, removed: 0 };
}

/** Every row of the source was seen in this batch: its time is their last_checked_at. */
async function recordBatch(tx: Transaction, sourceId: string, at: string): Promise<void> {
  await tx.execute(sql`
    insert into source_batches (source, applied_at) values (${sourceId}, ${at}::timestamptz)
    on conflict (source) do update set applied_at = excluded.applied_at`);
}
