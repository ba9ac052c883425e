// The real API in this process, on an in-memory PGlite, with the real import path: what a
// change-feed test needs to make events happen while a client reads them. (The embedded
// `serve` of live-api.ts cannot be imported into from outside its process.)
import { systemClock } from '@domain-index/runtime/clock';
import { lockEventLog } from '@domain-index/events/event-log-lock';
import { dropExpiredEventPartitions } from '@domain-index/events/partitions';
import { importBatch, type ImportOptions, type ImportSummary } from '@domain-index/worker/indexing/import-batch';
import { jsonlFeed } from '@domain-index/test-support/feeds';
import { startApi } from '@domain-index/api/test/support/start-api';

type SourceConfig = ImportOptions['source'];

/** The one marketplace of these tests. */
export const SOURCE: SourceConfig = { id: 'alpha', name: 'alpha', everyMinutes: 60, feed: 'alpha.jsonl', format: 'jsonl' };

export interface EventsApi {
  readonly baseUrl: string;
  /** A key of the unmetered test plan. */
  readonly apiKey: string;
  /** Imports a batch of the source through the import path of `domain-index import`; it must apply. */
  load(records: readonly Record<string, unknown>[]): Promise<ImportSummary>;
  /** Drops every event as retention would once they are days old: older cursors then answer 410. */
  expireEvents(): Promise<void>;
  close(): Promise<void>;
}

export async function startEventsApi(): Promise<EventsApi> {
  const api = await startApi('pglite', { sources: [SOURCE] });
  const { database } = api.test;
  return {
    baseUrl: api.baseUrl,
    apiKey: api.apiKey,
    async load(records) {
      const summary = await importBatch({ database, source: SOURCE, clock: systemClock, input: jsonlFeed(records) });
      if (summary.outcome !== 'applied') throw new Error(`the batch was not applied: ${summary.reason ?? ''}`);
      return summary;
    },
    async expireEvents() {
      // a 1-day retention five days from now: every partition of today is past it
      await dropExpiredEventPartitions(database, new Date(Date.now() + 5 * 24 * 3_600_000), 1, lockEventLog);
    },
    close: () => api.close(),
  };
}
