import type { SourceSyncRow } from '@domain-index/db';
import type { SourceConfig } from '@domain-index/indexer';
import { describe, expect, it } from 'vitest';
import { reportableReason, syncStateOf } from './sync-state';

const source: SourceConfig = { id: 'bidhaus', name: 'BidHaus', everyMinutes: 90, feed: 'https://bidhaus.example/feed.jsonl', format: 'jsonl' };
const at = (iso: string) => new Date(iso);

function row(fields: Partial<SourceSyncRow>): SourceSyncRow {
  return { source: 'bidhaus', lastStartedAt: null, lastFinishedAt: null, lastOutcome: null, lastSummary: null, consecutiveFailures: 0, feedValidators: null, ...fields };
}

describe('a source sync state', () => {
  it('is due now, without a success or an error, for a source that never synced', () => {
    expect(syncStateOf(source, undefined, undefined)).toEqual({
      source: 'bidhaus',
      lastOutcome: undefined,
      lastFinishedAt: undefined,
      lastSuccess: undefined,
      consecutiveFailures: 0,
      nextDue: undefined,
      lastError: undefined,
    });
  });

  it('is due one retry delay after a failed sync, and names the error and the failures in a row', () => {
    const state = syncStateOf(
      source,
      row({ lastFinishedAt: at('2026-11-21T12:00:00.000Z'), lastOutcome: 'failed', lastSummary: { reason: 'fetching https://bidhaus.example/feed.jsonl answered HTTP 503' }, consecutiveFailures: 3 }),
      at('2026-11-20T09:00:00.000Z'),
    );
    expect(state).toEqual({
      source: 'bidhaus',
      lastOutcome: 'failed',
      lastFinishedAt: at('2026-11-21T12:00:00.000Z'),
      lastSuccess: at('2026-11-20T09:00:00.000Z'),
      consecutiveFailures: 3,
      // the third failure in a row: tried again 15 minutes later, not at the 90-minute interval
      nextDue: at('2026-11-21T12:15:00.000Z'),
      lastError: 'fetching https://bidhaus.example/feed.jsonl answered HTTP 503',
    });
  });

  it("takes a rejected batch's reason from its summary", () => {
    const state = syncStateOf(source, row({ lastFinishedAt: at('2026-11-21T12:00:00.000Z'), lastOutcome: 'rejected', lastSummary: { outcome: 'rejected', reason: '40 of 100 rows (40.0%) are bad', rowsRead: 100 }, consecutiveFailures: 1 }), undefined);
    expect(state.lastError).toBe('40 of 100 rows (40.0%) are bad');
    expect(state.lastSuccess).toBeUndefined();
    // a bad feed is fetched again at its interval, not early
    expect(state.nextDue).toEqual(at('2026-11-21T13:30:00.000Z'));
  });

  it('has no error once a sync succeeds, and counts a feed found unchanged after the batch as the last success', () => {
    const state = syncStateOf(source, row({ lastFinishedAt: at('2026-11-21T12:00:00.000Z'), lastOutcome: 'unchanged', lastSummary: { reason: 'the server answered 304 Not Modified' } }), at('2026-11-21T10:00:00.000Z'));
    expect(state).toMatchObject({ lastOutcome: 'unchanged', lastSuccess: at('2026-11-21T12:00:00.000Z'), lastError: undefined, consecutiveFailures: 0, nextDue: at('2026-11-21T13:30:00.000Z') });
  });
});

describe('the reason of a failed sync as shown', () => {
  it.each([
    ['a one-line reason', { reason: 'HTTP 404 from http://127.0.0.1/feed' }, 'HTTP 404 from http://127.0.0.1/feed'],
    ["a failed statement's SQL and parameters", { reason: 'Failed query: create unlogged table "listings_load_1" (like listings)\nparams: bidhaus,s3cr3t' }, 'a database statement failed (the sync log has the details)'],
    ['a stack after the first line', { reason: 'the gzip data is corrupt\n    at Gunzip.zlibOnError (node:zlib:189:17)' }, 'the gzip data is corrupt'],
    ['no reason', {}, 'no reason was recorded'],
    ['no summary', null, 'no reason was recorded'],
    ['a reason that is not text', { reason: 42 }, 'no reason was recorded'],
  ])('%s', (_what, summary, shown) => {
    expect(reportableReason(summary)).toBe(shown);
  });

  it("replaces the source's secrets and cuts a long reason to 300 characters", () => {
    expect(reportableReason({ reason: 'HTTP 401 from https://feeds.example/x?key=s3cr3t' }, ['s3cr3t'])).toBe('HTTP 401 from https://feeds.example/x?key=***');
    const shown = reportableReason({ reason: `bad: ${'x'.repeat(400)}` });
    expect(shown).toHaveLength(300);
    expect(shown.endsWith('…')).toBe(true);
  });
});
