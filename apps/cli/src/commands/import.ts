import { createReadStream, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Transform } from 'node:stream';
import { compressionOf } from '@domain-index/indexer';
import { systemClock } from '@domain-index/runtime/clock';
import type { Config } from '@domain-index/config/config';
import { head, openFeedInput, type FeedBytes, type OpenedFeed } from '@domain-index/worker/feeds/feed-input';
import { importBatch, rejectedSummary, unreadableFeedReason } from '@domain-index/worker/indexing/import-batch';
import { recordSync } from '@domain-index/worker/indexing/record-sync';
import { describeLeftovers, removeLeftovers } from '@domain-index/worker/indexing/leftovers';
import { failureLine } from '@domain-index/runtime/failure-line';
import { CliError } from '../cli-error';
import { openMigratedDatabase } from '../runtime';
import { loadSources } from '../sources';
import { createProgress } from './progress';
import { formatSummary } from './summary';
import { io } from '../embedded/cli-io';

/** Rejected lines printed one by one before the rest are only counted. */
const PRINTED_REJECTIONS = 20;

export interface ImportCommandOptions {
  source: string;
  format?: 'jsonl' | 'csv';
}

/**
 * `domain-index import --source ID FILE|-`: one sync batch from a file or stdin, read as the
 * source reads its feed (its profile, or the feed format), gzip and zip recognised by their
 * first bytes. Exit code 0 when applied, 1 when the batch was rejected or failed (the index
 * keeps the previous batch either way).
 */
export async function importCommand(config: Config, given: string, options: ImportCommandOptions): Promise<void> {
  // relative to where the command was typed (the running server runs it for another process)
  const file = given === '-' ? given : resolve(io().cwd, given);
  const sources = loadSources(config.sourcesFile);
  const source = sources.find((candidate) => candidate.id === options.source.toLowerCase());
  if (source === undefined) {
    throw new CliError(`unknown source ${options.source}; configured: ${sources.map((s) => s.id).join(', ')}`);
  }
  if (options.format !== undefined && source.profile !== undefined) {
    throw new CliError(`--format is for sources in the feed format; ${source.id} is read through its profile`);
  }
  const format = source.profile !== undefined ? undefined : (options.format ?? (/\.csv(\.gz)?$/i.test(file) ? 'csv' : /\.(jsonl|ndjson)(\.gz)?$/i.test(file) ? 'jsonl' : source.format));
  let size: number | undefined;
  let zipped = false;
  if (file !== '-') {
    try {
      size = statSync(file).size;
      zipped = compressionOf(source.profile?.compression ?? 'auto', await head(file)) === 'zip';
    } catch {
      throw new CliError(`cannot read ${given}: no such file`);
    }
  }
  const database = await openMigratedDatabase(config);
  try {
    const leftovers = describeLeftovers(await removeLeftovers(database));
    if (leftovers !== undefined) io().stderr.write(`${leftovers}\n`);
    // a zip is read from its central directory: its progress is counted in rows, not bytes
    const progress = zipped ? createProgress(`importing ${source.id}`, undefined, 'rows') : createProgress(`importing ${source.id}`, size, 'bytes');
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        progress.update(bytes);
        done(null, chunk);
      },
    });
    const from: FeedBytes = zipped ? { path: file } : { stream: (file === '-' ? io().stdin : createReadStream(file)).pipe(counter) };
    const startedAt = new Date();
    try {
      let opened: OpenedFeed;
      try {
        opened = await openFeedInput(source, from, { now: new Date(), ...(format !== undefined && { format }) });
      } catch (error) {
        // an archive that cannot be opened is a rejected batch, as a feed unreadable further in is
        const reason = unreadableFeedReason(error);
        if (reason === undefined) throw error;
        progress.stop();
        const rejected = rejectedSummary(source.id, reason);
        await recordSync(database, source.id, startedAt, new Date(), 'rejected', rejected);
        io().stdout.write(`${formatSummary(rejected)}\n`);
        io().setExitCode(1);
        return;
      }
      let printed = 0;
      const summary = await importBatch({
        database,
        source,
        ...('records' in opened ? { records: opened.records, parallel: true } : { input: opened.input, format: opened.format }),
        clock: systemClock,
        onRejected: (row) => {
          if (printed < PRINTED_REJECTIONS) io().stderr.write(`line ${row.line}: ${row.reason}\n`);
          printed += 1;
        },
        ...(zipped && { onProgress: (rows: number) => progress.update(rows) }),
      }).finally(() => opened.close());
      progress.stop();
      if (printed > PRINTED_REJECTIONS) io().stderr.write(`... and ${printed - PRINTED_REJECTIONS} more rejected lines\n`);
      await recordSync(database, source.id, startedAt, new Date(), summary.outcome, summary);
      io().stdout.write(`${formatSummary(summary)}\n`);
      if (summary.outcome === 'rejected') io().setExitCode(1);
    } catch (error) {
      // Not the feed's fault (the database failed, the switch did not commit): a failed batch,
      // recorded as a sync's would be, the previous batch kept.
      progress.stop();
      const reason = failureLine(error);
      await recordSync(database, source.id, startedAt, new Date(), 'failed', { reason }).catch(() => undefined);
      io().stdout.write(`${source.id}: FAILED, previous batch kept: ${reason}\n`);
      io().setExitCode(1);
    }
  } finally {
    await database.close();
  }
}
