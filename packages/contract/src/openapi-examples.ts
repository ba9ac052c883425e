import type { Domain } from './domain';
import type { ListEnvelope, LookupEnvelope, StatsEnvelope } from './envelopes';
import type { ApiErrorBody, ErrorCode } from './errors';
import type { Event, EventListEnvelope } from './events';
import type { Alert, createAlertSchema, updateAlertSchema } from './alerts';
import type { nameEnvelopeSchema, Registration } from './names';
import type { Watchlist, WatchedDomain } from './watchlists';
import type { z } from 'zod';
import type { SearchParams } from './search-params';
import { API_VERSION, COUNTS_NOTE, INDEX_SCORE_CAVEAT } from './texts';

/**
 * The examples of the OpenAPI document. Typed by the contract's own types, so a field added to
 * an object or an error code added to the list fails to compile until it has an example here;
 * a test parses every one with the contract's strict schemas.
 */

/** A search cursor as the API makes them (base64url JSON and a signature); opaque to callers. */
export const CURSOR_EXAMPLE =
  'WyJxOFhjMm1QbDBhWl8xblJ0Iiw3OCwiY2xvdWRraXRjaGVuLmNvbSIsNDgyMTMsMV0.T51x2mJ8N_dXGwGjegamUA';

/** A running auction with SEO metrics, as search and lookup return it. */
export const DOMAIN_EXAMPLE: Domain = {
  domain_name: 'cloudkitchen.com',
  tld: 'com',
  status: 'auction',
  source: 'bidhaus',
  length: 12,
  has_hyphens: false,
  has_numbers: false,
  word_count: 2,
  index_score: 78,
  current_bid: 1250,
  start_price: 500,
  buy_now_price: null,
  bid_count: 14,
  auction_end_time: '2026-11-21T07:04:00.000Z',
  auction_type: 'auction',
  marketplace_url: 'https://bidhaus.example/listing/cloudkitchen.com',
  extensions_taken: 9,
  domain_age: 17,
  valuation: 4800,
  spam_risk: 3,
  seoa_dr: 41,
  seoa_backlinks: 1830,
  seob_tf: 22,
  seob_cf: 35,
  seob_backlinks: 2104,
  seoc_authority: 38,
  seoc_backlinks: 960,
  keyword_search_volume: 5400,
  open_rank: 3.2,
  rankinga_ranking: null,
  rankingb_ranking: null,
  last_sold_price: 2100,
  last_sold_year: 2019,
  last_checked_at: '2026-11-20T18:12:09.417Z',
  updated_at: '2026-11-20T18:12:09.417Z',
};

/** A fixed-price listing without SEO data: most rows look like this one. */
const FIXED_PRICE_EXAMPLE: Domain = {
  ...DOMAIN_EXAMPLE,
  domain_name: 'cloudkitchens.io',
  tld: 'io',
  status: 'available',
  source: 'brandbay',
  length: 13,
  index_score: 52,
  current_bid: null,
  start_price: null,
  buy_now_price: 2900,
  bid_count: null,
  auction_end_time: null,
  auction_type: 'buy_now',
  marketplace_url: 'https://brandbay.example/listing/cloudkitchens.io',
  extensions_taken: 4,
  domain_age: 6,
  valuation: null,
  spam_risk: null,
  seoa_dr: null,
  seoa_backlinks: null,
  seob_tf: null,
  seob_cf: null,
  seob_backlinks: null,
  seoc_authority: null,
  seoc_backlinks: null,
  keyword_search_volume: null,
  open_rank: null,
  last_sold_price: null,
  last_sold_year: null,
};

/** `meta` of every successful response. */
export const META_EXAMPLE: ListEnvelope['meta'] = {
  api_version: API_VERSION,
  index_score: INDEX_SCORE_CAVEAT,
};

/** A first page of a search with more pages to come. */
export const LIST_EXAMPLE: ListEnvelope = {
  object: 'list',
  data: [DOMAIN_EXAMPLE, FIXED_PRICE_EXAMPLE],
  pagination: { page_size: 50, page_index: 0, next_cursor: CURSOR_EXAMPLE, has_more: true },
  total: { value: 318, accuracy: 'exact' },
  meta: META_EXAMPLE,
};

