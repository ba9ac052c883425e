import { availableParallelism } from 'node:os';
import { randomBytes } from 'node:crypto';
import { sql, type Database } from '@domain-index/db';
import { FeedSyntaxError, readFeed, type FeedItem, type SourceConfig } from '@domain-index/indexer';
import { copyRow } from './copy-rows';
import { LISTING_COLUMNS } from './listing-columns';
import { countLines, piecesOfLines } from './pieces-of-lines';
import { stageItem, type RejectedRow } from './stage-item';
import { stageJsonlPiece, type StagedPiece } from './stage-jsonl-piece';
import { stageRecordsPiece, type StagedRecords } from './stage-records-piece';
import { nameHash, type StagedNames } from './staged-names';
import { startStagingCopy, type StagingCopy } from './staging-copy';
import { startStagingPool, type StagingPool } from './staging-pool';
import { createWorkTable } from './work-tables';

export type { RejectedRow } from './stage-item';

/** The reason stageItem gives a JSONL line that does not parse. */
const INVALID_JSON = 'invalid JSON';

/** Rows sent to the staging table at a time, on the record-by-record path. */
const CHUNK_ROWS = 2_000;
/** At most this many duplicate lines are described; all of them are counted. */
const DESCRIBED_DUPLICATES = 100;

/** How a JSONL feed is cut and shared out among staging workers. */
export interface JsonlStaging {
  /** Bytes per piece: about 1,700 rows of a typical feed. */
  pieceBytes: number;
  /**
   * Bytes read before the workers start. A worker takes about half a second to start (tsx and
   * the word list), more than a small feed takes to stage in this thread.
   */
  workersAfterBytes: number;
  /** Worker threads; 0 stages every piece in this thread. */
  workers: number;
  /** Records (a profile's) per run sent to a worker. */
  recordsPerRun?: number;
  /** Records read before the workers start, for the same reason as workersAfterBytes. */
  workersAfterRecords?: number;
}

export const JSONL_STAGING: JsonlStaging = {
  pieceBytes: 1 << 20,
  workersAfterBytes: 8 << 20,
  // Reading, validating and deriving rows is most of an import's CPU: 1,000,000 rows kept one
  // thread busy for about 40 s. This thread stages its share too, so one worker per further
  // core, up to three: PostgreSQL's side of staging (COPY) then becomes the limit, and each
  // worker adds about 160 MB to the process's peak memory.
  workers: Math.min(availableParallelism() - 1, 3),
  recordsPerRun: 1_000,
  workersAfterRecords: 20_000,
};

/**
 * Where a batch's rows come from: feed text, or records already read (a profile's, the seed
 * generator's). `parallel` records are validated and derived by staging workers past the
 * first few thousand, as JSONL is (the seed's five batches at once would start too many).
 */
export type BatchInput =
  | { input: NodeJS.ReadableStream | AsyncIterable<string | Buffer>; format?: 'jsonl' | 'csv' }
  | { records: AsyncIterable<FeedItem>; parallel?: boolean };

const stagingColumns = LISTING_COLUMNS.map(([name, type]) => `"${name}" ${type}`).join(', ');

/**
 * Creates an unlogged, index-free work table for one batch (work-tables.ts: leased, so a crash
 * leaves nothing the next import keeps); the caller drops it with dropWorkTable.
 */
export async function createStagingTable(database: Database): Promise<string> {
  const table = `listing_import_${randomBytes(6).toString('hex')}`;
  await createWorkTable(database, table, sql.raw(`create unlogged table "${table}" (line integer not null, ${stagingColumns})`));
  return table;
}

/**
 * Streams a batch into its staging table in chunks, validating and deriving every row on the
 * way and rejecting bad rows as they come (rows a profile skips go to `skip`). Returns the
 * number of rows read, skipped ones included. A JSONL feed is
 * cut into pieces at line breaks and, past the first few megabytes, staged by worker threads;
 * CSV (a quoted field may span lines, and a stray quote is allowed, so a line break is not
 * known to end a record before it is parsed) and records are staged here, one by one.
 * `names`, when given, collects the hash of every staged row's name (see StagedNames).
 */
