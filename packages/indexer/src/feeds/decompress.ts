import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import yauzl from 'yauzl';
import { FeedSyntaxError } from '../feed-item';
import { FeedFormatError } from './errors';

/** How a feed file is compressed. */
export type Compression = 'none' | 'gzip' | 'zip';

/** Bytes needed to recognise a compression. */
export const SNIFF_BYTES = 4;

/**
 * Recognises gzip (`1f 8b`) and zip (`PK\3\4` for a file's first entry, `PK\5\6` for an empty
 * archive) by a file's first bytes; anything else is taken as uncompressed.
 */
export function sniffCompression(head: Uint8Array): Compression {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) return 'zip';
  return 'none';
}

/** The compression of a feed: the declared one, or the one its first bytes show (`auto`). */
export function compressionOf(declared: Compression | 'auto', head: Uint8Array): Compression {
  return declared === 'auto' ? sniffCompression(head) : declared;
}

/**
 * Streams gzip-compressed bytes decompressed (all members, as `gzip -d` does). Corrupt data
 * fails the stream with a FeedSyntaxError, so the batch is rejected rather than retried.
 */
export function gunzip(input: NodeJS.ReadableStream): Readable {
  return through(input, createGunzip(), (error) => {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && code.startsWith('Z_') ? new FeedSyntaxError(0, `the gzip data is corrupt (${error.message})`, { cause: error }) : error;
  });
}

/**
 * `input` piped through `stage` into the returned stream, which fails with the stage's errors
 * as `translate` words them (pipeline() would fail it with the raw error first). Destroying the
 * returned stream destroys the others.
 */
function through(input: NodeJS.ReadableStream, stage: NodeJS.ReadWriteStream | null, translate: (error: Error) => Error): Readable {
  const output = new PassThrough();
  const destroy = (stream: unknown) => (stream as { destroy?: () => void } | null)?.destroy?.();
  // `on`, not `once`: zlib can emit a second error after the first (a truncated member, then
  // the end), and an 'error' with no listener left takes the whole process down.
  input.on('error', (error: Error) => output.destroy(translate(error)));
  stage?.on('error', (error: Error) => output.destroy(translate(error)));
  // The data may fail before anyone reads the output (a truncated gzip fails within
  // milliseconds, while the import is still creating its staging table): the error is kept
  // (`output.errored`) and thrown to whoever reads it, instead of being emitted to nobody,
  // which crashed the process with "Unhandled 'error' event".
  output.on('error', () => undefined);
  output.once('close', () => {
    destroy(stage);
    destroy(input);
  });
  (stage === null ? input : input.pipe(stage)).pipe(output);
  return output;
}

/**
 * Opens the one file of a zip archive as a stream of its decompressed bytes. The archive is
 * read through its central directory (yauzl), so entries written with data descriptors (sizes
 * after the data) and zip64 archives are read alike; the entry is inflated as it streams, never
 * held whole. Directory entries are ignored.
 *
 * @throws {FeedFormatError} when the archive holds no file or more than one.
 * @throws {FeedSyntaxError} when it is not a readable zip archive.
 */
export async function openZipEntry(path: string): Promise<Readable> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, file) => {
      if (error === null && file !== undefined) resolve(file);
      else reject(new FeedSyntaxError(0, `not a readable zip archive (${error?.message ?? 'unknown error'})`, { cause: error }));
    });
  });
  try {
    const files: yauzl.Entry[] = [];
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!entry.fileName.endsWith('/')) files.push(entry);
        zip.readEntry();
      });
      zip.once('end', resolve);
      zip.once('error', (error: Error) => reject(new FeedSyntaxError(0, `not a readable zip archive (${error.message})`, { cause: error })));
      zip.readEntry();
    });
    if (files.length !== 1) {
      throw new FeedFormatError(`the zip archive holds ${files.length} files (${files.slice(0, 5).map((f) => f.fileName).join(', ')}); a feed archive holds exactly one`);
    }
    const entry = await new Promise<Readable>((resolve, reject) => {
      zip.openReadStream(files[0]!, (error, stream) => {
        if (error === null && stream !== undefined) resolve(stream);
        else reject(new FeedSyntaxError(0, `cannot read ${files[0]!.fileName} in the zip archive (${error?.message ?? 'unknown error'})`, { cause: error }));
      });
    });
    const output = through(entry, null, (error) => new FeedSyntaxError(0, `the zip entry is corrupt (${error.message})`, { cause: error }));
    output.once('close', () => zip.close());
    return output;
  } catch (error) {
    zip.close();
    throw error;
  }
}
