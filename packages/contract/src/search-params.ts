import { z } from 'zod';
import { decimal, fromQuery, integer, boolean, lowercaseText, oneOf, text } from './wire';

/** The statuses a listing can have. */
export const LISTING_STATUSES = ['auction', 'dropping', 'available'] as const;
/** A listing's status. */
export type ListingStatus = (typeof LISTING_STATUSES)[number];

/** Values of the `status` parameter: a listing status, or `all`. */
export const STATUS_FILTERS = [...LISTING_STATUSES, 'all'] as const;
/** A value of the `status` parameter. */
export type StatusFilter = (typeof STATUS_FILTERS)[number];

/** The fields a search can be sorted by. */
export const SORT_FIELDS = [
  'domain_name',
  'length',
  'current_bid',
  'auction_end_time',
  'bid_count',
  'buy_now_price',
  'index_score',
] as const;
/** A sort field. */
export type SortField = (typeof SORT_FIELDS)[number];

/** Sort directions. */
export const SORT_ORDERS = ['asc', 'desc'] as const;
/** A sort direction. */
export type SortOrder = (typeof SORT_ORDERS)[number];

/** The direction used when `sort` is given without `order`. */
export const DEFAULT_ORDER: Readonly<Record<SortField, SortOrder>> = {
  domain_name: 'asc',
  length: 'asc',
  auction_end_time: 'asc',
  current_bid: 'desc',
  bid_count: 'desc',
  buy_now_price: 'desc',
  index_score: 'desc',
};

/** The bounds of the search parameters, as in api-v1.md "Limits". */
export const SEARCH_LIMITS = {
  searchMaxLength: 300,
  searchMaxTerms: 5,
  searchMinTermLength: 2,
  tldMaxLength: 63,
  sourceMaxLength: 32,
  cursorMaxLength: 512,
  limitMin: 1,
  limitMax: 200,
  limitFloor: 10,
  limitDefault: 50,
  endingWithinMin: 1,
  endingWithinMax: 8760,
} as const;

/** Query parameter names that look like an API key; their presence rejects the request. */
export const KEY_LIKE_PARAMS = [
  'api_key',
  'apikey',
  'api-key',
  'key',
  'token',
  'access_token',
] as const;

/** Characters that cannot occur in a host name are removed from a search term. */
export function cleanSearchTerm(term: string): string {
  return term.toLowerCase().replace(/[^a-z0-9.-]/g, '');
}

const searchTerms = fromQuery(
  z
    .string({ invalid_type_error: 'must be text' })
    .max(
      SEARCH_LIMITS.searchMaxLength,
      `must be at most ${SEARCH_LIMITS.searchMaxLength} characters`,
    )
    .transform((value, ctx) => {
      const terms: string[] = [];
      for (const raw of value.split(/\s+/)) {
        if (raw === '') continue;
        const term = cleanSearchTerm(raw);
        if (term.length < SEARCH_LIMITS.searchMinTermLength) {
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            message: `term "${raw}" has fewer than ${SEARCH_LIMITS.searchMinTermLength} characters after removing characters that cannot occur in a host name`,
          });
          return z.NEVER;
        }
        if (!terms.includes(term)) terms.push(term);
      }
      if (terms.length > SEARCH_LIMITS.searchMaxTerms) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: `has ${terms.length} distinct terms; at most ${SEARCH_LIMITS.searchMaxTerms} are allowed`,
        });
        return z.NEVER;
      }
      return terms;
    }),
);

/** `all` means no filter (not a value named all). */
const allMeansAny = (value: string | undefined) => (value === 'all' ? undefined : value);

