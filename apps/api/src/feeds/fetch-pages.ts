import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FeedPagination } from '@domain-index/indexer';
import { FeedFetchError } from './fetch-error';
import { fetchFeed } from './fetch-feed';
import { shownUrl, withQuery, type FeedRequest } from './request';
import { hashing, spoolDirectory, type Spooled } from './spool';

/** Largest page read: pages are parsed whole, so one must stay small. */
const MAX_PAGE_BYTES = 64 << 20;

export interface PageOptions {
  request: FeedRequest;
  responseMs?: number;
  idleMs?: number;
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
 * records, when `hasMoreField` is false or absent, when `pageField` reaches `pageCountField`,
 * or when there is no next link. A feed with more than `maxPages` pages is refused: a batch is
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
    for (let pages = 1; ; pages += 1) {
      const shown = `page ${pages} of ${shownUrl(feedUrl)}`;
      const result = await fetchFeed(withQuery(url, options.request.query), {
        request: options.request,
        ...(options.responseMs !== undefined && { responseMs: options.responseMs }),
        ...(options.idleMs !== undefined && { idleMs: options.idleMs }),
        ...(options.signal !== undefined && { signal: options.signal }),
      });
      if (result.notModified) throw new FeedFetchError(`${shown} answered 304 to a request that was not conditional`, true);
      let envelope: unknown;
      try {
        envelope = JSON.parse(await readPage(result.body as AsyncIterable<Buffer>, shown));
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
      const page = pagination.pageField === undefined ? pages : Number(at(envelope, pagination.pageField) ?? pages);
      const pageCount = pagination.pageCountField === undefined ? undefined : Number(at(envelope, pagination.pageCountField));
      const next = pagination.nextUrlField === undefined ? undefined : at(envelope, pagination.nextUrlField);
      const last =
        records.length === 0 ||
        (pagination.hasMoreField !== undefined && !at(envelope, pagination.hasMoreField)) ||
        (pageCount !== undefined && Number.isFinite(pageCount) && page >= pageCount) ||
        (pagination.nextUrlField !== undefined && (typeof next !== 'string' || next === ''));
      if (last) break;
      if (pages >= pagination.maxPages) {
        throw new FeedFetchError(
          `${shownUrl(feedUrl)} has more than ${pagination.maxPages} pages (pagination.maxPages); it was not loaded, as a cut batch would remove the listings of the pages not read`,
          false,
        );
      }
      const nextPage = Number.isFinite(page) ? page + 1 : pages + 1;
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
