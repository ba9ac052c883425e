import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FeedPagination } from '@domain-index/indexer';
import { FeedFetchError } from './fetch-error';
import { fetchFeed, MAX_DOWNLOAD_BYTES } from './fetch-feed';
import { shownUrl, type FeedRequest } from './request';
import { hashing, spoolDirectory, type Spooled } from './spool';

/** Largest page read: pages are parsed whole, so one must stay small. */
const MAX_PAGE_BYTES = 64 << 20;

export interface PageOptions {
  request: FeedRequest;
  responseMs?: number;
  idleMs?: number;
  /** Largest total of all pages' bytes. */
  maxBytes?: number;
  signal?: AbortSignal;
}

/** A dot-separated path into a parsed envelope. */
function at(value: unknown, path: string): unknown {
  if (path === '') return value;
  let current = value;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A number the envelope must hold at `path` (a JSON number or a numeric string). */
function envelopeNumber(envelope: unknown, path: string, shown: string): number {
  const value = at(envelope, path);
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (!Number.isFinite(number)) throw new FeedFetchError(`${shown} has no number at ${JSON.stringify(path)} (renamed?)`, false);
  return number;
}

/** A boolean the envelope must hold at `path`. */
function envelopeBoolean(envelope: unknown, path: string, shown: string): boolean {
  const value = at(envelope, path);
  if (typeof value !== 'boolean') throw new FeedFetchError(`${shown} has no true or false at ${JSON.stringify(path)} (renamed?)`, false);
  return value;
}

async function readPage(body: AsyncIterable<Buffer>, shown: string): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > MAX_PAGE_BYTES) throw new FeedFetchError(`a page of ${shown} is over ${MAX_PAGE_BYTES >> 20} MiB`, false);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Walks a paginated JSON API from the feed URL and writes every page's records, in order, as
 * JSON lines to a temporary file (hashed on the way), which is then read like a JSONL feed:
 * a record's line is its position across all pages. The next page is the envelope's
 * `nextUrlField` link, or `pageUrl` with the next page number (the envelope's `pageField` + 1,
 * else the count so far + 1), resolved against the feed URL. The walk stops at a page with no
 * records, when `hasMoreField` is false, when `pageField` reaches `pageCountField`, or when
 * the next link is null or missing. A field the profile names that a page lacks, or a page
 * without records before the declared end, fails the fetch: a walk cut short would remove
 * listings. A feed with more than `maxPages` pages is refused: a batch is
 * the complete listing set, and a cut one would remove the listings of the pages not read.
 */
export async function fetchPages(feedUrl: string, pagination: FeedPagination, recordsPath: string, options: PageOptions): Promise<Spooled> {
  const directory = await spoolDirectory();
  const path = join(directory.path, 'records.jsonl');
  const { stream: hash, digest } = hashing();
  const written = pipeline(hash, createWriteStream(path));
  written.catch(() => undefined);
  const write = async (line: string) => {
    if (!hash.write(line)) await once(hash, 'drain');
  };
  try {
    let url = feedUrl;
    const maxBytes = options.maxBytes ?? MAX_DOWNLOAD_BYTES;
    let totalBytes = 0;
    for (let pages = 1; ; pages += 1) {
      const shown = `page ${pages} of ${shownUrl(feedUrl)}`;
      const result = await fetchFeed(url, {
        request: options.request,
        ...(options.responseMs !== undefined && { responseMs: options.responseMs }),
        ...(options.idleMs !== undefined && { idleMs: options.idleMs }),
        ...(options.signal !== undefined && { signal: options.signal }),
      });
      if (result.notModified) throw new FeedFetchError(`${shown} answered 304 to a request that was not conditional`, true);
      let envelope: unknown;
      try {
        const text = await readPage(result.body as AsyncIterable<Buffer>, shown);
        totalBytes += Buffer.byteLength(text);
        if (totalBytes > maxBytes) throw new FeedFetchError(`${shownUrl(feedUrl)} is over the ${maxBytes} bytes a download may have (maxDownloadBytes), counting every page`, false);
        envelope = JSON.parse(text);
      } catch (error) {
        if (error instanceof FeedFetchError) throw error;
        throw new FeedFetchError(`${shown} is not JSON`, true);
      }
      if (pagination.successField !== undefined && at(envelope, pagination.successField) === false) {
        throw new FeedFetchError(`${shown} answered ${pagination.successField}: false`, true);
      }
      const records = at(envelope, recordsPath);
      if (!Array.isArray(records)) {
        throw new FeedFetchError(`${shown} has no record array at ${JSON.stringify(recordsPath)} (renamed?)`, false);
      }
      for (const record of records) await write(`${JSON.stringify(record)}\n`);
      // A field the profile names must be on every page: read as "no more pages", a renamed
      // field would end the walk early, and the listings of the pages not read would be removed.
      const page = pagination.pageField === undefined ? pages : envelopeNumber(envelope, pagination.pageField, shown);
      const pageCount = pagination.pageCountField === undefined ? undefined : envelopeNumber(envelope, pagination.pageCountField, shown);
      const hasMore = pagination.hasMoreField === undefined ? undefined : envelopeBoolean(envelope, pagination.hasMoreField, shown);
      // a null or missing next link is how such APIs say "last page"
      const next = pagination.nextUrlField === undefined ? undefined : at(envelope, pagination.nextUrlField);
      const declaredMore = hasMore === true || (pageCount !== undefined && page < pageCount);
      if (records.length === 0 && declaredMore) {
        throw new FeedFetchError(`${shown} has no records though the envelope says more pages follow`, true);
      }
      const last =
        records.length === 0 ||
        hasMore === false ||
        (pageCount !== undefined && page >= pageCount) ||
        (pagination.nextUrlField !== undefined && (typeof next !== 'string' || next === ''));
      if (last) break;
      if (pages >= pagination.maxPages) {
        throw new FeedFetchError(
          `${shownUrl(feedUrl)} has more than ${pagination.maxPages} pages (pagination.maxPages); it was not loaded, as a cut batch would remove the listings of the pages not read`,
          false,
        );
      }
      const nextPage = page + 1;
      url = typeof next === 'string' ? new URL(next, url).href : new URL(pagination.pageUrl!.replace('{page}', String(nextPage)), feedUrl).href;
      if (pagination.delayMs > 0) await sleep(pagination.delayMs, undefined, options.signal === undefined ? {} : { signal: options.signal });
    }
    hash.end();
    await written;
    return { path, ...digest(), dispose: directory.dispose };
  } catch (error) {
    hash.destroy();
    await written.catch(() => undefined);
    await directory.dispose();
    throw error;
  }
}