/** The listing filters a search and the change feed share, validated the same way. */
export const listingFilterFields = {
  search: searchTerms.describe(
    'Substring match on the domain name. Split on whitespace; every term must match, in any order. Each term needs at least 2 characters after removing characters that cannot occur in a host name; at most 5 distinct terms.',
  ),
  status: oneOf(STATUS_FILTERS).describe(
    'Omitted: running auctions only. `all`: every status. Every value also excludes ended listings.',
  ),
  tld: lowercaseText(SEARCH_LIMITS.tldMaxLength)
    .transform(allMeansAny)
    .describe('Full public suffix (e.g. `co.uk`), lowercased, exact match; `all` means no filter'),
  source: lowercaseText(SEARCH_LIMITS.sourceMaxLength)
    .transform(allMeansAny)
    .describe('Marketplace identifier, lowercased, exact match; `all` means no filter'),
  min_price: decimal(0).describe('Lower bound of the listing price (`current_bid`)'),
  max_price: decimal(0).describe('Upper bound of the listing price (`current_bid`)'),
  min_length: integer(1, 63).describe('Minimum length of the brand part'),
  max_length: integer(1, 63).describe('Maximum length of the brand part'),
  no_hyphens: boolean().describe('Exclude names whose brand part has a hyphen'),
  no_numbers: boolean().describe('Exclude names whose brand part has a digit'),
  min_score: decimal(0, 100).describe(
    'Lower bound of index_score, a whole number: 40.5 keeps 41 and up',
  ),
  max_score: decimal(0, 100).describe(
    'Upper bound of index_score, a whole number: 37.2 keeps 37 and down',
  ),
  min_dr: decimal(0, 100).describe('Lower bound of seoa_dr; above 0 also excludes unknown DR'),
  max_dr: decimal(0, 100).describe('Upper bound of seoa_dr; excludes unknown DR'),
  min_tf: decimal(0, 100).describe('Lower bound of seob_tf; above 0 also excludes unknown TF'),
  max_tf: decimal(0, 100).describe('Upper bound of seob_tf; excludes unknown TF'),
  min_backlinks: integer(0).describe(
    'Lower bound of the greatest of seoa_backlinks, seob_backlinks and seoc_backlinks',
  ),
  min_age: integer(0, 100).describe('Lower bound of domain age in years'),
  min_search_volume: integer(0).describe('Lower bound of monthly keyword search volume'),
  min_word_count: integer(0, 3).describe('Lower bound of word_count'),
  min_extensions: integer(0).describe(
    'Lower bound of extensions_taken; 0 is not applied (it would only drop unknown values)',
  ),
  ending_within: integer(SEARCH_LIMITS.endingWithinMin, SEARCH_LIMITS.endingWithinMax).describe(
    'Only auctions ending within this many hours; `status` must be omitted or `auction`',
  ),
};

const searchFields = {
  ...listingFilterFields,
  sort: oneOf(SORT_FIELDS).describe('Sort field; default index_score (length for status=dropping)'),
  order: oneOf(SORT_ORDERS).describe(
    'Sort direction; default asc for domain_name, length, auction_end_time and desc for the rest',
  ),
  limit: integer(SEARCH_LIMITS.limitMin, SEARCH_LIMITS.limitMax)
    .transform((value) =>
      value === undefined ? SEARCH_LIMITS.limitDefault : Math.max(value, SEARCH_LIMITS.limitFloor),
    )
    .describe('Rows per page, 1-200, default 50; values below 10 are raised to 10'),
  cursor: text(SEARCH_LIMITS.cursorMaxLength).describe(
    'Opaque cursor from a previous page, passed back unchanged',
  ),
};

/** Lower/upper bound pairs: a lower bound above its upper bound names the upper one. */
const RANGE_PAIRS = [
  ['min_price', 'max_price'],
  ['min_length', 'max_length'],
  ['min_score', 'max_score'],
  ['min_dr', 'max_dr'],
  ['min_tf', 'max_tf'],
] as const;

/**
 * The query of `GET /api/v1/domains`: every parameter with the bounds of api-v1.md, unknown
 * parameters rejected, and the cross-parameter rules of decisions.md.
 */
export const searchQuerySchema = z
  .object(searchFields)
  .strict()
  .superRefine((query, ctx) => checkFilterRules(query, ctx));

/**
 * The cross-parameter rules of decisions.md over the listing filters: a lower bound above its
 * upper bound names the upper one; `ending_within` goes with running auctions only.
 */
export function checkFilterRules(
  query: { [K in (typeof RANGE_PAIRS)[number][number]]?: number | undefined } & {
    status?: string | undefined;
    ending_within?: number | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  for (const [lower, upper] of RANGE_PAIRS) {
    const low = query[lower];
    const high = query[upper];
    if (low !== undefined && high !== undefined && low > high) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [upper],
        message: `must be greater than or equal to ${lower}`,
      });
    }
  }
  if (
    query.ending_within !== undefined &&
    query.status !== undefined &&
    query.status !== 'auction'
  ) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['ending_within'],
      message: `applies to running auctions only; it cannot be combined with status=${query.status}`,
    });
  }
}

/** Search parameters as a caller passes them (numbers and booleans typed). */
export type SearchParams = z.input<typeof searchQuerySchema>;
/** Search parameters after validation: defaults applied, terms split and cleaned. */
export type SearchQuery = z.output<typeof searchQuerySchema>;

/** A query that accepts no parameters at all (lookup, stats, the alerts but their deliveries). */
export const noParamsSchema = z.object({}).strict();
