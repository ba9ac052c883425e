import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  compressionOf,
  gunzip,
  openZipEntry,
  readProfileFeed,
  SNIFF_BYTES,
  type FeedItem,
  type SourceConfig,
} from '@domain-index/indexer';
import { spool } from './spool';

/** Where a feed's bytes are: a file, or a stream (stdin). */
export type FeedBytes = { path: string } | { stream: NodeJS.ReadableStream };

/** A feed opened for reading: feed-format text (the fast JSONL path), or mapped records. */
export type OpenedFeed = ({ input: Readable; format: 'jsonl' | 'csv' } | { records: AsyncIterable<FeedItem> }) & {
  /** Ends the reading and removes what opening left on disk. */
  close(): Promise<void>;
};

export interface OpenOptions {
  /** The bytes are a paginated feed's records as JSON lines (see fetchPages). */
  pagedRecords?: boolean;
  /** Overrides the format of a source without a profile. */
  format?: 'jsonl' | 'csv';
  /** The time of the import, for ages computed from dates. */
  now: Date;
}

/** A file's first bytes, to recognise its compression (a zip is read from its end, so not as a stream). */
export async function head(path: string): Promise<Uint8Array> {
  const file = await open(path);
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await file.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** The stream's first bytes, and a stream of all its bytes (those first ones included). */
async function sniff(stream: NodeJS.ReadableStream): Promise<{ head: Uint8Array; stream: Readable }> {
  const iterator = (stream as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  const first: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < SNIFF_BYTES) {
    const next = await iterator.next();
    if (next.done === true) {
      done = true;
      break;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    first.push(chunk);
    length += chunk.length;
  }
  async function* all(): AsyncGenerator<Buffer> {
    try {
      yield* first;
      for (let next = done ? null : await iterator.next(); next !== null && next.done !== true; next = await iterator.next()) {
        yield Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      }
    } finally {
      await iterator.return?.();
    }
  }
  return { head: Buffer.concat(first).subarray(0, SNIFF_BYTES), stream: Readable.from(all(), { objectMode: false }) };
}

/**
 * Opens a source's feed bytes for a batch: decompressed when the profile says so or, by
 * default, when the first bytes are gzip or zip (a zip on a stream is spooled to disk first: it
 * is read from its central directory); then read as the feed format (JSONL or CSV, renamed by
 * `fieldMapping`) or through the source's profile.
 */
export async function openFeedInput(source: SourceConfig, bytes: FeedBytes, options: OpenOptions): Promise<OpenedFeed> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const declared = options.pagedRecords === true ? 'none' : (source.profile?.compression ?? 'auto');
    let input: Readable;
    if ('path' in bytes) {
      const compression = compressionOf(declared, await head(bytes.path));
      input = compression === 'zip' ? await openZipEntry(bytes.path) : compression === 'gzip' ? gunzip(createReadStream(bytes.path)) : createReadStream(bytes.path);
    } else {
      const sniffed = await sniff(bytes.stream);
      const compression = compressionOf(declared, sniffed.head);
      if (compression === 'zip') {
        const file = await spool(sniffed.stream, 'feed.zip');
        cleanups.push(() => file.dispose());
        input = await openZipEntry(file.path);
      } else {
        input = compression === 'gzip' ? gunzip(sniffed.stream) : sniffed.stream;
      }
    }
    cleanups.push(() => void input.destroy());
    if (source.profile === undefined) return { input, format: options.format ?? source.format ?? 'jsonl', close };
    const records = readProfileFeed(input, source.profile, {
      now: options.now,
      ...(source.currencyRates !== undefined && { rates: source.currencyRates }),
      ...(options.pagedRecords === true && { container: { type: 'jsonl' } }),
    });
    return { records, close };
  } catch (error) {
    await close();
    throw error;
  }
}
