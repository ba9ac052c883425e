import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Database } from '@domain-index/db';
import { seedRecords, type SourceConfig } from '@domain-index/indexer';
import type { Clock } from '../clock';
import { importBatch, type ImportSummary } from './import-batch';

export interface SeedOptions {
  database: Database;
  sources: readonly SourceConfig[];
  rows: number;
  seed?: number;
  clock: Clock;
  /** Called as records are generated, with the count so far. */
  onProgress?: (generated: number) => void;
}

/**
 * Fills the index with deterministic synthetic listings through the real import path: one
 * generator pass feeds one JSONL stream per marketplace, each consumed by its own import
 * batch, so the seed exercises exactly what a sync does.
 */
export async function seedIndex(options: SeedOptions): Promise<ImportSummary[]> {
  const { database, sources, clock } = options;
  const streams = new Map(sources.map((source) => [source.id, new PassThrough({ highWaterMark: 256 * 1024 })]));
  const imports = sources.map((source) =>
    importBatch({ database, source: { ...source, format: 'jsonl' }, input: streams.get(source.id)!, clock }),
  );
  // A failed import must not leave the generator blocked on a stream nobody reads.
  const failed = Promise.race(imports.map((run) => run.then(() => new Promise<never>(() => undefined))));
  try {
    let generated = 0;
    for (const { source, record } of seedRecords({
      rows: options.rows,
      seed: options.seed ?? 42,
      sources: sources.map((s) => s.id),
      now: clock.now(),
    })) {
      const stream = streams.get(source)!;
      if (!stream.write(`${JSON.stringify(record)}\n`)) await Promise.race([once(stream, 'drain'), failed]);
      generated += 1;
      if (generated % 10_000 === 0) options.onProgress?.(generated);
    }
    options.onProgress?.(generated);
  } finally {
    for (const stream of streams.values()) stream.end();
  }
  return Promise.all(imports);
}
