import { setTimeout as sleep } from 'node:timers/promises';
import { withAdvisoryLock, type Database } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import type { Clock } from '@domain-index/runtime/clock';
import { acquireFeed } from '../feeds/acquire-feed';
import { openFeedInput, type OpenedFeed } from '../feeds/feed-input';
import { FeedFetchError } from '../feeds/fetch-error';
import { redact, secretsOf } from '../feeds/request';
import { currentValidators, fingerprintOf } from '../feeds/validators';
import type { Logger } from '@domain-index/runtime/logger';
import { failureLine } from '@domain-index/runtime/failure-line';
import { importBatch, rejectedSummary, unreadableFeedReason, type ImportSummary } from './import-batch';
import { recordSync } from './record-sync';

/** What a sync of one source did. */
export type SyncResult =
  | { status: 'applied' | 'rejected'; summary: ImportSummary; attempts: number }
  | { status: 'unchanged'; reason: string; attempts: number }
  | { status: 'failed'; reason: string; attempts: number }
  | { status: 'skipped'; reason: string };

export interface SyncSourceOptions {
  database: Database;
  clock: Clock;
  logger: Logger;
  /** Attempts per sync, the first included. */
  maxAttempts?: number;
  /** First backoff; each retry doubles it, with ±50% jitter. */
  backoffMs?: number;
  random?: () => number;
  signal?: AbortSignal;
}

/**
 * Fetches and imports one source's feed under a per-source advisory lock, so two workers never
 * sync one source at once (the second skips). Fetch and database failures are retried with
 * exponential backoff and jitter; a failed or rejected sync keeps the source's previous batch.
 */
export async function syncSource(source: SourceConfig, options: SyncSourceOptions): Promise<SyncResult> {
  const lock = await withAdvisoryLock(options.database, `domain-index:sync:${source.id}`, () => syncLocked(source, options));
  if (!lock.acquired) {
    options.logger.info({ source: source.id }, 'sync skipped: another worker is syncing this source');
    return { status: 'skipped', reason: 'another worker holds the lock' };
  }
  if (lock.lost !== undefined) {
    // The batch still switched under its own per-source lock; only the "one worker per source" promise lapsed.
    options.logger.warn({ source: source.id, err: lock.lost }, "the source's sync lock was lost while it ran (its connection closed); another worker may have synced it too");
  }
  return lock.value;
}

/**
 * One attempt: fetch (conditionally, with the validators of the batch in the index), skip an
 * unchanged feed without a batch switch, else import and record the new validators.
 */
async function attemptSync(source: SourceConfig, options: SyncSourceOptions, startedAt: Date): Promise<SyncResult & { status: 'applied' | 'rejected' | 'unchanged' }> {
  const { database, clock, logger } = options;
  const known = await currentValidators(database, source);
  const feed = await acquireFeed(source, {
    ...(known !== undefined && { conditional: { ...(known.etag !== undefined && { etag: known.etag }), ...(known.lastModified !== undefined && { lastModified: known.lastModified }) } }),
    ...(options.signal !== undefined && { signal: options.signal }),
  });
  const unchanged = async (reason: string) => {
    await recordSync(database, source.id, startedAt, clock.now(), 'unchanged', { reason });
    logger.info({ source: source.id, reason }, 'sync skipped: the feed has not changed');
    return { status: 'unchanged' as const, reason, attempts: 0 };
  };
  if (feed.unchanged !== undefined) return unchanged(`the server answered 304 Not Modified to the ${feed.unchanged === 'etag' ? 'ETag' : 'Last-Modified'} of the applied batch`);
  try {
    if (known !== undefined && known.sha256 === feed.sha256) return await unchanged("the feed's content hash is the applied batch's");
    let opened: OpenedFeed;
    try {
      opened = await openFeedInput(source, { path: feed.path }, { pagedRecords: feed.pagedRecords, now: clock.now() });
    } catch (error) {
      // an archive that cannot be opened (or holds two files) is rejected like a bad feed, not retried
      const reason = unreadableFeedReason(error);
      if (reason === undefined) throw error;
      const summary = { ...rejectedSummary(source.id, reason), seconds: (clock.now().getTime() - startedAt.getTime()) / 1000 };
      await recordSync(database, source.id, startedAt, clock.now(), 'rejected', summary);
      logger.warn({ source: source.id, reason }, 'sync batch rejected; previous batch kept');
      return { status: 'rejected', summary, attempts: 0 };
    }
    let summary: ImportSummary;
    try {
      summary = await importBatch({ database, source, clock, ...('records' in opened ? { records: opened.records, parallel: true } : { input: opened.input, format: opened.format }) });
    } finally {
      await opened.close();
    }
    const validators =
      summary.appliedAt === undefined
        ? undefined
        : {
            fingerprint: fingerprintOf(source),
            appliedAt: summary.appliedAt.toISOString(),
            sha256: feed.sha256,
            ...(feed.etag !== undefined && { etag: feed.etag }),
            ...(feed.lastModified !== undefined && { lastModified: feed.lastModified }),
          };
    await recordSync(database, source.id, startedAt, clock.now(), summary.outcome, summary, validators);
    const { rejectedRows: _rows, appliedAt: _at, ...counts } = summary;
    if (summary.outcome === 'applied') logger.info(counts, 'sync batch applied');
    else logger.warn({ ...counts, firstRejected: summary.rejectedRows.slice(0, 5) }, 'sync batch rejected; previous batch kept');
    return { status: summary.outcome, summary, attempts: 0 };
  } finally {
    await feed.dispose();
  }
}

async function syncLocked(source: SourceConfig, options: SyncSourceOptions): Promise<SyncResult> {
  const { database, clock, logger } = options;
  const maxAttempts = options.maxAttempts ?? 4;
  const backoffMs = options.backoffMs ?? 5_000;
  const random = options.random ?? Math.random;
  const secrets = secretsOf(source);
  const startedAt = clock.now();
  let lastReason = 'not attempted';
  let attempts = 0;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    attempts = attempt;
    try {
      const result = await attemptSync(source, options, startedAt);
      return { ...result, attempts: attempt };
    } catch (error) {
      // one line, never a statement or its parameter values (the feed's rows)
      lastReason = redact(failureLine(error), secrets);
      const retryable = !(error instanceof FeedFetchError) || error.retryable;
      logger.warn({ source: source.id, attempt, maxAttempts, retryable, reason: lastReason }, 'sync attempt failed');
      if (!retryable || attempt === maxAttempts || options.signal?.aborted === true) break;
      const delay = backoffMs * 2 ** (attempt - 1) * (0.5 + random());
      await sleep(delay, undefined, options.signal === undefined ? {} : { signal: options.signal }).catch(() => undefined);
    }
  }
  await recordSync(database, source.id, startedAt, clock.now(), 'failed', { reason: lastReason }).catch((error: unknown) => {
    logger.error({ source: source.id, err: error }, 'could not record the failed sync');
  });
  logger.error({ source: source.id, reason: lastReason }, 'sync failed; previous batch kept');
  return { status: 'failed', reason: lastReason, attempts };
}
