import { createHash } from 'node:crypto';
import { sourceBatches, sourceSyncs, eq, type Database } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';

/** What identifies the feed of the batch a source has in the index (source_syncs.feed_validators). */
export interface FeedValidators {
  /** The source's configuration when the batch was read: another profile or mapping reads the same bytes differently. */
  fingerprint: string;
  /** source_batches.applied_at of that batch, ISO: any later switch (an import, a seed) invalidates these. */
  appliedAt: string;
  sha256: string;
  etag?: string;
  lastModified?: string;
}

/** A fingerprint of everything in a source's configuration that decides what its feed loads. */
export function fingerprintOf(source: SourceConfig): string {
  const { id, feed, format, fieldMapping, profile, headers, query, currencyRates } = source;
  // headers and query hold env: references, never secret values (the sources file forbids them)
  return createHash('sha256').update(JSON.stringify({ id, feed, format, fieldMapping, profile, headers, query, currencyRates })).digest('hex');
}

/**
 * The validators of the source's batch in the index, if the index still holds the batch they
 * were recorded with and the source's configuration has not changed since.
 */
export async function currentValidators(database: Database, source: SourceConfig): Promise<FeedValidators | undefined> {
  const [sync] = await database.db.select({ validators: sourceSyncs.feedValidators }).from(sourceSyncs).where(eq(sourceSyncs.source, source.id));
  const [batch] = await database.db.select({ appliedAt: sourceBatches.appliedAt }).from(sourceBatches).where(eq(sourceBatches.source, source.id));
  const validators = sync?.validators as FeedValidators | null | undefined;
  if (validators === null || validators === undefined || batch === undefined) return undefined;
  if (validators.fingerprint !== fingerprintOf(source) || validators.appliedAt !== batch.appliedAt.toISOString()) return undefined;
  return validators;
}
