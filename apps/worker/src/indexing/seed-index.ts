import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Database } from '@domain-index/db';
import { seedRecords, type FeedItem, type SourceConfig } from '@domain-index/indexer';
import type { Clock } from '@domain-index/runtime/clock';
import { importBatches, type ImportSummary } from './import-batch';

export interface SeedOptions {
  database: Database;
  sources: readonly SourceConfig[];
  rows: number;
  seed?: number;
  clock: Clock;
  /** Called as records are generated, with the count so far. */
  onProgress?: (generated: number) => void;
}

/** Records queued per marketplace before the generator waits for its import to catch up. */
const QUEUED_RECORDS = 4_000;

/**
 * Fills the index with deterministic synthetic listings through the real import path: one
 * generator pass feeds one record stream per marketplace, each validated, derived and staged
 * by its own batch, and the five batches are switched in together. The records skip only the
 * feed's text framing (JSON lines), which the import tests cover on their own.
 */
export async function seedIndex(options: SeedOptions): Promise<ImportSummary[]> {
  const { database, sources, clock } = options;
  const streams = new Map(sources.map((source) => [source.id, new PassThrough({ objectMode: true, highWaterMark: QUEUED_RECORDS })]));
  const lines = new Map(sources.map((source) => [source.id, 0]));
  const imports = importBatches({
    database,
    clock,
    batches: sources.map((source) => ({ source, records: streams.get(source.id)! as AsyncIterable<FeedItem> })),
  });
  // A batch that fails stops reading (its stream is destroyed): the generator must not wait on
  // it, and must end the others' streams so that every batch settles and the failure surfaces.
  let consumerStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (consumerStopped = resolve));
  for (const stream of streams.values()) stream.once('close', () => consumerStopped());
  try {
    let generated = 0;
    for (const { source, record } of seedRecords({
      rows: options.rows,
      seed: options.seed ?? 42,
      sources: sources.map((s) => s.id),
      now: clock.now(),
    })) {
      const line = lines.get(source)! + 1;
      lines.set(source, line);
      const stream = streams.get(source)!;
      if (stream.destroyed) break;
      if (!stream.write({ line, record } satisfies FeedItem)) await Promise.race([once(stream, 'drain'), stopped]);
      generated += 1;
      if (generated % 10_000 === 0) options.onProgress?.(generated);
    }
    options.onProgress?.(generated);
  } finally {
    for (const stream of streams.values()) stream.end();
  }
  return imports;
}
