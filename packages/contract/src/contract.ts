import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { lookupEnvelopeSchema, listEnvelopeSchema, statsEnvelopeSchema } from './envelopes';
import { errorEnvelopeSchema } from './errors';
import {
  alertListSchema,
  alertSchema,
  alertWithSecretSchema,
  createAlertSchema,
  deletedAlertSchema,
  deliveryListSchema,
  deliveryQuerySchema,
  queuedDeliverySchema,
  updateAlertSchema,
} from './alerts';
import { eventListEnvelopeSchema, eventQuerySchema } from './events';
import { nameEnvelopeSchema, nameQuerySchema } from './names';
import {
  addedDomainsSchema,
  addWatchedDomainsSchema,
  createdWatchlistSchema,
  createWatchlistSchema,
  deletedWatchlistSchema,
  removedDomainSchema,
  updateWatchlistSchema,
  watchedDomainListSchema,
  watchedDomainQuerySchema,
  watchlistListSchema,
  watchlistSchema,
} from './watchlists';
import { noParamsSchema, searchQuerySchema } from './search-params';
import { exportQuerySchema } from './exports';
import { PATH_PREFIX } from './texts';

const c = initContract();

/** Every error status an endpoint can answer with, all in the one error envelope. */
const errorResponses = {
  400: errorEnvelopeSchema,
  401: errorEnvelopeSchema,
  403: errorEnvelopeSchema,
  404: errorEnvelopeSchema,
  405: errorEnvelopeSchema,
  409: errorEnvelopeSchema,
  410: errorEnvelopeSchema,
  429: errorEnvelopeSchema,
  500: errorEnvelopeSchema,
  503: errorEnvelopeSchema,
} as const;

