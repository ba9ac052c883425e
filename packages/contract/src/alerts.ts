import { z } from 'zod';
import { timestampSchema } from './domain';
import { eventSchema } from './events';
import { integer, text } from './wire';

/** How often an email digest is sent. */
export const DIGEST_PERIODS = ['hourly', 'daily'] as const;
/** An email digest's period. */
export type DigestPeriod = (typeof DIGEST_PERIODS)[number];

/**
 * The one answer to a webhook URL this service will not send to (an address that is not public,
 * a name that does not resolve to a public one, plain http): the same for every such URL, when
 * an alert is saved and in the delivery log, so it tells nothing of addresses or ranges.
 */
export const WEBHOOK_URL_REFUSED = 'webhook_url must be a public https URL that this service may reach';

/**
 * The answer to a webhook URL with a user name or password in it: credentials in a URL end up in
 * logs and screens along the way, and the signature already proves who sent a request.
 */
export const WEBHOOK_URL_CREDENTIALS =
  "webhook_url: a user name or password in the URL (https://user:password@host) is not accepted; verify the webhook-signature header with the alert's signing secret, or put a secret token in the URL's path (https://host/hooks/<token>)";

/**
 * Whether an alert's email digest can reach its address: `pending_confirmation` until the owner
 * of the address clicks the link of the confirmation email (no digest is sent before),
 * `confirmed`, or `unsubscribed` once the address used an unsubscribe link (no digest goes to it,
 * from any alert, until it is confirmed again).
 */
export const DIGEST_STATUSES = ['pending_confirmation', 'confirmed', 'unsubscribed'] as const;
/** An email digest's state, as DIGEST_STATUSES describes it. */
export type DigestStatus = (typeof DIGEST_STATUSES)[number];

/** The bounds of an alert's fields. */
export const ALERT_LIMITS = { nameMaxLength: 100, queryMaxLength: 2_000, urlMaxLength: 2_048, bodyMaxBytes: 16 * 1024 } as const;

/**
 * An alert's filter: the query string of `GET /api/v1/events` (event types and every search
 * filter), without `after` and `limit`, validated by the events schema itself: a leading `?` or a
 * whole URL of the API (pasted from a browser) is accepted, and only its query is kept; a search
 * URL (`/api/v1/domains?...`) becomes the feed's filter for the same listings.
 */
export const alertQuerySchema = z
  .string({ invalid_type_error: 'must be a query string like type=listing.added&tld=ai&max_price=500' })
  .max(ALERT_LIMITS.queryMaxLength, `must be at most ${ALERT_LIMITS.queryMaxLength} characters`);

const QUERY_DESCRIPTION =
  'The filter: the query string of GET /api/v1/events (type and every search filter, without after and limit), e.g. type=listing.added&tld=ai&max_price=500; a whole URL of the API is accepted and only its query kept. A pasted search URL (/api/v1/domains?...) becomes the feed filter for the same listings: sort, order, limit and cursor are dropped, no status becomes status=auction (a search lists running auctions) and status=all becomes no status. Checked like the events query: a bad filter is a 400 naming `query`';

const WATCHLIST_DESCRIPTION =
  "One of your watchlists (`wl_...`): the alert then delivers that watchlist's name.* events (name.listed, name.delisted, name.price_changed, name.phase_changed, name.dropped, name.registered), filtered by `query` when it has one, instead of the index's events";
const watchlistId = z.string({ invalid_type_error: 'must be a watchlist id (wl_...)' }).max(64, 'must be a watchlist id (wl_...)').nullable().optional();

const name = z
  .string({ invalid_type_error: 'must be text' })
  .trim()
  .min(1, 'must not be empty')
  .max(ALERT_LIMITS.nameMaxLength, `must be at most ${ALERT_LIMITS.nameMaxLength} characters`);
const webhookUrl = z
  .string({ invalid_type_error: 'must be an https URL' })
  .max(ALERT_LIMITS.urlMaxLength, `must be at most ${ALERT_LIMITS.urlMaxLength} characters`);
const emailDigest = z.enum(DIGEST_PERIODS, { errorMap: () => ({ message: `must be one of ${DIGEST_PERIODS.join(', ')}, or null` }) });

/** The body of `POST /api/v1/alerts`. */
export const createAlertSchema = z
  .object({
    name: name.describe('Your name for the alert, 1-100 characters'),
    query: alertQuerySchema.optional().describe(`${QUERY_DESCRIPTION}. May be left out with a watchlist_id: then every name event of the watchlist matches`),
    watchlist_id: watchlistId.describe(WATCHLIST_DESCRIPTION),
    webhook_url: webhookUrl.nullable().optional().describe('Where matching events are POSTed, signed per Standard Webhooks; https only, without a user name or password (put a secret token in the path if you need one)'),
    email_digest: emailDigest.nullable().optional().describe('An email of the matches every hour or day, to the account\'s address (needs SMTP on the server); sent once the address is confirmed: a confirmation email goes to it first'),
  })
  .strict();

