import { randomBytes } from 'node:crypto';
import { resultRows, sql, type Database } from '@domain-index/db';
import { FeedSyntaxError, parseFeedRecord, readFeed, type SourceConfig } from '@domain-index/indexer';
import type { Clock } from '../clock';
import { LISTING_COLUMNS, type StagedListing } from './listing-columns';
import { toStagedListing } from './to-staged-listing';

/** Share of bad rows above which a batch is rejected whole (decisions.md: 5%). */
export const DEFAULT_MAX_REJECTED_RATIO = 0.05;
/** Rows sent to the staging table per statement. */
const CHUNK_ROWS = 2_000;
/** At most this many rejected lines are kept for the summary; all are reported as they come. */
const KEPT_REJECTIONS = 100;

/** A bad row: where it was and why it was skipped. */
export interface RejectedRow {
  line: number;
  reason: string;
}

/** What one batch did. */
export interface ImportSummary {
  source: string;
  /** `applied`: the source now holds exactly the batch's valid rows; `rejected`: it kept the previous batch. */
  outcome: 'applied' | 'rejected';
  /** Why a batch was rejected. */
  reason?: string;
  rowsRead: number;
  inserted: number;
  updated: number;
  unchanged: number;
  removed: number;
  rejected: number;
  /** The first rejected rows (all of them went to `onRejected`). */
  rejectedRows: RejectedRow[];
  seconds: number;
}

export interface ImportOptions {
  database: Database;
  source: SourceConfig;
  input: NodeJS.ReadableStream | AsyncIterable<string | Buffer>;
  format?: 'jsonl' | 'csv';
  clock: Clock;
  maxRejectedRatio?: number;
  onRejected?: (row: RejectedRow) => void;
  /** Called after each chunk is staged, with the rows read so far. */
  onProgress?: (rowsRead: number) => void;
}

const stagingColumns = LISTING_COLUMNS.map(([name, type]) => `"${name}" ${type}`).join(', ');
const columnNames = LISTING_COLUMNS.map(([name]) => `"${name}"`).join(', ');
const updateSet = LISTING_COLUMNS.filter(([name]) => name !== 'domain_name' && name !== 'source')
  .map(([name]) => `"${name}" = excluded."${name}"`)
  .join(', ');

/**
 * Imports one batch: the complete current listing set of one marketplace. The feed is streamed
 * into a staging table (never held in memory), validated row by row, and then switched in one
 * transaction: readers see the source's old rows or its new rows, never a mix and never none.
 * Too many bad rows (or no valid row at all) reject the batch and the index keeps the old set.
 */
export async function importBatch(options: ImportOptions): Promise<ImportSummary> {
  const started = performance.now();
  const { database, source } = options;
  const maxRatio = options.maxRejectedRatio ?? DEFAULT_MAX_REJECTED_RATIO;
  const staging = `listing_import_${randomBytes(6).toString('hex')}`;
  const summary: ImportSummary = {
    source: source.id,
    outcome: 'rejected',
    rowsRead: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    removed: 0,
    rejected: 0,
    rejectedRows: [],
    seconds: 0,
  };
  const reject = (row: RejectedRow) => {
    summary.rejected += 1;
    if (summary.rejectedRows.length < KEPT_REJECTIONS) summary.rejectedRows.push(row);
    options.onRejected?.(row);
  };
  const finish = (outcome: ImportSummary['outcome'], reason?: string): ImportSummary => {
    summary.outcome = outcome;
    if (reason !== undefined) summary.reason = reason;
    summary.seconds = Math.round((performance.now() - started) / 10) / 100;
    return summary;
  };

  await database.db.execute(sql.raw(`create unlogged table "${staging}" (line integer not null, ${stagingColumns})`));
  try {
    try {
      await stageFeed(options, staging, summary, reject);
    } catch (error) {
      if (error instanceof FeedSyntaxError) return finish('rejected', `the feed is unreadable from ${error.message}`);
      throw error;
    }
    const duplicates = await dropDuplicates(database, staging);
    for (const duplicate of duplicates.sample) reject(duplicate);
    summary.rejected += duplicates.count - duplicates.sample.length;

    const valid = summary.rowsRead - summary.rejected;
    if (summary.rowsRead > 0 && summary.rejected / summary.rowsRead > maxRatio) {
      const percent = ((summary.rejected / summary.rowsRead) * 100).toFixed(1);
      return finish('rejected', `${summary.rejected} of ${summary.rowsRead} rows (${percent}%) are bad, over the ${maxRatio * 100}% limit; the previous batch is kept`);
    }
    if (valid <= 0) return finish('rejected', 'the feed has no valid row; the previous batch is kept');

    const counts = await switchSource(database, staging, source.id, options.clock.now());
    Object.assign(summary, counts);
    if (counts.inserted + counts.removed > 10_000) await database.db.execute(sql`analyze listings`);
    return finish('applied');
  } finally {
    await database.db.execute(sql.raw(`drop table if exists "${staging}"`));
  }
}

