import { setTimeout as sleep } from 'node:timers/promises';
import { withAdvisoryLock, type Database } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import type { Readable } from 'node:stream';
import type { Clock } from '../clock';
import type { Logger } from '../logger';
import { importBatch, type ImportSummary } from './import-batch';
import { FeedFetchError, openFeed } from './open-feed';
import { recordSync } from './record-sync';

/** What a sync of one source did. */
export type SyncResult =
  | { status: 'applied' | 'rejected'; summary: ImportSummary; attempts: number }
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
  openFeed?: (source: SourceConfig, signal?: AbortSignal) => Promise<Readable>;
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
  return lock.value;
}

async function syncLocked(source: SourceConfig, options: SyncSourceOptions): Promise<SyncResult> {
  const { database, clock, logger } = options;
  const maxAttempts = options.maxAttempts ?? 4;
  const backoffMs = options.backoffMs ?? 5_000;
  const random = options.random ?? Math.random;
  const open = options.openFeed ?? openFeed;
  const startedAt = clock.now();
  let lastReason = 'not attempted';
  let attempts = 0;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    attempts = attempt;
    try {
      const input = await open(source, options.signal);
      const summary = await importBatch({ database, source, input, clock });
      await recordSync(database, source.id, startedAt, clock.now(), summary.outcome, summary);
      const { rejectedRows: _rows, ...counts } = summary;
      if (summary.outcome === 'applied') logger.info({ ...counts, attempt }, 'sync batch applied');
      else logger.warn({ ...counts, attempt, firstRejected: summary.rejectedRows.slice(0, 5) }, 'sync batch rejected; previous batch kept');
      return { status: summary.outcome, summary, attempts: attempt };
    } catch (error) {
      lastReason = error instanceof Error ? error.message : String(error);
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
