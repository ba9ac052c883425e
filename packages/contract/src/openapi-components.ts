import type { z } from 'zod';
import { domainSchema } from './domain';
import {
  listEnvelopeSchema,
  lookupEnvelopeSchema,
  metaSchema,
  statsEnvelopeSchema,
} from './envelopes';
import { errorEnvelopeSchema } from './errors';
import { eventListEnvelopeSchema, eventSchema } from './events';
import {
  alertListSchema,
  alertSchema,
  alertWithSecretSchema,
  createAlertSchema,
  deletedAlertSchema,
  deliveryAttemptSchema,
  deliveryListSchema,
  queuedDeliverySchema,
  updateAlertSchema,
} from './alerts';
import { nameEnvelopeSchema, nameHistoryEntrySchema, nameSchema, registrationSchema } from './names';
import {
  addedDomainsSchema,
  addWatchedDomainsSchema,
  createdWatchlistSchema,
  createWatchlistSchema,
  deletedWatchlistSchema,
  refusedDomainSchema,
  removedDomainSchema,
  updateWatchlistSchema,
  watchedDomainListSchema,
  watchedDomainSchema,
  watchlistListSchema,
  watchlistSchema,
} from './watchlists';
import {
  ALERT_EXAMPLE,
  NAME_EXAMPLE,
  REGISTRATION_EXAMPLE,
  WATCHLIST_EXAMPLE,
  WATCHED_DOMAIN_EXAMPLE,
  CREATE_ALERT_EXAMPLE,
  DELIVERY_CURSOR_EXAMPLE,
  DELIVERY_ID_EXAMPLE,
  UPDATE_ALERT_EXAMPLE,
  DOMAIN_EXAMPLE,
  WEBHOOK_SECRET_EXAMPLE,
  ERROR_EXAMPLES,
  EVENT_EXAMPLE,
  EVENT_LIST_EXAMPLE,
  LIST_EXAMPLE,
  LOOKUP_EXAMPLE,
  META_EXAMPLE,
  STATS_EXAMPLE,
} from './openapi-examples';

/** A string format the schemas cannot say themselves (a plain `z.string()` that holds a URL). */
export type StringFormat = 'uri' | 'date-time' | 'email';

/** One named schema of the OpenAPI document. */
export interface ComponentEntry<T extends z.ZodTypeAny = z.ZodTypeAny> {
  /** The contract's schema; wherever the document has this schema, it has a `$ref` to the entry instead. */
  schema: T;
  /** What the object is, shown on /docs and in generated code. */
  description: string;
  /** A valid value; a test parses it with `schema`. */
  example: z.input<T>;
  /** Formats of top-level string properties (timestamps made with `timestampSchema` are found alone). */
  formats?: Readonly<Record<string, StringFormat>>;
  /** Descriptions of top-level properties whose schema has none (a request body's fields). */
  descriptions?: Readonly<Record<string, string>>;
}

/** Keeps each entry's example typed by its own schema. */
const entry = <T extends z.ZodTypeAny>(value: ComponentEntry<T>): ComponentEntry<T> => value;

/**
 * The named schemas of the OpenAPI document (`#/components/schemas/<name>`), the names code
 * generators give their types. A new object of the API (an event, an alert) is one entry here:
 * its schema, a description and an example; every place the document uses that schema then
 * refers to it by name.
 */