/** The answer of a lookup. */
export const LOOKUP_EXAMPLE: LookupEnvelope = {
  object: 'domain',
  data: DOMAIN_EXAMPLE,
  meta: META_EXAMPLE,
};

/** The answer of the stats endpoint. */
export const STATS_EXAMPLE: StatsEnvelope = {
  object: 'stats',
  data: {
    as_of: '2026-11-20T18:15:00.128Z',
    total: 1_284_310,
    live: 402_118,
    retrievable: 1_190_004,
    by_status: { auction: 402_118, dropping: 611_230, available: 176_656 },
    by_source: {
      bidhaus: 398_412,
      droplane: 402_977,
      namemarket: 201_385,
      expirex: 171_904,
      brandbay: 109_632,
    },
  },
  meta: { ...META_EXAMPLE, counts: COUNTS_NOTE },
};

/** A watchlist id in the examples. */
export const WATCHLIST_ID_EXAMPLE = 'wl_3kQ9vT2mXw8RbN4p';

/** One error of each code, with the message the API sends. */
export const ERROR_EXAMPLES: { readonly [Code in ErrorCode]: ApiErrorBody & { code: Code } } = {
  api_key_in_query: {
    code: 'api_key_in_query',
    message:
      'api_key must not be sent in the URL: any valid key sent in a URL has been revoked; create a new one and send it in the Authorization header',
    param: 'api_key',
  },
  invalid_parameter: {
    code: 'invalid_parameter',
    message: 'max_price must be greater than or equal to min_price',
    param: 'max_price',
  },
  unknown_parameter: {
    code: 'unknown_parameter',
    message: 'page is not a parameter of this endpoint',
    param: 'page',
  },
  invalid_domain: {
    code: 'invalid_domain',
    message: 'cloud_kitchen.com is not a valid domain name',
  },
  missing_api_key: {
    code: 'missing_api_key',
    message: 'send your API key in the header Authorization: Bearer <API_KEY>',
  },
  invalid_authorization_header: {
    code: 'invalid_authorization_header',
    message: 'the Authorization header must be "Bearer <API_KEY>"',
  },
  invalid_api_key: { code: 'invalid_api_key', message: 'the API key is not valid' },
  alert_not_found: { code: 'alert_not_found', message: 'no alert alt_7Qw2mXc9Rk4TbN1y of yours' },
  delivery_not_found: { code: 'delivery_not_found', message: 'no message msg_9kD2cQ of alert alt_7Qw2mXc9Rk4TbN1y' },
  alert_limit_reached: {
    code: 'alert_limit_reached',
    message: 'your plan (free) allows 2 alerts and you have 2: delete one, or move to a plan with more',
  },
  watchlist_not_found: { code: 'watchlist_not_found', message: 'no watchlist wl_3kQ9vT2mXw8RbN4p of yours' },
  watch_limit_reached: {
    code: 'watch_limit_reached',
    message: 'your plan (free) allows 100 watched names and you watch 98: 3 more would be 101; remove some, or move to a plan with more',
  },
  watchlist_in_use: {
    code: 'watchlist_in_use',
    message: 'watchlist wl_3kQ9vT2mXw8RbN4p is used by the alert alt_7Qw2mXc9Rk4TbN1y: delete the alert or point it elsewhere first',
  },
  refresh_limit_reached: {
    code: 'refresh_limit_reached',
    message: 'your plan (free) allows 20 registration checks an hour and you have used them; the next is possible in 1,204 s (the stored registration is returned without refresh=true)',
  },
  export_too_large: {
    code: 'export_too_large',
    message: 'this export would stream 48210 rows and your plan (free) allows 10000 per export: narrow the filters, or move to a plan with more',
  },
  domain_not_found: {
    code: 'domain_not_found',
    message: 'cloudkitchen.net is not currently listed on any supported marketplace',
  },
  not_found: {
    code: 'not_found',
    message:
      'no endpoint at /api/v1/domain; see /api/v1/domains, /api/v1/domains/{domain} and /api/v1/stats',
  },
  method_not_allowed: { code: 'method_not_allowed', message: 'POST is not allowed here; use GET' },
  cursor_expired: {
    code: 'cursor_expired',
    message:
      'the cursor points before the oldest event kept (events are kept 14 days); start again without after, or with after=now',
  },
  rate_limited: {
    code: 'rate_limited',
    message: 'this key has used its 1000 requests of the current window; retry after 1260 s',
  },
  internal_error: {
    code: 'internal_error',
    message: 'an unexpected error occurred; it has been logged, please retry',
  },
  key_lookup_unavailable: {
    code: 'key_lookup_unavailable',
    message: 'the API key could not be checked right now; please retry',
  },
  plan_lookup_unavailable: {
    code: 'plan_lookup_unavailable',
    message: "the key's plan could not be resolved, so its limit is unknown; please retry",
  },
  rate_limit_unavailable: {
    code: 'rate_limit_unavailable',
    message:
      'the rate limiter is unavailable, so the request is refused rather than served unmetered; please retry',
  },
  query_failed: { code: 'query_failed', message: 'the query could not complete; please retry' },
};