/** The body of `PATCH /api/v1/alerts/{id}`: any of the fields, and `paused`. */
export const updateAlertSchema = z
  .object({
    name: name.optional().describe('Your name for the alert, 1-100 characters'),
    query: alertQuerySchema.optional().describe(`${QUERY_DESCRIPTION}. A new filter applies to events from now on`),
    watchlist_id: watchlistId.describe(`${WATCHLIST_DESCRIPTION}. null: back to the index's events`),
    webhook_url: webhookUrl
      .nullable()
      .optional()
      .describe('Where matching events are POSTed; https only. Setting it again turns a disabled webhook back on; a first webhook gets its signing secret in this answer. null: no webhook'),
    email_digest: emailDigest
      .nullable()
      .optional()
      .describe('hourly or daily: an email of the matches (needs SMTP on the server); setting it while the address is not confirmed (or unsubscribed) mails a new confirmation link, and nothing is sent until it is clicked. null: no email'),
    paused: z
      .boolean({ invalid_type_error: 'must be true or false' })
      .optional()
      .describe('true: nothing is delivered until it is false again; the matches of the pause are not sent later'),
  })
  .strict();

/** A saved change-feed query and where its matches go. */
export const alertSchema = z
  .object({
    object: z.literal('alert'),
    id: z.string().describe('`alt_` and random characters'),
    name: z.string(),
    query: z.string().describe('The filter, as a normalised query string of GET /api/v1/events'),
    watchlist_id: z.string().nullable().describe("The watchlist whose name events the alert delivers; null: the index's events"),
    webhook_url: z.string().nullable().describe('As saved; a user name and password stored before they were refused are shown as ***'),
    webhook_state: z
      .enum(['active', 'disabled', 'none'])
      .describe('disabled: turned off after 410 Gone or 5 days of failures (see webhook_disabled_reason); set the URL again to turn it back on'),
    webhook_disabled_reason: z.string().nullable(),
    email_digest: emailDigest.nullable(),
    email_digest_status: z
      .enum(DIGEST_STATUSES)
      .nullable()
      .describe('pending_confirmation: no digest is sent until the link of the confirmation email is clicked; confirmed: digests are sent; unsubscribed: the address used an unsubscribe link and gets nothing until it is confirmed again (set email_digest to mail a new link). null without a digest'),
    paused: z.boolean(),
    created: timestampSchema,
    updated: timestampSchema,
    last_delivery: z
      .object({
        id: z.string(),
        created: timestampSchema,
        status: z.enum(['pending', 'delivered', 'failed', 'cancelled']),
        attempts: z.number().int().nonnegative(),
        cancelled_reason: z
          .string()
          .nullable()
          .describe('Why a cancelled message was not sent: webhook removed, webhook changed, webhook turned off, alert paused, paused by an operator, owner disabled, key revoked, key revoked as leaked, key expired; null unless cancelled'),
      })
      .strict()
      .nullable()
      .describe('The latest webhook message and how it went'),
  })
  .strict();

/** An alert. */
export type Alert = z.infer<typeof alertSchema>;

/** An alert as created or re-keyed: with its signing secret, shown this once. */
export const alertWithSecretSchema = alertSchema
  .extend({
    webhook_secret: z
      .string()
      .nullable()
      .describe('`whsec_...`: verify the signatures with it (shown once; only a rotation shows a new one). null without a webhook'),
  })
  .strict();

/** The answer of `GET /api/v1/alerts`. */
export const alertListSchema = z.object({ object: z.literal('list'), data: z.array(alertSchema) }).strict();

/** The answer of `DELETE /api/v1/alerts/{id}`. */
export const deletedAlertSchema = z.object({ object: z.literal('alert'), id: z.string(), deleted: z.literal(true) }).strict();

/** One attempt to deliver a webhook message. */
export const deliveryAttemptSchema = z
  .object({
    object: z.literal('delivery_attempt'),
    delivery_id: z.string().describe('The message: the webhook-id header of every attempt'),
    at: timestampSchema,
    kind: z.enum(['events', 'test']),
    event_ids: z.array(z.string()).describe('The events the message carries'),
    http_status: z.number().int().nullable().describe('What the receiver answered; null when nothing came back'),
    error: z.string().nullable().describe('Why nothing came back (timeout, refused address, connection)'),
    duration_ms: z.number().int().nonnegative(),
    response: z.string().nullable().describe('The first 1 KB of the answer'),
  })
  .strict();

/** The query of `GET /api/v1/alerts/{id}/deliveries`: newest attempts first, paged with a cursor. */
export const deliveryQuerySchema = z
  .object({
    after: text(512).describe("A page's next_cursor, to read older attempts"),
    limit: integer(1, 100)
      .transform((value) => value ?? 20)
      .describe('Attempts per page, 1-100, default 20'),
  })
  .strict();

/** A page of attempts, newest first. */
export const deliveryListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(deliveryAttemptSchema),
    pagination: z.object({ next_cursor: z.string().nullable(), has_more: z.boolean() }).strict(),
  })
  .strict();

/** The answer of `POST .../test` and `POST .../resend`: the message queued. */
export const queuedDeliverySchema = z
  .object({ object: z.literal('delivery'), id: z.string(), alert_id: z.string(), kind: z.enum(['events', 'test']), status: z.literal('pending') })
  .strict();

/** The body of a webhook POST: the alert and up to 100 events of the change feed. */
export const webhookPayloadSchema = z
  .object({
    type: z.enum(['events', 'test']),
    alert_id: z.string(),
    events: z.array(eventSchema).max(100).describe('The change feed\'s events, as GET /api/v1/events serves them, in commit order; none in a test'),
  })
  .strict();
