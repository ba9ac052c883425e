import { z } from 'zod';
import { domainSchema, timestampSchema } from './domain';
import { metaSchema } from './envelopes';
import { checkFilterRules, listingFilterFields, STATUS_FILTERS } from './search-params';
import { registrationPhaseSchema } from './names';
import { fromQuery, integer, oneOf, text } from './wire';

/**
 * What happened, as an event's `type`:
 * - `listing.added`: a batch brought a listing its marketplace did not list before;
 * - `listing.updated`: a batch changed a listing's public fields (`previous_attributes` has the
 *   ones that changed, with their values before);
 * - `listing.removed`: the listing left its marketplace's feed (the object is the listing before);
 * - `listing.ending_soon`: its end time came within 24 hours (once per listing and end time);
 * - `listing.ended`: its end time passed (the object is the listing as it ended);
 * - `source.loaded`: a marketplace's first batch, in place of one `listing.added` per listing
 *   (read it with a search filtered by `source`);
 * - `name.listed`, `name.delisted`, `name.price_changed`: a watched name's listing appeared on a
 *   marketplace, left it (removed or ended), or changed its price;
 * - `name.phase_changed`: a watched name's registration moved to another phase
 *   (`previous_attributes.phase` has the one before), except for the two moves with their own
 *   type: `name.dropped` (from a registered phase to available) and `name.registered` (from
 *   available to a registered phase).
 * The `name.*` events belong to one watchlist and are seen only by its owner, with `watchlist=ID`.
 */
export const EVENT_TYPES = [
  'listing.added',
  'listing.updated',
  'listing.removed',
  'listing.ending_soon',
  'listing.ended',
  'source.loaded',
  'name.listed',
  'name.delisted',
  'name.price_changed',
  'name.phase_changed',
  'name.dropped',
  'name.registered',
] as const;
/** The types of a watchlist's events. */
export const NAME_EVENT_TYPES = EVENT_TYPES.filter((type) => type.startsWith('name.'));
/** An event's type. */
export type EventType = (typeof EVENT_TYPES)[number];

/** The bounds of the change feed's own parameters. */
export const EVENT_LIMITS = {
  limitMin: 1,
  limitMax: 200,
  limitDefault: 50,
  cursorMaxLength: 512,
} as const;

/** `type`: one or more event types, comma-separated. */
const eventTypes = fromQuery(
  z
    .string()
    .transform((value, ctx) => {
      const types: EventType[] = [];
      for (const raw of value.split(',')) {
        const name = raw.trim();
        if (name === '') continue;
        if (!(EVENT_TYPES as readonly string[]).includes(name)) {
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            message: `has an unknown event type "${name.slice(0, 40)}"; the types are ${EVENT_TYPES.join(', ')}`,
          });
          return z.NEVER;
        }
        if (!types.includes(name as EventType)) types.push(name as EventType);
      }
      return types;
    })
    .or(z.array(z.enum(EVENT_TYPES))),
);

/**
 * The query of `GET /api/v1/events`: a position in the feed (`after`), the event types, a page
 * size, and every listing filter of `GET /api/v1/domains` with the same validation, applied to
 * each event's listing.
 */
export const eventQuerySchema = z
  .object({
    after: text(EVENT_LIMITS.cursorMaxLength).describe(
      "Resume after this cursor (a page's next_cursor, stored by the caller); `now` starts at the newest event. Omitted: the oldest retained event",
    ),
    type: eventTypes.describe(
      `Comma-separated event types: ${EVENT_TYPES.join(', ')}. Omitted: every type`,
    ),
    limit: integer(EVENT_LIMITS.limitMin, EVENT_LIMITS.limitMax)
      .transform((value) => value ?? EVENT_LIMITS.limitDefault)
      .describe('Events per page, 1-200, default 50'),
    watchlist: text(64).describe(
      "A watchlist's id (`wl_...`, one of yours): its name.* events instead of the index's events. Omitted: the index's events, which every key sees",
    ),
    ...listingFilterFields,
    status: oneOf(STATUS_FILTERS).describe(
      'Only events of listings with this status; omitted or `all`: every status',
    ),
  })
  .strict()
  .superRefine((query, ctx) => checkFilterRules(query, ctx));

/** Change-feed parameters as a caller passes them. */
export type EventParams = z.input<typeof eventQuerySchema>;
/** Change-feed parameters after validation. */
export type EventQuery = z.output<typeof eventQuerySchema>;

/** One change of the index, like a Stripe event: what happened, when, and the listing it happened to. */
export const eventSchema = z
  .object({
    object: z.literal('event'),
    id: z.string().describe('Unique, in commit order: `evt_` and a number'),
    type: z.enum(EVENT_TYPES),
    created: timestampSchema.describe(
      "When the change was committed to the index (the batch's time, or the time the worker noticed)",
    ),
    source: z
      .string()
      .describe('The marketplace of the listing (or of the batch, for source.loaded); `rdap` for a registration change'),
    data: z
      .object({
        object: domainSchema
          .nullable()
          .describe(
            'The listing after the change (before it for listing.removed, listing.ended and name.delisted); null for source.loaded and for the name events of a registration change',
          ),
        previous_attributes: domainSchema
          .partial()
          .extend({ phase: registrationPhaseSchema.nullable().optional() })
          .strict()
          .nullable()
          .describe(
            'listing.updated and name.price_changed: the public fields that changed, with their values before; name.phase_changed, name.dropped and name.registered: the phase before; null otherwise',
          ),
        listings_loaded: z
          .number()
          .int()
          .nonnegative()
          .nullable()
          .describe('source.loaded: how many listings the batch brought; null otherwise'),
        watchlist_id: z.string().nullable().optional().describe('name.* events: the watchlist they belong to; absent otherwise'),
        name: z
          .object({
            domain_name: z.string(),
            phase: registrationPhaseSchema.nullable().describe('The registration phase after the change; null when never checked'),
            expected_drop_at: timestampSchema.nullable(),
          })
          .strict()
          .optional()
          .describe('name.* events: the name and its registration after the change; absent otherwise'),
      })
      .strict(),
  })
  .strict();

/** One event. */
export type Event = z.infer<typeof eventSchema>;

/** A page of the change feed. Unlike a search page, it always carries the cursor to resume from. */
export const eventListEnvelopeSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(eventSchema),
    pagination: z
      .object({
        page_size: z.number().int().describe('The limit applied'),
        next_cursor: z
          .string()
          .describe(
            'Where to resume: pass it as `after`. Never null: store it even when the page is empty',
          ),
        has_more: z
          .boolean()
          .describe('Whether more events are available right now (poll again later when false)'),
      })
      .strict(),
    meta: metaSchema,
  })
  .strict();

/** A page of the change feed. */
export type EventListEnvelope = z.infer<typeof eventListEnvelopeSchema>;
