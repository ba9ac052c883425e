import { FeedSyntaxError, PROFILE_FIELD_NAMES, type FeedItem, type SourceConfig } from '@domain-index/indexer';
import { batchRejection, unreadableFeedReason } from '../indexing/import-batch';
import { stageItem } from '../indexing/stage-item';
import { FeedFetchError } from './fetch-error';

/** The fields of a checked row: the feed format's (decisions.md), in its order; `source` is the batch's. */
const ROW_FIELDS = ['domain_name', 'status', ...PROFILE_FIELD_NAMES.slice(1)] as const;

/** Bad records listed, at most. */
export const LISTED_ERRORS = 20;

/** What a check found: counts, the first bad records, a sample of normalised rows. */
export interface CheckResult {
  good: number;
  bad: number;
  skipped: number;
  /** Record numbers are lines of a text file (its header is line 1) or positions in a JSON array; null for the feed as a whole. */
  errors: { record: number | null; reason: string }[];
  rows: Record<string, string | number | boolean | null>[];
  skippedReasons: Record<string, number>;
  /** Why the whole feed is unusable, when it is. */
  fatal?: string;
  /** Whether an import would apply the feed (the rules of import-batch: at most 5% bad rows, one good row). */
  acceptable: boolean;
}

/**
 * Reads a feed's items through the very rules an import applies (the profile's mapping, the
 * feed format's validation, normalisation) and writes nothing: counts, the first bad records
 * with their reasons, and the first `sample` rows as they would be indexed. Names listed
 * twice are not looked for (an import keeps the last and counts the others as bad).
 */
export async function checkFeed(items: AsyncIterable<FeedItem>, source: SourceConfig, sample: number): Promise<CheckResult> {
  const result: CheckResult = { good: 0, bad: 0, skipped: 0, errors: [], rows: [], skippedReasons: {}, acceptable: false };
  try {
    for await (const item of items) {
      const staged = stageItem(item, source);
      if ('row' in staged) {
        result.good += 1;
        if (result.rows.length < sample) result.rows.push(Object.fromEntries(ROW_FIELDS.map((field) => [field, staged.row[field]])));
      } else if ('rejected' in staged) {
        result.bad += 1;
        if (result.errors.length < LISTED_ERRORS) result.errors.push({ record: staged.rejected.line, reason: staged.rejected.reason });
      } else {
        result.skipped += 1;
        result.skippedReasons[staged.skipped.reason] = (result.skippedReasons[staged.skipped.reason] ?? 0) + 1;
      }
    }
  } catch (error) {
    const unreadable = unreadableFeedReason(error);
    if (unreadable !== undefined) result.fatal = unreadable;
    else if (error instanceof FeedFetchError) result.fatal = error.message;
    else throw error;
    result.errors.push({ record: error instanceof FeedSyntaxError && error.line > 0 ? error.line : null, reason: result.fatal });
  }
  // the import's own rule (import-batch.ts), on the rows this read
  result.acceptable = result.fatal === undefined && batchRejection(result.good + result.bad, result.bad) === undefined;
  return result;
}
