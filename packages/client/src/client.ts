import type { Domain, EventListEnvelope, EventParams, ListEnvelope, LookupEnvelope, SearchParams, StatsEnvelope } from './generated/api-types';
import { DomainIndexError } from './errors';
import { EventPage } from './event-page';
import { DomainPage, PagePromise, type ListOptions } from './pagination';
import type { RateLimitInfo } from './rate-limit';
import { getJson, type RequestOptions, type TransportSettings } from './transport';
import { watchEvents, type WatchOptions } from './watch';

/** Options of a client. */
export interface ClientOptions {
  /** Your API key. Default: the `DOMAIN_INDEX_API_KEY` environment variable. Sent only in the Authorization header. */
  apiKey?: string | undefined;
  /** Where the API runs, without `/api/v1`. Default: `DOMAIN_INDEX_BASE_URL`, else `http://127.0.0.1:3000`. */
  baseUrl?: string | undefined;
  /** Milliseconds before one attempt is abandoned. Default 30,000. */
  timeout?: number | undefined;
  /** Retries after a 429, a 5xx or a failed connection. Default 2. */
  maxRetries?: number | undefined;
  /** The longest Retry-After (seconds) worth waiting out; a longer one throws at once. Default 60. */
  maxRetryAfter?: number | undefined;
  /** A fetch implementation; default the global fetch of Node 18+. */
  fetch?: typeof fetch | undefined;
}

/** Index statistics, with the API's note on how they are measured. */
export type Stats = StatsEnvelope['data'] & { meta: StatsEnvelope['meta'] };

function environment(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name];
  return value === undefined || value === '' ? undefined : value;
}

/** Query string of search parameters: numbers and booleans as plain text, absent ones left out. */
function toQuery(params: SearchParams & { cursor?: string }): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.set(name, String(value));
  }
  return query;
}

/** Query string of change-feed parameters: `type` as comma-separated text. */
function toEventQuery(params: EventParams): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    query.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  return query;
}

/**
 * The Domain Index API client.
 *
 * ```ts
 * const client = new DomainIndex({ apiKey: process.env.DOMAIN_INDEX_API_KEY });
 * for await (const domain of client.domains.list({ search: 'cloud', tld: 'com' })) console.log(domain.domain_name);
 * ```
 */
export class DomainIndex {
  /** Search and lookup of listed domains. */
  readonly domains: {
    /** One page of a search (await it), or every row across pages (iterate it with `for await`). */
    list(params?: SearchParams, options?: ListOptions): PagePromise;
    /** One listed domain; throws NotFoundError when it is not currently listed. */
    get(domain: string, options?: RequestOptions): Promise<Domain>;
  };
  /** The change feed: what changed in the index, in commit order, filtered like a search. */
  readonly events: {
    /**
     * One page of events after `params.after` (default: the oldest kept; `'now'`: the newest),
     * when awaited; every event from there while `has_more`, when iterated with `for await`.
     */
    list(params?: EventParams, options?: ListOptions): PagePromise<EventPage>;
    /**
     * The pages of the feed while `has_more`, up to `maxPages`. Store each page's `next_cursor`
     * once its events are handled, and pass it as `after` to resume, even in another process,
     * without a gap or a repeat.
     */
    pages(params?: EventParams, options?: ListOptions): AsyncGenerator<EventPage, void, undefined>;
    /**
     * Polls the feed from `params.after` (default `'now'`) until `options.signal` fires, handing
     * each page's events to `options.onEvents`: pages back to back while `has_more`, then one
     * poll every `intervalMs` (default 30 s); retries 429, 5xx and network failures without end,
     * with jittered exponential backoff (honouring Retry-After); rejects on any other error
     * (e.g. AuthenticationError, InvalidRequestError, CursorExpiredError). Resolves, when
     * stopped, with the cursor to resume from.
     */
    watch(params: EventParams, options: WatchOptions): Promise<string>;
  };
  private readonly settings: TransportSettings;
  private latestRateLimit: RateLimitInfo | undefined;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? environment('DOMAIN_INDEX_API_KEY');
    if (apiKey === undefined || apiKey === '') {
      throw new DomainIndexError('missing API key: pass { apiKey } to new DomainIndex() or set DOMAIN_INDEX_API_KEY');
    }
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') {
      throw new DomainIndexError('no fetch available: use Node.js 18 or later, or pass { fetch }');
    }
    this.settings = {
      apiKey,
      baseUrl: (options.baseUrl ?? environment('DOMAIN_INDEX_BASE_URL') ?? 'http://127.0.0.1:3000').replace(/\/+$/, ''),
      timeout: options.timeout ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
      maxRetryAfter: options.maxRetryAfter ?? 60,
      fetch: fetchImpl,
      onRateLimit: (info) => {
        this.latestRateLimit = info;
      },
    };
    const fetchPage = (params: SearchParams & { cursor?: string }, requestOptions: RequestOptions) =>
      getJson<ListEnvelope>(this.settings, '/domains', toQuery(params), requestOptions);
    this.domains = {
      list: (params = {}, listOptions = {}) =>
        new PagePromise(async () => new DomainPage(await fetchPage(params, listOptions), params, listOptions, fetchPage)),
      get: async (domain, requestOptions) =>
        (await getJson<LookupEnvelope>(this.settings, `/domains/${encodeURIComponent(domain)}`, undefined, requestOptions)).data,
    };
    const fetchEvents = (params: EventParams, requestOptions: RequestOptions) =>
      getJson<EventListEnvelope>(this.settings, '/events', toEventQuery(params), requestOptions);
    const listEvents = (params: EventParams = {}, listOptions: ListOptions = {}) =>
      new PagePromise<EventPage>(async () => new EventPage(await fetchEvents(params, listOptions), params, listOptions, fetchEvents));
    this.events = {
      list: listEvents,
      pages: (params, listOptions) => listEvents(params, listOptions).iterPages(),
      watch: (params, watchOptions) => watchEvents(fetchEvents, params, watchOptions),
    };
  }

  /** Index-wide counts: total, live, retrievable, by status and by marketplace. */
  async stats(options?: RequestOptions): Promise<Stats> {
    const envelope = await getJson<StatsEnvelope>(this.settings, '/stats', undefined, options);
    return { ...envelope.data, meta: envelope.meta };
  }

  /** The rate-limit state reported by the latest response, if it carried one. */
  get rateLimit(): RateLimitInfo | undefined {
    return this.latestRateLimit;
  }
}