export async function stageFeed(
  database: Database,
  table: string,
  source: SourceConfig,
  from: BatchInput,
  reject: (row: RejectedRow) => void,
  onProgress?: (rowsRead: number) => void,
  jsonl: JsonlStaging = JSONL_STAGING,
  skip: (row: RejectedRow) => void = () => undefined,
  names?: StagedNames,
): Promise<number> {
  const copy = startStagingCopy(database, table, onProgress);
  try {
    const rowsRead =
      'records' in from
        ? from.parallel === true
          ? await stageRecords(from.records, source, copy, reject, skip, onProgress, jsonl, names)
          : await stageItems(from.records, source, copy, reject, skip, onProgress, names)
        : (from.format ?? source.format ?? 'jsonl') === 'jsonl'
          ? await stageJsonl(from.input, source, copy, reject, jsonl, names)
          : await stageItems(readFeed(from.input, 'csv'), source, copy, reject, skip, onProgress, names);
    await copy.finish();
    return rowsRead;
  } catch (error) {
    await copy.abort();
    throw error;
  }
}

async function stageItems(
  items: AsyncIterable<FeedItem>,
  source: SourceConfig,
  copy: StagingCopy,
  reject: (row: RejectedRow) => void,
  skip: (row: RejectedRow) => void,
  onProgress?: (rowsRead: number) => void,
  names?: StagedNames,
): Promise<number> {
  let rowsRead = 0;
  let chunk = '';
  let chunkRows = 0;
  try {
    for await (const item of items) {
      rowsRead += 1;
      const staged = stageItem(item, source);
      if ('rejected' in staged) {
        reject(staged.rejected);
        continue;
      }
      if ('skipped' in staged) {
        skip(staged.skipped);
        continue;
      }
      chunk += copyRow(staged.row.line, staged.row);
      names?.addHash(nameHash(staged.row.domain_name as string));
      chunkRows += 1;
      if (chunkRows >= CHUNK_ROWS) {
        await copy.add(chunk, rowsRead);
        chunk = '';
        chunkRows = 0;
      }
    }
  } catch (error) {
    // an unreadable feed is reported with the rows read up to where it broke
    onProgress?.(rowsRead);
    throw error;
  }
  if (chunkRows > 0) await copy.add(chunk, rowsRead);
  return rowsRead;
}

/**
 * Stages records in runs, shared out like JSONL pieces: past the first few thousand, runs go
 * to staging workers (and every (workers + 1)th is staged here) and come back in feed order.
 */
async function stageRecords(
  items: AsyncIterable<FeedItem>,
  source: SourceConfig,
  copy: StagingCopy,
  reject: (row: RejectedRow) => void,
  skip: (row: RejectedRow) => void,
  onProgress: ((rowsRead: number) => void) | undefined,
  options: JsonlStaging,
  names?: StagedNames,
): Promise<number> {
  const { workers } = options;
  const perRun = options.recordsPerRun ?? 1_000;
  const workersAfter = options.workersAfterRecords ?? 20_000;
  let rowsRead = 0;
  let itemsRead = 0;
  let runsSent = 0;
  let pool: StagingPool | undefined;
  /** Runs being staged, in feed order: at most two per worker and one of this thread's. */
  const staging: Promise<StagedRecords>[] = [];
  const report = (run: StagedRecords) => {
    for (const row of run.rejected) reject(row);
    for (const row of run.skipped) skip(row);
    rowsRead += run.items;
  };
  const take = async (staged: Promise<StagedRecords>) => {
    const run = await staged;
    report(run);
    names?.add(run.names);
    if (run.rows !== null) await copy.add(run.rows, rowsRead);
  };
  const send = (run: FeedItem[]) => {
    if (pool === undefined && workers > 0 && itemsRead > workersAfter) pool = startStagingPool(source, workers);
    const toPool = pool !== undefined && runsSent++ % (pool.size + 1) !== pool.size ? pool : undefined;
    const staged = toPool ? toPool.stageRecords(run) : Promise.resolve(stageRecordsPiece(run, source));
    // awaited below in order; a failure meanwhile must not count as unhandled
    staged.catch(() => undefined);
    staging.push(staged);
  };
  try {
    let run: FeedItem[] = [];
    try {
      for await (const item of items) {
        itemsRead += 1;
        run.push(item);
        if (run.length < perRun) continue;
        send(run);
        run = [];
        while (staging.length > 2 * (pool?.size ?? 0) + 1) await take(staging.shift()!);
      }
    } catch (error) {
      // an unreadable feed is reported with every row read and the reasons of the bad ones
      for (const staged of staging.splice(0)) {
        const done = await staged.catch(() => undefined);
        if (done !== undefined) report(done);
      }
      report(stageRecordsPiece(run, source));
      onProgress?.(rowsRead);
      throw error;
    }
    if (run.length > 0) send(run);
    while (staging.length > 0) await take(staging.shift()!);
    return rowsRead;
  } finally {
    await pool?.close();
  }
}

