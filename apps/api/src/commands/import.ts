import { createReadStream, statSync } from 'node:fs';
import { Transform } from 'node:stream';
import { systemClock } from '../clock';
import type { Config } from '../config';
import { importBatch } from '../indexing/import-batch';
import { recordSync } from '../indexing/record-sync';
import { CliError, openMigratedDatabase } from '../runtime';
import { loadSources } from '../sources';
import { createProgress } from './progress';
import { formatSummary } from './summary';

/** Rejected lines printed one by one before the rest are only counted. */
const PRINTED_REJECTIONS = 20;

export interface ImportCommandOptions {
  source: string;
  format?: 'jsonl' | 'csv';
}

/**
 * `domain-index import --source ID FILE|-`: one sync batch from a file or stdin. Exit code 0
 * when applied, 1 when the batch was rejected (the index keeps the previous batch).
 */
export async function importCommand(config: Config, file: string, options: ImportCommandOptions): Promise<void> {
  const sources = loadSources(config.sourcesFile);
  const source = sources.find((candidate) => candidate.id === options.source.toLowerCase());
  if (source === undefined) {
    throw new CliError(`unknown source ${options.source}; configured: ${sources.map((s) => s.id).join(', ')}`);
  }
  const format = options.format ?? (/\.csv$/i.test(file) ? 'csv' : /\.(jsonl|ndjson)$/i.test(file) ? 'jsonl' : source.format);
  let size: number | undefined;
  if (file !== '-') {
    try {
      size = statSync(file).size;
    } catch {
      throw new CliError(`cannot read ${file}: no such file`);
    }
  }
  const database = await openMigratedDatabase(config);
  try {
    const progress = createProgress(`importing ${source.id}`, size, 'bytes');
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        progress.update(bytes);
        done(null, chunk);
      },
    });
    const input = (file === '-' ? process.stdin : createReadStream(file)).pipe(counter);
    let printed = 0;
    const startedAt = new Date();
    const summary = await importBatch({
      database,
      source,
      input,
      format,
      clock: systemClock,
      onRejected: (row) => {
        if (printed < PRINTED_REJECTIONS) process.stderr.write(`line ${row.line}: ${row.reason}\n`);
        printed += 1;
      },
    });
    progress.stop();
    if (printed > PRINTED_REJECTIONS) process.stderr.write(`... and ${printed - PRINTED_REJECTIONS} more rejected lines\n`);
    await recordSync(database, source.id, startedAt, new Date(), summary.outcome, summary);
    process.stdout.write(`${formatSummary(summary)}\n`);
    if (summary.outcome === 'rejected') process.exitCode = 1;
  } finally {
    await database.close();
  }
}
