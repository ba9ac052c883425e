import { z } from 'zod';
import { timestampSchema } from './domain';
import { registrationPhaseSchema } from './names';
import { integer, text } from './wire';

/** The bounds of watchlists' fields. */
export const WATCHLIST_LIMITS = { nameMaxLength: 100, domainsPerCall: 1_000, domainMaxLength: 253, pageMax: 200, pageDefault: 50 } as const;

const name = z
  .string({ invalid_type_error: 'must be text' })
  .trim()
  .min(1, 'must not be empty')
  .max(WATCHLIST_LIMITS.nameMaxLength, `must be at most ${WATCHLIST_LIMITS.nameMaxLength} characters`);

const domains = z
  .array(z.string({ invalid_type_error: 'must be a list of domain names' }).max(WATCHLIST_LIMITS.domainMaxLength * 4, 'has a name too long to be a domain name'), {
    invalid_type_error: 'must be a list of domain names',
  })
  .max(WATCHLIST_LIMITS.domainsPerCall, `must hold at most ${WATCHLIST_LIMITS.domainsPerCall} names a call`);

/** The body of `POST /api/v1/watchlists`. */
export const createWatchlistSchema = z
  .object({
    name: name.describe('Your name for the watchlist, 1-100 characters'),
    domains: domains.optional().describe('Names to watch from the start, in ASCII (punycode), at most 1,000; the same rules as adding names'),
  })
  .strict();

/** The body of `PATCH /api/v1/watchlists/{id}`. */
export const updateWatchlistSchema = z.object({ name: name.describe('Your name for the watchlist, 1-100 characters') }).strict();

/** The body of `POST /api/v1/watchlists/{id}/domains`. */
export const addWatchedDomainsSchema = z
  .object({ domains: domains.describe('Names to watch, in ASCII (punycode), at most 1,000 a call; names already on the list are left as they are') })
  .strict();

/** A watchlist. */
export const watchlistSchema = z
  .object({
    object: z.literal('watchlist'),
    id: z.string().describe('`wl_` and random characters'),
    name: z.string(),
    domains_count: z.number().int().nonnegative(),
    created: timestampSchema,
    updated: timestampSchema,
  })
  .strict();
/** A watchlist as shown. */
export type Watchlist = z.infer<typeof watchlistSchema>;

/** A name refused when adding names: its position in the list sent, and why. */
export const refusedDomainSchema = z
  .object({ index: z.number().int().nonnegative(), domain: z.string(), message: z.string() })
  .strict();

/** What adding names did. */
export const addedDomainsSchema = z
  .object({
    object: z.literal('watchlist_change'),
    watchlist: watchlistSchema,
    added: z.number().int().nonnegative().describe('Names new to the list'),
    already_watched: z.number().int().nonnegative().describe('Names that were on it already (or sent twice)'),
    refused: z.array(refusedDomainSchema).describe('Names that are not valid domain names, by their index in the list sent; the others were added'),
  })
  .strict();

/** What adding names did, as shown. */
export type AddedDomains = z.infer<typeof addedDomainsSchema>;

/** A watchlist as created: with what adding its first names did. */
export const createdWatchlistSchema = watchlistSchema.extend({ refused: z.array(refusedDomainSchema) }).strict();

/** The answer of `GET /api/v1/watchlists`. */
export const watchlistListSchema = z.object({ object: z.literal('list'), data: z.array(watchlistSchema) }).strict();

/** The answer of `DELETE /api/v1/watchlists/{id}`. */
export const deletedWatchlistSchema = z.object({ object: z.literal('watchlist'), id: z.string(), deleted: z.literal(true) }).strict();

/** The answer of `DELETE /api/v1/watchlists/{id}/domains/{domain}`. */
export const removedDomainSchema = z.object({ object: z.literal('watched_domain'), domain_name: z.string(), deleted: z.literal(true) }).strict();

/** A watched name and where it stands now. */
export const watchedDomainSchema = z
  .object({
    object: z.literal('watched_domain'),
    domain_name: z.string(),
    added: timestampSchema.describe('When it was added to this watchlist'),
    phase: registrationPhaseSchema.nullable().describe('The registration phase; null until the first check'),
    expected_drop_at: timestampSchema.nullable(),
    checked_at: timestampSchema.nullable().describe('When RDAP last answered for it'),
    next_check_at: timestampSchema.nullable().describe('When the worker asks RDAP again'),
    listings_count: z.number().int().nonnegative().describe('Marketplaces that list it now'),
    lowest_price: z.number().nullable().describe('The lowest current price (bid or buy-now) of those listings'),
  })
  .strict();
/** A watched name as shown. */
export type WatchedDomain = z.infer<typeof watchedDomainSchema>;

/** The query of `GET /api/v1/watchlists/{id}/domains`: in name order, paged with a cursor. */
export const watchedDomainQuerySchema = z
  .object({
    after: text(512).describe("A page's next_cursor"),
    limit: integer(1, WATCHLIST_LIMITS.pageMax)
      .transform((value) => value ?? WATCHLIST_LIMITS.pageDefault)
      .describe('Names per page, 1-200, default 50'),
  })
  .strict();

/** A page of watched names. */
export const watchedDomainListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(watchedDomainSchema),
    pagination: z.object({ page_size: z.number().int(), next_cursor: z.string().nullable(), has_more: z.boolean() }).strict(),
  })
  .strict();
