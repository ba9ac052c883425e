import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A download written to a temporary file, with the SHA-256 of its bytes. */
export interface Spooled {
  path: string;
  sha256: string;
  bytes: number;
  /** Removes the file. */
  dispose(): Promise<void>;
}

/** A pass-through that hashes and counts what flows through it. */
export function hashing(): { stream: Transform; digest: () => { sha256: string; bytes: number } } {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, digest: () => ({ sha256: hash.digest('hex'), bytes }) };
}

/** A temporary directory of its own for one feed, removed with everything in it. */
export async function spoolDirectory(): Promise<{ path: string; dispose: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'domain-index-feed-'));
  return { path, dispose: () => rm(path, { recursive: true, force: true }) };
}

/**
 * Writes a stream to a temporary file (in the system's temporary directory, `TMPDIR`),
 * hashing it on the way: a zip must be read through its central directory at its end, and a
 * content hash must be known before a batch is staged. Memory stays flat; disk holds the
 * (compressed) download until `dispose`.
 */
export async function spool(input: Readable | NodeJS.ReadableStream, name = 'feed'): Promise<Spooled> {
  const directory = await spoolDirectory();
  const path = join(directory.path, name);
  const { stream, digest } = hashing();
  try {
    await pipeline(input, stream, createWriteStream(path));
  } catch (error) {
    await directory.dispose();
    throw error;
  }
  return { path, ...digest(), dispose: directory.dispose };
}

/** The SHA-256 of a file's bytes, read as a stream. */
export async function hashFile(path: string): Promise<string> {
  const { stream, digest } = hashing();
  await pipeline(createReadStream(path), stream, async (source: AsyncIterable<Buffer>) => {
    for await (const _chunk of source) {
      // the hash is taken on the way; the bytes themselves are not needed
    }
  });
  return digest().sha256;
}
