import type {
  Alert,
  AlertWithSecret,
  CreateAlert,
  DeletedAlert,
  DeliveryListEnvelope,
  DeliveryParams,
  Domain,
  EventListEnvelope,
  EventParams,
  ExportParams,
  ListEnvelope,
  LookupEnvelope,
  QueuedDelivery,
  SearchParams,
  StatsEnvelope,
  UpdateAlert,
  AddedDomains,
  CreatedWatchlist,
  CreateWatchlist,
  DeletedWatchlist,
  Name,
  NameEnvelope,
  RemovedDomain,
  UpdateWatchlist,
  WatchedDomainListEnvelope,
  WatchedDomainParams,
  Watchlist,
} from './generated/api-types';
import { WatchedDomainPage } from './watched-domain-page';
import { AlertPage } from './alert-page';
import { DeliveryPage } from './delivery-page';
import { DomainIndexError } from './errors';
import { EventPage } from './event-page';
import { DomainPage, PagePromise, type ListOptions } from './pagination';
import type { RateLimitInfo } from './rate-limit';
import { getJson, getStream, requestJson, type RequestOptions, type TransportSettings } from './transport';
import { parseExportLines } from './export-rows';
import { watchEvents, type WatchOptions } from './watch';

/** Options of a client. */
export interface ClientOptions {
  /** Your API key. Default: the `DOMAIN_INDEX_API_KEY` environment variable. Sent only in the Authorization header. */
  apiKey?: string | undefined;
  /** Where the API runs, without `/api/v1`. Default: `DOMAIN_INDEX_BASE_URL`, else `http://127.0.0.1:3000`. */
  baseUrl?: string | undefined;
  /** Milliseconds before one attempt is abandoned. Default 30,000. */
  timeout?: number | undefined;
  /**
   * Retries after a 429, a 5xx or a failed connection. Default 2. Writes (creating, changing,
   * deleting an alert, sending a test) are retried only when the API certainly did not act.
   */
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

/** Query string of search (or delivery log) parameters: numbers and booleans as plain text, absent ones left out. */
function toQuery(params: (SearchParams & { cursor?: string }) | DeliveryParams | WatchedDomainParams | ExportParams): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.set(name, String(value));
  }
  return query;
}