export const OPENAPI_COMPONENTS = {
  Domain: entry({
    schema: domainSchema,
    description:
      'A listed domain. All 35 fields are always present; a field without a value is null.',
    example: DOMAIN_EXAMPLE,
    formats: { marketplace_url: 'uri' },
  }),
  Meta: entry({
    schema: metaSchema,
    description: 'The API version and the index_score caveat, on every successful response.',
    example: META_EXAMPLE,
  }),
  Pagination: entry({
    schema: listEnvelopeSchema.shape.pagination,
    description:
      'Where a page sits in its walk. The last page has `has_more: false` and `next_cursor: null`.',
    example: LIST_EXAMPLE.pagination,
  }),
  Total: entry({
    schema: listEnvelopeSchema.shape.total,
    description: 'How many rows match the query over all pages.',
    example: LIST_EXAMPLE.total,
  }),
  ListEnvelope: entry({
    schema: listEnvelopeSchema,
    description: 'One page of search results.',
    example: LIST_EXAMPLE,
  }),
  LookupEnvelope: entry({
    schema: lookupEnvelopeSchema,
    description: 'The answer of a lookup: one listed domain.',
    example: LOOKUP_EXAMPLE,
  }),
  Stats: entry({
    schema: statsEnvelopeSchema.shape.data,
    description: 'Index-wide counts. total >= retrievable >= live.',
    example: STATS_EXAMPLE.data,
  }),
  StatsEnvelope: entry({
    schema: statsEnvelopeSchema,
    description: 'The answer of the stats endpoint.',
    example: STATS_EXAMPLE,
  }),
  Event: entry({
    schema: eventSchema,
    description: 'One change of the index: what happened, when, and the listing it happened to.',
    example: EVENT_EXAMPLE,
  }),
  EventListEnvelope: entry({
    schema: eventListEnvelopeSchema,
    description: 'One page of the change feed, with the cursor to resume from (never null).',
    example: EVENT_LIST_EXAMPLE,
  }),
  Alert: entry({
    schema: alertSchema,
    description: 'A saved change-feed query and where its matches go: a signed webhook, an email digest, or both.',
    example: ALERT_EXAMPLE,
    formats: { webhook_url: 'uri' },
  }),
  AlertWithSecret: entry({
    schema: alertWithSecretSchema,
    description: 'An alert as created or re-keyed, with its signing secret: shown this once.',
    example: { ...ALERT_EXAMPLE, webhook_secret: WEBHOOK_SECRET_EXAMPLE },
    formats: { webhook_url: 'uri' },
  }),
  AlertList: entry({
    schema: alertListSchema,
    description: 'Your alerts, newest first.',
    example: { object: 'list', data: [ALERT_EXAMPLE] },
  }),
  DeletedAlert: entry({
    schema: deletedAlertSchema,
    description: 'The alert that was deleted.',
    example: { object: 'alert', id: ALERT_EXAMPLE.id, deleted: true },
  }),
  DeliveryAttempt: entry({
    schema: deliveryAttemptSchema,
    description: 'One attempt to deliver a webhook message, and what the receiver answered.',
    example: {
      object: 'delivery_attempt',
      delivery_id: DELIVERY_ID_EXAMPLE,
      at: '2026-11-20T18:00:05.031Z',
      kind: 'events',
      event_ids: ['evt_184227', 'evt_184228'],
      http_status: 200,
      error: null,
      duration_ms: 84,
      response: '{"ok":true}',
    },
  }),
  DeliveryList: entry({
    schema: deliveryListSchema,
    description: 'A page of webhook attempts, newest first.',
    example: {
      object: 'list',
      data: [
        {
          object: 'delivery_attempt',
          delivery_id: DELIVERY_ID_EXAMPLE,
          at: '2026-11-20T18:00:05.031Z',
          kind: 'events',
          event_ids: ['evt_184227', 'evt_184228'],
          http_status: 200,
          error: null,
          duration_ms: 84,
          response: '{"ok":true}',
        },
      ],
      pagination: { next_cursor: DELIVERY_CURSOR_EXAMPLE, has_more: true },
    },
  }),
  QueuedDelivery: entry({
    schema: queuedDeliverySchema,
    description: 'A webhook message queued to be sent now.',
    example: { object: 'delivery', id: DELIVERY_ID_EXAMPLE, alert_id: ALERT_EXAMPLE.id, kind: 'test', status: 'pending' },
  }),
  CreateAlert: entry({
    schema: createAlertSchema,
    description:
      'A new alert: its name, its filter, and where its matches go (a webhook_url, an email_digest, or both; at least one).',
    example: CREATE_ALERT_EXAMPLE,
    formats: { webhook_url: 'uri' },
  }),
  UpdateAlert: entry({
    schema: updateAlertSchema,
    description:
      'The fields to change; the others keep their values. null removes a channel (one must remain).',
    example: UPDATE_ALERT_EXAMPLE,
    formats: { webhook_url: 'uri' },
  }),
  Registration: entry({
    schema: registrationSchema,
    description: "What RDAP last said of a name's registration, and when it should drop.",
    example: REGISTRATION_EXAMPLE,
  }),
  NameHistoryEntry: entry({
    schema: nameHistoryEntrySchema,
    description: 'One change of a watched name: a listing added, repriced, removed or ended, or a registration phase left for another.',
    example: NAME_EXAMPLE.data.history[0]!,
  }),
  Name: entry({
    schema: nameSchema,
    description: "Everything known of one name: every marketplace's listing of it, its registration, its history.",
    example: NAME_EXAMPLE.data,
  }),
  NameEnvelope: entry({
    schema: nameEnvelopeSchema,
    description: "The answer of a name's page.",
    example: NAME_EXAMPLE,
  }),
  Watchlist: entry({
    schema: watchlistSchema,
    description: 'Names an owner follows.',
    example: WATCHLIST_EXAMPLE,
  }),
  CreatedWatchlist: entry({
    schema: createdWatchlistSchema,
    description: 'A watchlist as created, with the names of the request that were refused (by their index).',
    example: { ...WATCHLIST_EXAMPLE, refused: [] },
  }),
  WatchlistList: entry({
    schema: watchlistListSchema,
    description: 'Your watchlists, newest first.',
    example: { object: 'list', data: [WATCHLIST_EXAMPLE] },
  }),
  DeletedWatchlist: entry({
    schema: deletedWatchlistSchema,
    description: 'The watchlist that was deleted.',
    example: { object: 'watchlist', id: WATCHLIST_EXAMPLE.id, deleted: true },
  }),
  RefusedDomain: entry({
    schema: refusedDomainSchema,
    description: 'A name that was not added: its index in the list sent, and why.',
    example: { index: 1, domain: 'not a name', message: 'not a name is not a valid domain name' },
  }),
  AddedDomains: entry({
    schema: addedDomainsSchema,
    description: 'What adding names did: how many were new, how many were there already, and each one refused.',
    example: { object: 'watchlist_change', watchlist: WATCHLIST_EXAMPLE, added: 2, already_watched: 0, refused: [{ index: 1, domain: 'not a name', message: 'not a name is not a valid domain name' }] },
  }),
  WatchedDomain: entry({
    schema: watchedDomainSchema,
    description: 'A watched name and where it stands now.',
    example: WATCHED_DOMAIN_EXAMPLE,
  }),
  WatchedDomainList: entry({
    schema: watchedDomainListSchema,
    description: "A page of a watchlist's names, in name order.",
    example: { object: 'list', data: [WATCHED_DOMAIN_EXAMPLE], pagination: { page_size: 50, next_cursor: null, has_more: false } },
  }),
  RemovedDomain: entry({
    schema: removedDomainSchema,
    description: 'The name, no longer on the watchlist.',
    example: { object: 'watched_domain', domain_name: WATCHED_DOMAIN_EXAMPLE.domain_name, deleted: true },
  }),
  CreateWatchlist: entry({
    schema: createWatchlistSchema,
    description: 'A new watchlist: its name, and the names to watch from the start.',
    example: { name: 'Drops to catch', domains: ['cloudhosting.com', 'xn--caf-dma.com'] },
  }),
  UpdateWatchlist: entry({
    schema: updateWatchlistSchema,
    description: "The watchlist's new name.",
    example: { name: 'Drops to catch this week' },
  }),
  AddWatchedDomains: entry({
    schema: addWatchedDomainsSchema,
    description: 'Names to add, at most 1,000 a call.',
    example: { domains: ['cloudhosting.com', 'brandable.io'] },
  }),
  Error: entry({
    schema: errorEnvelopeSchema.shape.error,
    description: 'What went wrong: a machine-readable code, a reason, and the parameter at fault.',
    example: ERROR_EXAMPLES.invalid_parameter,
  }),
  ErrorEnvelope: entry({
    schema: errorEnvelopeSchema,
    description: 'The body of every error response.',
    example: { error: ERROR_EXAMPLES.invalid_parameter },
  }),
} satisfies Record<string, ComponentEntry>;

/** The name of a component schema. */
export type ComponentName = keyof typeof OPENAPI_COMPONENTS;
