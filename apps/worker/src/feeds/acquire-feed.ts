import { stat } from 'node:fs/promises';
import type { SourceConfig } from '@domain-index/indexer';
import { FeedFetchError } from './fetch-error';
import { fetchFeed, type Conditional } from './fetch-feed';
import { fetchPages } from './fetch-pages';
import { resolveRequest } from './request';
import { hashFile, spool } from './spool';

/** A feed on local disk, ready to read, and what identifies its content. */
export interface AcquiredFeed {
  unchanged?: undefined;
  path: string;
  sha256: string;
  etag?: string;
  lastModified?: string;
  /** The file holds the records of a paginated API as JSON lines, not the feed's own bytes. */
  pagedRecords: boolean;
  /** Removes a downloaded file (a local feed is left alone). */
  dispose(): Promise<void>;
}

/** The server said the feed has not changed since the validators sent (304). */
export interface UnchangedFeed {
  unchanged: 'etag' | 'last-modified';
}

export interface AcquireOptions {
  /** Validators of the feed of the batch in the index: sent as a conditional GET. */
  conditional?: Conditional;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/**
 * Brings a source's feed to local disk: a file path is used in place; a URL is downloaded
 * (every page of a paginated API) into a temporary file with its SHA-256. With `conditional`,
 * a server answering 304 leaves nothing to read. Errors are FeedFetchErrors, without secrets.
 */
export async function acquireFeed(source: SourceConfig, options: AcquireOptions = {}): Promise<AcquiredFeed | UnchangedFeed> {
  if (!/^https?:\/\//i.test(source.feed)) {
    try {
      if (!(await stat(source.feed)).isFile()) throw new Error('not a file');
      return { path: source.feed, sha256: await hashFile(source.feed), pagedRecords: false, dispose: () => Promise.resolve() };
    } catch (error) {
      throw new FeedFetchError(`cannot read ${source.feed}: ${error instanceof Error ? error.message : String(error)}`, false, { cause: error });
    }
  }
  const request = resolveRequest(source, options.env);
  const timing = {
    ...(source.timeouts?.responseMs !== undefined && { responseMs: source.timeouts.responseMs }),
    ...(source.timeouts?.idleMs !== undefined && { idleMs: source.timeouts.idleMs }),
    ...(source.maxDownloadBytes !== undefined && { maxBytes: source.maxDownloadBytes }),
    ...(options.signal !== undefined && { signal: options.signal }),
  };
  const pagination = source.profile?.pagination;
  const container = source.profile?.container;
  if (pagination !== undefined && container?.type === 'json') {
    const pages = await fetchPages(source.feed, pagination, container.records, { request, ...timing });
    return { ...pages, pagedRecords: true };
  }
  const conditional = options.conditional;
  const result = await fetchFeed(source.feed, {
    request,
    ...(conditional !== undefined && (conditional.etag !== undefined || conditional.lastModified !== undefined) && { conditional }),
    ...timing,
  });
  if (result.notModified) return { unchanged: conditional?.etag !== undefined ? 'etag' : 'last-modified' };
  const file = await spool(result.body);
  return {
    ...file,
    pagedRecords: false,
    ...(result.etag !== undefined && { etag: result.etag }),
    ...(result.lastModified !== undefined && { lastModified: result.lastModified }),
  };
}
