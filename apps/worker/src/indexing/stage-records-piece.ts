import type { FeedItem, SourceConfig } from '@domain-index/indexer';
import { copyRow } from './copy-rows';
import { nameHash } from './staged-names';
import { stageItem, type RejectedRow } from './stage-item';

/** What staging a run of feed items produced: COPY text of the valid rows, the bad and skipped rows. */
export interface StagedRecords {
  /** The valid rows as COPY text (copyRow lines); null when there are none. */
  rows: string | null;
  /** nameHash of each valid row's name, for StagedNames. */
  names: Float64Array;
  /** Feed items staged: valid, bad and skipped rows. */
  items: number;
  rejected: RejectedRow[];
  skipped: RejectedRow[];
}

/**
 * Validates and derives a run of feed items (records a profile already mapped): a pure
 * function of its input, so it runs the same in this thread or in a staging worker.
 */
export function stageRecordsPiece(items: readonly FeedItem[], source: SourceConfig): StagedRecords {
  let rows = '';
  const names: number[] = [];
  const rejected: RejectedRow[] = [];
  const skipped: RejectedRow[] = [];
  for (const item of items) {
    const staged = stageItem(item, source);
    if ('row' in staged) {
      rows += copyRow(staged.row.line, staged.row);
      names.push(nameHash(staged.row.domain_name as string));
    } else if ('rejected' in staged) rejected.push(staged.rejected);
    else skipped.push(staged.skipped);
  }
  return { rows: rows === '' ? null : rows, names: Float64Array.from(names), items: items.length, rejected, skipped };
}