/** A path segment from a caller's value (a domain, an id): never empty, which would name another endpoint. */
function segment(what: string, value: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${what} must be a non-empty string`);
  return encodeURIComponent(value);
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
    /**
     * Every listing a search with these filters finds, in its order, as the export's bytes
     * (`format`: `csv` or `jsonl`), decoded from gzip, as a web ReadableStream; for a Node
     * Readable, `Readable.fromWeb(stream)` from `node:stream`. Errors before the first byte (429
     * with the rows it would take, 403 export_too_large) are thrown; a CSV export that fails
     * part-way errors the stream, a JSONL one ends with an error line.
     */
    export(params: ExportParams & { format: 'csv' | 'jsonl' }, options?: RequestOptions): Promise<ReadableStream<Uint8Array>>;
    /**
     * Every listing a search with these filters finds, parsed from a JSON-lines export as it
     * arrives. Throws when the export failed part-way or was cut off: a loop that ends normally
     * has seen every row.
     */
    exportRows(params?: Omit<ExportParams, 'format' | 'summary'>, options?: RequestOptions): AsyncGenerator<Domain, void, undefined>;
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
  /**
   * Alerts: saved change-feed queries whose matches are delivered by a signed webhook, an email
   * digest, or both. The one resource a customer writes.
   */
  readonly alerts: {
    /**
     * Creates an alert. Its `webhook_secret` (`whsec_…`, to verify the webhooks with
     * `verifyWebhook()`) is in this answer only: store it. PermissionDeniedError
     * (`alert_limit_reached`) when the plan allows no more alerts; InvalidRequestError naming
     * the field for a bad query, a webhook URL that may not be reached, or no channel at all.
     */
    create(body: CreateAlert, options?: RequestOptions): Promise<AlertWithSecret>;
    /**
     * Your alerts (the key's account's, or the key's own), newest first, each with its latest
     * delivery: when awaited, an AlertPage, which is also the array of the alerts; iterated with
     * `for await`, every alert (up to `maxItems`).
     */
    list(options?: ListOptions): PagePromise<AlertPage>;
    /** One alert; NotFoundError (`alert_not_found`) when no alert of yours has that id. */
    get(id: string, options?: RequestOptions): Promise<Alert>;
    /**
     * Changes the given fields (null removes a channel; one must remain). `webhook_secret` is
     * set when the alert gets its first webhook (store it), null otherwise.
     */
    update(id: string, body: UpdateAlert, options?: RequestOptions): Promise<AlertWithSecret>;
    /** Deletes an alert; its messages not yet delivered are dropped. */
    delete(id: string, options?: RequestOptions): Promise<DeletedAlert>;
    /** Queues a message of type `test` (no events) to the alert's webhook now; its `id` is the `webhook-id` your receiver sees. */
    test(id: string, options?: RequestOptions): Promise<QueuedDelivery>;
    /**
     * The alert's webhook attempts of the last 7 days, newest first: one page when awaited,
     * every attempt when iterated with `for await` (bounded by `maxItems`, `maxPages`).
     */
    deliveries(id: string, params?: DeliveryParams, options?: ListOptions): PagePromise<DeliveryPage>;
    /** Queues a message again now, with the same `webhook-id`; NotFoundError (`delivery_not_found`) for a message the alert does not have. */
    resend(id: string, deliveryId: string, options?: RequestOptions): Promise<QueuedDelivery>;
    /** A new signing secret, in this answer only; for 24 hours every message is signed with both the new and the old one. */
    rotateSecret(id: string, options?: RequestOptions): Promise<AlertWithSecret>;
  };
  /** Names, listed or not: every marketplace's listing of one, its registration, its history. */
  readonly names: {
    /**
     * Everything known of a name (ASCII or punycode; a Unicode name is InvalidRequestError
     * `invalid_domain`). `refresh: true` asks RDAP now when the last check is over 10 minutes
     * old; RateLimitError (`refresh_limit_reached`) when the key's hourly refreshes are used.
     */
    get(domain: string, params?: { refresh?: boolean }, options?: RequestOptions): Promise<Name>;
  };
  /**
   * Watchlists: names you follow. Each name is checked by RDAP on a schedule that follows its
   * life, and its changes come as `name.*` events (`client.events.list({ watchlist })`, alerts
   * with `watchlist_id`).
   */
  readonly watchlists: {
    /** Creates a watchlist with its first names; `refused` lists the names that are not valid, by index. PermissionDeniedError (`watch_limit_reached`) past the plan. */
    create(body: CreateWatchlist, options?: RequestOptions): Promise<CreatedWatchlist>;
    /** Your watchlists, newest first. */
    list(options?: RequestOptions): Promise<Watchlist[]>;
    /** One watchlist; NotFoundError (`watchlist_not_found`) when no watchlist of yours has that id. */
    get(id: string, options?: RequestOptions): Promise<Watchlist>;
    /** Renames a watchlist. */
    update(id: string, body: UpdateWatchlist, options?: RequestOptions): Promise<Watchlist>;
    /** Deletes a watchlist and its names; ConflictError (`watchlist_in_use`) while an alert delivers its events. */
    delete(id: string, options?: RequestOptions): Promise<DeletedWatchlist>;
    /** Adds up to 1,000 names; valid ones are added, invalid ones reported by index. PermissionDeniedError (`watch_limit_reached`) past the plan. */
    addDomains(id: string, domains: string[], options?: RequestOptions): Promise<AddedDomains>;
    /** Stops watching a name; NotFoundError (`domain_not_found`) when it is not on the list. */
    removeDomain(id: string, domain: string, options?: RequestOptions): Promise<RemovedDomain>;
    /** The watchlist's names in name order, each with its phase, listings and next check: one page when awaited, every name when iterated with `for await`. */
    domains(id: string, params?: WatchedDomainParams, options?: ListOptions): PagePromise<WatchedDomainPage>;
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
    const settings = this.settings;
    const fetchPage = (params: SearchParams & { cursor?: string }, requestOptions: RequestOptions) =>
      getJson<ListEnvelope>(this.settings, '/domains', toQuery(params), requestOptions);
    this.domains = {
      list: (params = {}, listOptions = {}) =>
        new PagePromise(async () => new DomainPage(await fetchPage(params, listOptions), params, listOptions, fetchPage)),
      get: async (domain, requestOptions) =>
        (await getJson<LookupEnvelope>(this.settings, `/domains/${segment('domain', domain)}`, undefined, requestOptions)).data,
      export: async (params, requestOptions) => {
        const response = await getStream(this.settings, '/exports/domains', toQuery(params), requestOptions);
        if (response.body === null) throw new DomainIndexError('the export has no body', { status: response.status, headers: response.headers });
        return response.body;
      },
      exportRows: async function* (params = {}, requestOptions = {}) {
        const response = await getStream(settings, '/exports/domains', toQuery({ ...params, format: 'jsonl', summary: true }), requestOptions);
        yield* parseExportLines(response);
      },
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
    const alert = (id: string) => `/alerts/${segment('id', id)}`;
    const fetchDeliveries = (id: string) => (params: DeliveryParams, requestOptions: RequestOptions) =>
      getJson<DeliveryListEnvelope>(this.settings, `${alert(id)}/deliveries`, toQuery(params), requestOptions);
    this.alerts = {
      create: async (body, requestOptions) => requestJson<AlertWithSecret>(this.settings, { method: 'POST', path: '/alerts', body }, requestOptions),
      list: (listOptions = {}) =>
        new PagePromise<AlertPage>(async () => new AlertPage((await getJson<{ data: Alert[] }>(this.settings, '/alerts', undefined, listOptions)).data, listOptions)),
      get: async (id, requestOptions) => getJson<Alert>(this.settings, alert(id), undefined, requestOptions),
      update: async (id, body, requestOptions) => requestJson<AlertWithSecret>(this.settings, { method: 'PATCH', path: alert(id), body }, requestOptions),
      delete: async (id, requestOptions) => requestJson<DeletedAlert>(this.settings, { method: 'DELETE', path: alert(id) }, requestOptions),
      test: async (id, requestOptions) => requestJson<QueuedDelivery>(this.settings, { method: 'POST', path: `${alert(id)}/test` }, requestOptions),
      deliveries: (id, params = {}, listOptions = {}) => {
        const fetchPage = fetchDeliveries(id);
        return new PagePromise<DeliveryPage>(async () => new DeliveryPage(await fetchPage(params, listOptions), params, listOptions, fetchPage));
      },
      resend: async (id, deliveryId, requestOptions) =>
        requestJson<QueuedDelivery>(this.settings, { method: 'POST', path: `${alert(id)}/deliveries/${segment('deliveryId', deliveryId)}/resend` }, requestOptions),
      rotateSecret: async (id, requestOptions) => requestJson<AlertWithSecret>(this.settings, { method: 'POST', path: `${alert(id)}/rotate-secret` }, requestOptions),
    };
    this.names = {
      get: async (domain, params = {}, requestOptions) =>
        (await getJson<NameEnvelope>(this.settings, `/names/${segment('domain', domain)}`, params.refresh === undefined ? undefined : new URLSearchParams({ refresh: String(params.refresh) }), requestOptions)).data,
    };
    const watchlist = (id: string) => `/watchlists/${segment('id', id)}`;
    const fetchWatched = (id: string) => (params: WatchedDomainParams, requestOptions: RequestOptions) =>
      getJson<WatchedDomainListEnvelope>(this.settings, `${watchlist(id)}/domains`, toQuery(params), requestOptions);
    this.watchlists = {
      create: async (body, requestOptions) => requestJson<CreatedWatchlist>(this.settings, { method: 'POST', path: '/watchlists', body }, requestOptions),
      list: async (requestOptions) => (await getJson<{ data: Watchlist[] }>(this.settings, '/watchlists', undefined, requestOptions)).data,
      get: async (id, requestOptions) => getJson<Watchlist>(this.settings, watchlist(id), undefined, requestOptions),
      update: async (id, body, requestOptions) => requestJson<Watchlist>(this.settings, { method: 'PATCH', path: watchlist(id), body }, requestOptions),
      delete: async (id, requestOptions) => requestJson<DeletedWatchlist>(this.settings, { method: 'DELETE', path: watchlist(id) }, requestOptions),
      addDomains: async (id, domains, requestOptions) => requestJson<AddedDomains>(this.settings, { method: 'POST', path: `${watchlist(id)}/domains`, body: { domains } }, requestOptions),
      removeDomain: async (id, domain, requestOptions) =>
        requestJson<RemovedDomain>(this.settings, { method: 'DELETE', path: `${watchlist(id)}/domains/${segment('domain', domain)}` }, requestOptions),
      domains: (id, params = {}, listOptions = {}) => {
        const fetchPage = fetchWatched(id);
        return new PagePromise<WatchedDomainPage>(async () => new WatchedDomainPage(await fetchPage(params, listOptions), params, listOptions, fetchPage));
      },
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
