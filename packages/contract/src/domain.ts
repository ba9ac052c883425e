import { z } from 'zod';
import { LISTING_STATUSES } from './search-params';

/** ISO 8601 UTC with milliseconds, e.g. `2026-11-21T07:04:00.000Z`. */
export const timestampSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'ISO 8601 UTC with milliseconds');

const money = z.number().nonnegative().nullable();
const count = z.number().int().nonnegative().nullable();
const metric = z.number().min(0).max(100).nullable();

/**
 * The domain object of the search and lookup endpoints. The set of fields is fixed: all 35
 * are always present, a missing value is `null`, and internal columns are never returned.
 */
export const domainSchema = z
  .object({
    domain_name: z.string().describe('Domain name in ASCII/punycode form'),
    tld: z.string().describe('Full public suffix per the Public Suffix List; may contain dots'),
    status: z.enum(LISTING_STATUSES).describe('auction, dropping or available'),
    source: z.string().describe('Marketplace identifier, lowercase'),
    length: z.number().int().positive().describe('Characters of the brand part'),
    has_hyphens: z.boolean().describe('Brand part contains a hyphen'),
    has_numbers: z.boolean().describe('Brand part contains a digit'),
    word_count: z
      .number()
      .int()
      .min(0)
      .max(3)
      .describe('English words needed to cover the brand part; 0 = could not be split'),
    index_score: z
      .number()
      .min(0)
      .max(100)
      .describe('Demand and liquidity indicator 0-100; not a valuation'),
    current_bid: money.describe('Listing price in USD; read together with bid_count'),
    start_price: money.describe('Starting or asking price in USD'),
    buy_now_price: money.describe('Fixed price in USD'),
    bid_count: count.describe('Number of bids; 0 means current_bid is an asking price'),
    auction_end_time: timestampSchema
      .nullable()
      .describe('End of the listing; fixed-price listings may have none'),
    auction_type: z
      .string()
      .nullable()
      .describe('Type of listing, lowercase snake_case (auction, buy_now, make_offer, ...)'),
    marketplace_url: z.string().nullable().describe('Link to the listing on the marketplace'),
    extensions_taken: count.describe(
      'Number of OTHER public suffixes on which the brand part is registered',
    ),
    domain_age: count.describe('Age in years, from the oldest archive snapshot'),
    valuation: money.describe('Estimate reported by the marketplace; unrelated to index_score'),
    spam_risk: metric.describe('Spam risk 0-100, higher is riskier'),
    seoa_dr: metric.describe('Domain rating from SEO provider A, 0-100'),
    seoa_backlinks: count.describe('Backlinks from SEO provider A'),
    seob_tf: metric.describe('Trust flow from SEO provider B, 0-100'),
    seob_cf: metric.describe('Citation flow from SEO provider B, 0-100'),
    seob_backlinks: count.describe('Backlinks from SEO provider B'),
    seoc_authority: metric.describe('Authority from SEO provider C'),
    seoc_backlinks: count.describe('Backlinks from SEO provider C'),
    keyword_search_volume: count.describe('Monthly search volume of the matching keyword'),
    open_rank: z.number().nonnegative().nullable().describe('Open page-rank style metric'),
    rankinga_ranking: count.describe('Rank in traffic-ranking list A'),
    rankingb_ranking: count.describe('Rank in traffic-ranking list B'),
    last_sold_price: money.describe('Last sold price in USD'),
    last_sold_year: z.number().int().nullable().describe('Year of the last sale'),
    last_checked_at: timestampSchema.describe('When the listing was last seen on its marketplace'),
    updated_at: timestampSchema.describe('When the row last changed'),
  })
  .strict();

/** A listed domain, as returned by search and lookup. */
export type Domain = z.infer<typeof domainSchema>;

/** The 35 fields of the domain object, in wire order. */
export const DOMAIN_FIELDS = Object.keys(domainSchema.shape) as (keyof Domain)[];