/** A value of each search parameter, as a caller passes it; each one alone is a valid query. */
export const SEARCH_PARAMETER_EXAMPLES: {
  readonly [Name in keyof Required<NonNullable<SearchParams>>]: string | number | boolean;
} = {
  search: 'cloud',
  status: 'all',
  tld: 'com',
  source: 'bidhaus',
  min_price: 10,
  max_price: 500,
  min_length: 3,
  max_length: 12,
  no_hyphens: true,
  no_numbers: true,
  min_score: 40,
  max_score: 90,
  min_dr: 10,
  max_dr: 60,
  min_tf: 5,
  max_tf: 50,
  min_backlinks: 100,
  min_age: 5,
  min_search_volume: 1000,
  min_word_count: 1,
  min_extensions: 3,
  ending_within: 24,
  sort: 'current_bid',
  order: 'desc',
  limit: 50,
  cursor: CURSOR_EXAMPLE,
};

/** The alert of the examples and code samples (a test runs the samples with a real one in its place). */
export const ALERT_ID_EXAMPLE = 'alt_7Qw2mXc9Rk4TbN1y';
/** A webhook message of that alert: the `webhook-id` of its requests. */
export const DELIVERY_ID_EXAMPLE = 'msg_Zr0sQmA1bC2dE3fG4hI5jK';
/** The receiver of the examples (a test points the samples at a loopback receiver instead). */
export const WEBHOOK_URL_EXAMPLE = 'https://hooks.example.com/domain-index';

/** The values of path parameters, by name. */
export const PATH_PARAMETER_EXAMPLES: Readonly<Record<string, string>> = {
  domain: DOMAIN_EXAMPLE.domain_name,
  id: ALERT_ID_EXAMPLE,
  deliveryId: DELIVERY_ID_EXAMPLE,
};

/** A change-feed cursor: opaque to callers, to be stored and passed back as `after`. */
export const EVENT_CURSOR_EXAMPLE = 'eyJpZCI6MTg0MjI3fQ.V1bCKk4bgT0oQz5mFeP0xw';

/** A price move, as the change feed reports it. */
export const EVENT_EXAMPLE: Event = {
  object: 'event',
  id: 'evt_184227',
  type: 'listing.updated',
  created: '2026-11-20T18:00:04.512Z',
  source: 'bidhaus',
  data: {
    object: DOMAIN_EXAMPLE,
    previous_attributes: { current_bid: 1100, bid_count: 6, updated_at: '2026-11-20T17:00:03.977Z' },
    listings_loaded: null,
  },
};

/** A page of the change feed. */
export const EVENT_LIST_EXAMPLE: EventListEnvelope = {
  object: 'list',
  data: [EVENT_EXAMPLE],
  pagination: { page_size: 50, next_cursor: EVENT_CURSOR_EXAMPLE, has_more: false },
  meta: META_EXAMPLE,
};

