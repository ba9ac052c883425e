import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { processRuns } from '@domain-index/runtime/process-runs';

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

/** Where feeds are spooled: one directory per feed, named so that it can be found again. */
const SPOOL_PREFIX = 'domain-index-feed-';
/** The file in a spool directory naming the process that owns it. */
const OWNER_FILE = 'owner.pid';
/**
 * A directory without an owner file is spared this long: it may be one being created right
 * now (the owner file is written just after the directory).
 */
const UNOWNED_GRACE_MS = 60 * 60_000;

/**
 * A temporary directory of its own for one feed, removed with everything in it. It names its
 * process, so that the directory of a process that was killed can be told from one in use.
 */
export async function spoolDirectory(): Promise<{ path: string; dispose: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), SPOOL_PREFIX));
  await writeFile(join(path, OWNER_FILE), `${process.pid}\n`);
  return { path, dispose: () => rm(path, { recursive: true, force: true }) };
}

/**
 * Removes the spool directories (downloaded feeds) of processes that are gone: a process
 * killed mid-import leaves its download behind. A directory whose process still runs on this
 * machine is kept. Returns how many were removed.
 */
export async function removeAbandonedSpools(directory = tmpdir()): Promise<number> {
  let removed = 0;
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith(SPOOL_PREFIX)) continue;
    const path = join(directory, entry.name);
    const owner = await readFile(join(path, OWNER_FILE), 'utf8').then((text) => Number(text.trim()), () => undefined);
    const abandoned = owner === undefined ? Date.now() - (await stat(path)).mtimeMs > UNOWNED_GRACE_MS : owner !== process.pid && !processRuns(owner);
    if (!abandoned) continue;
    await rm(path, { recursive: true, force: true });
    removed += 1;
  }
  return removed;
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
