import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { SourceConfig } from '@domain-index/indexer';

/** A feed that could not be opened; `retryable` says whether another attempt may succeed. */
export class FeedFetchError extends Error {
  override readonly name = 'FeedFetchError';
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** How long to wait for a feed server's response headers. */
const RESPONSE_TIMEOUT_MS = 60_000;

/**
 * Opens a source's feed as a stream: an http(s) URL is fetched (5xx, 429 and network failures
 * are retryable, other statuses are not), anything else is a file path.
 */
export async function openFeed(source: SourceConfig, signal?: AbortSignal): Promise<Readable> {
  if (!/^https?:\/\//i.test(source.feed)) {
    const stream = createReadStream(source.feed);
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', (error) => reject(new FeedFetchError(`cannot read ${source.feed}: ${error.message}`, false, { cause: error })));
    });
    return stream;
  }
  const timeout = AbortSignal.timeout(RESPONSE_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(source.feed, { signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]) });
  } catch (error) {
    throw new FeedFetchError(`cannot fetch ${source.feed}: ${error instanceof Error ? error.message : String(error)}`, true, { cause: error });
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    const retryable = response.status >= 500 || response.status === 429;
    throw new FeedFetchError(`fetching ${source.feed} answered HTTP ${response.status}`, retryable);
  }
  return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
}
