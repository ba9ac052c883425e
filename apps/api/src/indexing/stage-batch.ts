import { randomBytes } from 'node:crypto';
import { sql, type Database } from '@domain-index/db';
import { parseFeedRecord, readFeed, type FeedItem, type SourceConfig } from '@domain-index/indexer';
import { LISTING_COLUMNS, type StagedListing } from './listing-columns';
import { toStagedListing } from './to-staged-listing';

/** Rows sent to the staging table per statement. */
const CHUNK_ROWS = 2_000;
/** At most this many duplicate lines are described; all of them are counted. */
const DESCRIBED_DUPLICATES = 100;

/** A bad row: where it was and why it was skipped. */
export interface RejectedRow {
  line: number;
  reason: string;
}

/** Where a batch's rows come from: feed text, or records already read (the seed generator). */
export type BatchInput =
  | { input: NodeJS.ReadableStream | AsyncIterable<string | Buffer>; format?: 'jsonl' | 'csv' }
  | { records: AsyncIterable<FeedItem> };

export const stagingColumns = LISTING_COLUMNS.map(([name, type]) => `"${name}" ${type}`).join(', ');
export const columnNames = LISTING_COLUMNS.map(([name]) => `"${name}"`).join(', ');

/** Creates an unlogged, index-free table for one batch; the caller drops it. */
export async function createStagingTable(database: Database): Promise<string> {
  const table = `listing_import_${randomBytes(6).toString('hex')}`;
  await database.db.execute(sql.raw(`create unlogged table "${table}" (line integer not null, ${stagingColumns})`));
  return table;
}

/**
 * Streams a batch into its staging table in chunks, validating and deriving every row on the
 * way and rejecting bad rows as they come. Returns the number of rows read.
 */
export async function stageFeed(
  database: Database,
  table: string,
  source: SourceConfig,
  from: BatchInput,
  reject: (row: RejectedRow) => void,
  onProgress?: (rowsRead: number) => void,
): Promise<number> {
  const items = 'records' in from ? from.records : readFeed(from.input, from.format ?? source.format);
  let rowsRead = 0;
  let chunk: (StagedListing & { line: number })[] = [];
  // One chunk is inserted while the next is read and validated, so that PostgreSQL and this
  // thread work side by side rather than in turn; at most two chunks are held.
  let inserting: Promise<void> = Promise.resolve();
  const flush = async () => {
    if (chunk.length === 0) return;
    const json = JSON.stringify(chunk);
    const rowsSoFar = rowsRead;
    chunk = [];
    await inserting;
    inserting = database.db
      .execute(
        sql`insert into ${sql.identifier(table)} (line, ${sql.raw(columnNames)})
            select line, ${sql.raw(columnNames)}
            from json_to_recordset(${json}::json) as r(line integer, ${sql.raw(stagingColumns)})`,
      )
      .then(() => onProgress?.(rowsSoFar));
    // A failure is thrown where the insert is awaited: on the next flush, or at the end.
    inserting.catch(() => undefined);
  };
  const stageItems = async () => {
    for await (const item of items) {
      rowsRead += 1;
      if ('error' in item) {
        reject({ line: item.line, reason: item.error });
        continue;
      }
      const parsed = parseFeedRecord(item.record, source.fieldMapping);
      if (!parsed.ok) {
        reject({ line: item.line, reason: parsed.reason });
        continue;
      }
      if (parsed.row.source !== null && parsed.row.source !== source.id) {
        reject({ line: item.line, reason: `source ${parsed.row.source} does not match the batch's source ${source.id}` });
        continue;
      }
      const staged = toStagedListing(parsed.row, source.id);
      if (!staged.ok) {
        reject({ line: item.line, reason: staged.reason });
        continue;
      }
      chunk.push({ line: item.line, ...staged.listing });
      if (chunk.length >= CHUNK_ROWS) await flush();
    }
    await flush();
    await inserting;
  };
  try {
    await stageItems();
  } finally {
    // Never leave an insert running behind a failure: the caller drops the table next.
    await inserting.catch(() => undefined);
  }
  return rowsRead;
}

/**
 * A name listed twice in one batch keeps its last line; the earlier lines are bad rows.
 * Returns how many were dropped and a description of the first of them.
 */
export async function dropDuplicates(database: Database, table: string): Promise<{ count: number; described: RejectedRow[] }> {
  const staging = sql.identifier(table);
  const dropped = await database.rows<{ line: number; domain_name: string; kept_line: number }>(sql`
    with ranked as (
      select line, domain_name, max(line) over (partition by domain_name) as kept_line from ${staging}
    ),
    doomed as (
      delete from ${staging} s using ranked r
      where s.line = r.line and r.line < r.kept_line
      returning s.line, s.domain_name, r.kept_line
    )
    select line, domain_name, kept_line from doomed order by line`);
  return {
    count: dropped.length,
    described: dropped.slice(0, DESCRIBED_DUPLICATES).map((row) => ({
      line: row.line,
      reason: `duplicate of ${row.domain_name} at line ${row.kept_line}; the later line is used`,
    })),
  };
}
