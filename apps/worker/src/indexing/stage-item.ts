import { parseFeedRecord, type FeedItem, type SourceConfig } from '@domain-index/indexer';
import type { StagedListing } from './listing-columns';
import { toStagedListing } from './to-staged-listing';

/** A bad row (or a row a profile skipped on purpose): where it was and why. */
export interface RejectedRow {
  line: number;
  reason: string;
}

/** A staging table row: the listing and the feed line it came from. */
export type StagedRow = StagedListing & { line: number };

/**
 * Validates one feed item of a source's batch and derives its index row, or says why the line
 * is a bad row. The one rule set of every staging path (in this thread or a worker's).
 */
export function stageItem(item: FeedItem, source: SourceConfig): { row: StagedRow } | { rejected: RejectedRow } | { skipped: RejectedRow } {
  if ('error' in item) return { rejected: { line: item.line, reason: item.error } };
  if ('skipped' in item) return { skipped: { line: item.line, reason: item.skipped } };
  const parsed = parseFeedRecord(item.record, source.fieldMapping);
  if (!parsed.ok) return { rejected: { line: item.line, reason: parsed.reason } };
  if (parsed.row.source !== null && parsed.row.source !== source.id) {
    return { rejected: { line: item.line, reason: `source ${parsed.row.source} does not match the batch's source ${source.id}` } };
  }
  const staged = toStagedListing(parsed.row, source.id);
  if (!staged.ok) return { rejected: { line: item.line, reason: staged.reason } };
  return { row: { line: item.line, ...staged.listing } };
}