/** The v1 API under /api/v1. */
export const contract = c.router(
  {
    searchDomains: {
      method: 'GET',
      path: '/domains',
      query: searchQuerySchema,
      responses: { 200: listEnvelopeSchema },
      summary: 'Search listed domains',
      description:
        'Filters, sorting and keyset-cursor paging over the listings that have not ended. Without `status`, only running auctions.',
    },
    exportDomains: {
      method: 'GET',
      path: '/exports/domains',
      query: exportQuerySchema,
      responses: { 200: c.otherResponse({ contentType: 'text/csv', body: z.string() }) },
      summary: 'Export every matching listing as CSV or JSON lines',
      description:
        'Streams every listing a search with the same filters would find, in its order, from one consistent snapshot: `format=csv` (a header row of the domain fields, RFC 4180, UTF-8 without BOM, empty for null) or `format=jsonl` (one domain object a line; `summary=true` adds a last line with the row count). No `limit`, no `cursor`. gzip when the request accepts it. `HEAD` answers the exact row count in `X-Total-Count` without streaming. Costs one request of the hourly allowance per started 1,000 rows, checked before the first row (429 when it would not fit); a plan may cap the rows of one export (403 export_too_large); at most 2 exports per key at once (429). An export that fails part-way ends with an error line (JSONL) or an aborted response (CSV), never a short file that looks complete.',
    },
    getDomain: {
      method: 'GET',
      path: '/domains/:domain',
      pathParams: z.object({
        domain: z.string().describe('Domain name in ASCII/punycode form; only lowercased'),
      }),
      query: noParamsSchema,
      responses: { 200: lookupEnvelopeSchema },
      summary: 'Look one listed domain up',
      description:
        'One listing, chosen deterministically when several marketplaces list the name: not ended first; then auction, available, dropping; then the most recently checked.',
    },
    listEvents: {
      method: 'GET',
      path: '/events',
      query: eventQuerySchema,
      responses: { 200: eventListEnvelopeSchema },
      summary: 'What changed: the change feed',
      description:
        'Events of the index in commit order (listings added, updated, removed, ending soon, ended; a source loaded), filtered like a search, paged with a cursor to store. Poll it: every page carries the cursor to resume from, empty pages included. Events are kept EVENT_RETENTION_DAYS (14 by default); an older cursor answers 410 cursor_expired.',
    },
    createAlert: {
      method: 'POST',
      path: '/alerts',
      body: createAlertSchema,
      query: noParamsSchema,
      responses: { 201: alertWithSecretSchema },
      summary: 'Create an alert',
      description:
        'A saved change-feed query whose matching events are delivered by a signed webhook (Standard Webhooks), an email digest, or both. Alerts are the one resource a customer writes; the index itself stays read-only. The signing secret is shown in this answer only. Plans limit the number of alerts (free 2, pro 50).',
    },
    listAlerts: {
      method: 'GET',
      path: '/alerts',
      query: noParamsSchema,
      responses: { 200: alertListSchema },
      summary: 'List your alerts',
      description: "The alerts of the key's account (or of the key, when it has no account), newest first.",
    },
    getAlert: {
      method: 'GET',
      path: '/alerts/:id',
      pathParams: z.object({ id: z.string().describe('The alert id, `alt_...`') }),
      query: noParamsSchema,
      responses: { 200: alertSchema },
      summary: 'Get an alert',
      description: 'One alert, with its latest delivery. Another owner\'s alert is 404 alert_not_found.',
    },
    updateAlert: {
      method: 'PATCH',
      path: '/alerts/:id',
      pathParams: z.object({ id: z.string().describe('The alert id, `alt_...`') }),
      body: updateAlertSchema,
      query: noParamsSchema,
      responses: { 200: alertWithSecretSchema },
      summary: 'Change an alert',
      description: 'Its name, query, channels, or paused. Setting the webhook URL again turns a disabled webhook back on. A new query applies to events from now on. `webhook_secret` is set (once) when the alert gets its first webhook; null otherwise.',
    },
    deleteAlert: {
      method: 'DELETE',
      path: '/alerts/:id',
      pathParams: z.object({ id: z.string().describe('The alert id, `alt_...`') }),
      body: z.object({}).strict().optional(),
      query: noParamsSchema,
      responses: { 200: deletedAlertSchema },
      summary: 'Delete an alert',
      description: 'Its messages not yet delivered are dropped.',
    },
    testAlert: {
      method: 'POST',
      path: '/alerts/:id/test',
      pathParams: z.object({ id: z.string().describe('The alert id, `alt_...`') }),
      body: z.object({}).strict().optional(),
      query: noParamsSchema,
      responses: { 202: queuedDeliverySchema },
      summary: 'Send a test webhook',
      description: 'Queues a message of type `test` (no events) to the alert\'s webhook now; see its attempts in the deliveries.',
    },
    listDeliveries: {
      method: 'GET',
      path: '/alerts/:id/deliveries',
      pathParams: z.object({ id: z.string().describe('The alert id, `alt_...`') }),
      query: deliveryQuerySchema,
      responses: { 200: deliveryListSchema },
      summary: "An alert's webhook attempts",
      description: 'Every attempt of the last 7 days, newest first: when, which events, the HTTP status, how long, and the first 1 KB of the answer.',
    },
    resendDelivery: {
      method: 'POST',
      path: '/alerts/:id/deliveries/:deliveryId/resend',
      pathParams: z.object({ id: z.string().describe('The alert id, `alt_...`'), deliveryId: z.string().describe('The message id, `msg_...`') }),
      body: z.object({}).strict().optional(),
      query: noParamsSchema,
      responses: { 202: queuedDeliverySchema },
      summary: 'Send a message again',
      description: 'Queues the message again now, with the same webhook-id (a receiver that drops repeats drops it).',
    },
    rotateAlertSecret: {
      method: 'POST',
      path: '/alerts/:id/rotate-secret',
      pathParams: z.object({ id: z.string().describe('The alert id, `alt_...`') }),
      body: z.object({}).strict().optional(),
      query: noParamsSchema,
      responses: { 200: alertWithSecretSchema },
      summary: "Replace an alert's signing secret",
      description: 'A new secret, shown in this answer only. For 24 hours every message carries signatures with both the new and the old secret.',
    },
    getName: {
      method: 'GET',
      path: '/names/:domain',
      pathParams: z.object({
        domain: z.string().describe('Domain name in ASCII/punycode form (xn--...); only lowercased. A Unicode name is refused: convert it first'),
      }),
      query: nameQuerySchema,
      responses: { 200: nameEnvelopeSchema },
      summary: 'Everything known of a name',
      description:
        "Any valid name, listed or not: every marketplace's current listing of it, its registration as RDAP last gave it (phase, statuses, registrar, dates, when it should drop), and its history of the last 365 days while it is watched. `refresh=true` asks RDAP now when the last check is over 10 minutes old. GET /domains/{domain} still answers with one listing.",
    },
    createWatchlist: {
      method: 'POST',
      path: '/watchlists',
      body: createWatchlistSchema,
      query: noParamsSchema,
      responses: { 201: createdWatchlistSchema },
      summary: 'Create a watchlist',
      description:
        'Names to follow: each one is checked by RDAP on a schedule that follows its life (daily when registered, hourly in grace and redemption, every 10 minutes near its drop), and its changes come as name.* events of the change feed (with watchlist=ID) and to alerts made with watchlist_id. Plans limit the names one owner watches over all its watchlists (free 100, pro 10,000).',
    },
    listWatchlists: {
      method: 'GET',
      path: '/watchlists',
      query: noParamsSchema,
      responses: { 200: watchlistListSchema },
      summary: 'List your watchlists',
      description: "The watchlists of the key's account (or of the key, when it has no account), newest first.",
    },
    getWatchlist: {
      method: 'GET',
      path: '/watchlists/:id',
      pathParams: z.object({ id: z.string().describe('The watchlist id, `wl_...`') }),
      query: noParamsSchema,
      responses: { 200: watchlistSchema },
      summary: 'Get a watchlist',
      description: "Another owner's watchlist is 404 watchlist_not_found, as a made-up id is.",
    },
    updateWatchlist: {
      method: 'PATCH',
      path: '/watchlists/:id',
      pathParams: z.object({ id: z.string().describe('The watchlist id, `wl_...`') }),
      body: updateWatchlistSchema,
      query: noParamsSchema,
      responses: { 200: watchlistSchema },
      summary: 'Rename a watchlist',
      description: 'Its name; names are added and removed with the domains endpoints.',
    },
    deleteWatchlist: {
      method: 'DELETE',
      path: '/watchlists/:id',
      pathParams: z.object({ id: z.string().describe('The watchlist id, `wl_...`') }),
      body: z.object({}).strict().optional(),
      query: noParamsSchema,
      responses: { 200: deletedWatchlistSchema },
      summary: 'Delete a watchlist',
      description: 'With its names. Refused with 409 watchlist_in_use while an alert delivers its events: delete the alert first.',
    },
    addWatchedDomains: {
      method: 'POST',
      path: '/watchlists/:id/domains',
      pathParams: z.object({ id: z.string().describe('The watchlist id, `wl_...`') }),
      body: addWatchedDomainsSchema,
      query: noParamsSchema,
      responses: { 200: addedDomainsSchema },
      summary: 'Add names to a watchlist',
      description:
        'At most 1,000 a call, in ASCII (punycode). Valid names are added and each invalid one is reported by its index; names already on the list are left as they are. Refused whole (403 watch_limit_reached) when the new names would take the owner past the plan.',
    },
    listWatchedDomains: {
      method: 'GET',
      path: '/watchlists/:id/domains',
      pathParams: z.object({ id: z.string().describe('The watchlist id, `wl_...`') }),
      query: watchedDomainQuerySchema,
      responses: { 200: watchedDomainListSchema },
      summary: "A watchlist's names and where each stands",
      description: 'In name order, paged with a cursor: each name with its registration phase, its listings now, its lowest price and when it is checked next.',
    },
    removeWatchedDomain: {
      method: 'DELETE',
      path: '/watchlists/:id/domains/:domain',
      pathParams: z.object({ id: z.string().describe('The watchlist id, `wl_...`'), domain: z.string().describe('A name on the watchlist') }),
      body: z.object({}).strict().optional(),
      query: noParamsSchema,
      responses: { 200: removedDomainSchema },
      summary: 'Stop watching a name',
      description: 'A name not on the list is 404 domain_not_found.',
    },
    getStats: {
      method: 'GET',
      path: '/stats',
      query: noParamsSchema,
      responses: { 200: statsEnvelopeSchema },
      summary: 'Index statistics',
      description: 'Index-wide counts, measured concurrently and cached for 5 minutes.',
    },
  },
  {
    pathPrefix: PATH_PREFIX,
    commonResponses: errorResponses,
    strictStatusCodes: true,
  },
);

/** The type of the v1 contract. */
export type Contract = typeof contract;