/** Streams the feed into the staging table in chunks, rejecting bad rows as they come. */
async function stageFeed(
  options: ImportOptions,
  staging: string,
  summary: ImportSummary,
  reject: (row: RejectedRow) => void,
): Promise<void> {
  const format = options.format ?? options.source.format;
  let chunk: (StagedListing & { line: number })[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    const json = JSON.stringify(chunk);
    chunk = [];
    await options.database.db.execute(
      sql`insert into ${sql.identifier(staging)} (line, ${sql.raw(columnNames)})
          select line, ${sql.raw(columnNames)}
          from json_to_recordset(${json}::json) as r(line integer, ${sql.raw(stagingColumns)})`,
    );
    options.onProgress?.(summary.rowsRead);
  };
  for await (const item of readFeed(options.input, format)) {
    summary.rowsRead += 1;
    if ('error' in item) {
      reject({ line: item.line, reason: item.error });
      continue;
    }
    const parsed = parseFeedRecord(item.record, options.source.fieldMapping);
    if (!parsed.ok) {
      reject({ line: item.line, reason: parsed.reason });
      continue;
    }
    if (parsed.row.source !== null && parsed.row.source !== options.source.id) {
      reject({ line: item.line, reason: `source ${parsed.row.source} does not match the batch's source ${options.source.id}` });
      continue;
    }
    const staged = toStagedListing(parsed.row, options.source.id);
    if (!staged.ok) {
      reject({ line: item.line, reason: staged.reason });
      continue;
    }
    chunk.push({ line: item.line, ...staged.listing });
    if (chunk.length >= CHUNK_ROWS) await flush();
  }
  await flush();
}

/** A name listed twice in one batch keeps its last line; the earlier lines are bad rows. */
async function dropDuplicates(
  database: Database,
  staging: string,
): Promise<{ count: number; sample: RejectedRow[] }> {
  const table = sql.identifier(staging);
  const dropped = await database.rows<{ line: number; domain_name: string; kept_line: number }>(sql`
    with ranked as (
      select line, domain_name, max(line) over (partition by domain_name) as kept_line from ${table}
    ),
    doomed as (
      delete from ${table} s using ranked r
      where s.line = r.line and r.line < r.kept_line
      returning s.line, s.domain_name, r.kept_line
    )
    select line, domain_name, kept_line from doomed order by line`);
  return {
    count: dropped.length,
    sample: dropped.slice(0, KEPT_REJECTIONS).map((row) => ({
      line: row.line,
      reason: `duplicate of ${row.domain_name} at line ${row.kept_line}; the later line is used`,
    })),
  };
}

/**
 * Makes the source's rows exactly the staged rows in one transaction. An advisory lock
 * serialises switches of one source across processes.
 */
async function switchSource(
  database: Database,
  staging: string,
  sourceId: string,
  now: Date,
): Promise<Pick<ImportSummary, 'inserted' | 'updated' | 'unchanged' | 'removed'>> {
  const table = sql.identifier(staging);
  const at = now.toISOString();
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`domain-index:switch:${sourceId}`}))`);
    const [counts] = resultRows<{ inserted: number; updated: number; unchanged: number }>(
      await tx.execute(sql`
        select count(*) filter (where l.id is null)::int as inserted,
               count(*) filter (where l.id is not null and l.content_hash <> s.content_hash)::int as updated,
               count(*) filter (where l.content_hash = s.content_hash)::int as unchanged
        from ${table} s
        left join listings l on l.source = ${sourceId} and l.domain_name = s.domain_name`),
    );
    const [removed] = resultRows<{ removed: number }>(
      await tx.execute(sql`
        with gone as (
          delete from listings l
          where l.source = ${sourceId}
            and not exists (select 1 from ${table} s where s.domain_name = l.domain_name)
          returning 1
        )
        select count(*)::int as removed from gone`),
    );
    await tx.execute(sql`
      insert into listings (${sql.raw(columnNames)}, last_checked_at, updated_at)
      select ${sql.raw(columnNames)}, ${at}::timestamptz, ${at}::timestamptz from ${table}
      on conflict (source, domain_name) do update set ${sql.raw(updateSet)},
        last_checked_at = excluded.last_checked_at,
        updated_at = case when listings.content_hash = excluded.content_hash
                          then listings.updated_at else excluded.updated_at end`);
    return {
      inserted: counts?.inserted ?? 0,
      updated: counts?.updated ?? 0,
      unchanged: counts?.unchanged ?? 0,
      removed: removed?.removed ?? 0,
    };
  });
}