async function stageJsonl(
  input: NodeJS.ReadableStream | AsyncIterable<string | Buffer>,
  source: SourceConfig,
  copy: StagingCopy,
  reject: (row: RejectedRow) => void,
  options: JsonlStaging,
  names?: StagedNames,
): Promise<number> {
  let rowsRead = 0;
  let nextLine = 1;
  let bytesRead = 0;
  let piecesSent = 0;
  let pool: StagingPool | undefined;
  /** Pieces being staged, in feed order, with their line counts: at most two per worker and one of this thread's. */
  const staging: { staged: Promise<StagedPiece>; lines: number }[] = [];
  /** The feed's last line, when the last piece does not end with a line break: a cut-off feed ends that way. */
  let unterminatedLine: number | undefined;
  let lastLineInvalid = false;
  const take = async ({ staged, lines }: (typeof staging)[number]) => {
    const piece = await staged;
    // Every later piece was numbered from this count: a disagreement would misnumber them all.
    if (piece.lines !== lines) throw new Error(`a piece of ${lines} lines was staged as ${piece.lines}`);
    lastLineInvalid = unterminatedLine !== undefined && piece.rejected.some((row) => row.line === unterminatedLine && row.reason === INVALID_JSON);
    for (const row of piece.rejected) reject(row);
    rowsRead += piece.items;
    names?.add(piece.names);
    if (piece.rows !== null) await copy.add(piece.rows, rowsRead);
  };
  try {
    for await (const piece of piecesOfLines(input, options.pieceBytes)) {
      const firstLine = nextLine;
      const lines = countLines(piece);
      nextLine += lines;
      const last = piece[piece.byteLength - 1];
      unterminatedLine = last === 0x0a || last === 0x0d ? undefined : nextLine - 1;
      bytesRead += piece.byteLength;
      if (pool === undefined && options.workers > 0 && bytesRead > options.workersAfterBytes) {
        pool = startStagingPool(source, options.workers);
      }
      // this thread takes every (workers + 1)th piece, between sending rows
      const toPool = pool !== undefined && piecesSent++ % (pool.size + 1) !== pool.size ? pool : undefined;
      const staged = toPool ? toPool.stage(piece, firstLine) : Promise.resolve(stageJsonlPiece(piece, firstLine, source));
      // awaited below in order; a failure meanwhile must not count as unhandled
      staged.catch(() => undefined);
      staging.push({ staged, lines });
      while (staging.length > 2 * (pool?.size ?? 0) + 1) await take(staging.shift()!);
    }
    while (staging.length > 0) await take(staging.shift()!);
    // A last line that is not JSON and not ended by a line break is a record cut off in the
    // middle: the download or the file was truncated, and the rows after it are missing. One
    // bad row would not reject the batch, and the index would lose every listing past the cut.
    if (lastLineInvalid && unterminatedLine !== undefined) {
      throw new FeedSyntaxError(unterminatedLine, 'the feed ends in the middle of a line: it was cut off (a truncated download or file)');
    }
    return rowsRead;
  } finally {
    await pool?.close();
  }
}

/**
 * A name listed twice in one batch keeps its last line; the earlier lines are bad rows.
 * Returns how many were dropped and a description of the first of them.
 */
export async function dropDuplicates(database: Database, table: string): Promise<{ count: number; described: RejectedRow[] }> {
  const staging = sql.identifier(table);
  // counted in the database: a feed listing a million names twice returns one row, not a million
  const [dropped] = await database.rows<{ count: number; first: { line: number; domain_name: string; kept_line: number }[] }>(sql`
    with ranked as (
      select line, domain_name, max(line) over (partition by domain_name) as kept_line from ${staging}
    ),
    doomed as (
      delete from ${staging} s using ranked r
      where s.line = r.line and r.line < r.kept_line
      returning s.line, s.domain_name, r.kept_line
    )
    select (select count(*) from doomed)::int as count,
           coalesce((select json_agg(d order by d.line)
                     from (select line, domain_name, kept_line from doomed order by line limit ${DESCRIBED_DUPLICATES}) d), '[]'::json) as first`);
  return {
    count: dropped?.count ?? 0,
    described: (dropped?.first ?? []).map((row) => ({
      line: row.line,
      reason: `duplicate of ${row.domain_name} at line ${row.kept_line}; the later line is used`,
    })),
  };
}