/** An alert, as listed and read. */
export const ALERT_EXAMPLE: Alert = {
  object: 'alert',
  id: ALERT_ID_EXAMPLE,
  name: 'Cheap .ai names',
  query: 'type=listing.added&tld=ai&max_price=500&no_hyphens=true',
  watchlist_id: null,
  webhook_url: WEBHOOK_URL_EXAMPLE,
  webhook_state: 'active',
  webhook_disabled_reason: null,
  email_digest: 'daily',
  email_digest_status: 'confirmed',
  paused: false,
  created: '2026-11-20T09:12:44.120Z',
  updated: '2026-11-20T09:12:44.120Z',
  last_delivery: { id: DELIVERY_ID_EXAMPLE, created: '2026-11-20T18:00:05.031Z', status: 'delivered', attempts: 1, cancelled_reason: null },
};

/** A webhook signing secret as shown once (an example: not a live secret). */
export const WEBHOOK_SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** The body of `POST /api/v1/alerts` in the examples: the alert above, as it was created. */
export const CREATE_ALERT_EXAMPLE: z.input<typeof createAlertSchema> = {
  name: ALERT_EXAMPLE.name,
  query: ALERT_EXAMPLE.query,
  webhook_url: WEBHOOK_URL_EXAMPLE,
};

/** A body of `PATCH /api/v1/alerts/{id}`: pausing an alert. */
export const UPDATE_ALERT_EXAMPLE: z.input<typeof updateAlertSchema> = { paused: true };

/**
 * A cursor of an alert's delivery log as the API makes them (base64url JSON of the attempt to
 * read before); opaque to callers, who pass a page's `next_cursor` back unchanged.
 */
export const DELIVERY_CURSOR_EXAMPLE = 'eyJiZWZvcmUiOjQ4MjEzfQ';

/** A name's registration, as RDAP gave it: in redemption, so it should drop in a few weeks. */
export const REGISTRATION_EXAMPLE: Registration = {
  phase: 'redemption',
  statuses: ['redemption period', 'server transfer prohibited'],
  registrar: { name: 'Example Registrar, Inc.', iana_id: 9999 },
  created_at: '2014-03-02T17:44:10.000Z',
  expires_at: '2026-09-30T17:44:10.000Z',
  updated_at: '2026-11-14T08:02:51.000Z',
  checked_at: '2026-11-20T17:50:00.412Z',
  expected_drop_at: '2026-12-19T08:02:51.000Z',
};

/** A name's page. */
export const NAME_EXAMPLE: z.infer<typeof nameEnvelopeSchema> = {
  object: 'name',
  data: {
    domain_name: DOMAIN_EXAMPLE.domain_name,
    listings: [DOMAIN_EXAMPLE],
    registration: REGISTRATION_EXAMPLE,
    history: [
      { at: '2026-11-14T08:10:00.000Z', kind: 'phase_changed', source: null, price: null, previous_price: null, phase: 'redemption', previous_phase: 'grace' },
      { at: '2026-11-12T18:00:04.512Z', kind: 'price_changed', source: 'bidhaus', price: 1250, previous_price: 1100, phase: null, previous_phase: null },
    ],
    refresh: null,
  },
  meta: META_EXAMPLE,
};

/** A watchlist, as listed and read. */
export const WATCHLIST_EXAMPLE: Watchlist = {
  object: 'watchlist',
  id: WATCHLIST_ID_EXAMPLE,
  name: 'Drops to catch',
  domains_count: 2,
  created: '2026-11-20T09:12:44.120Z',
  updated: '2026-11-20T09:12:44.120Z',
};

/** A watched name, as a watchlist's page lists it. */
export const WATCHED_DOMAIN_EXAMPLE: WatchedDomain = {
  object: 'watched_domain',
  domain_name: DOMAIN_EXAMPLE.domain_name,
  added: '2026-11-20T09:12:44.120Z',
  phase: 'redemption',
  expected_drop_at: REGISTRATION_EXAMPLE.expected_drop_at,
  checked_at: REGISTRATION_EXAMPLE.checked_at,
  next_check_at: '2026-11-20T18:50:00.412Z',
  listings_count: 1,
  lowest_price: 1250,
};
