import { DOMAIN_FIELDS, type Domain } from '@domain-index/contract';
import { listings, prerendered, sql, type AnyPgColumn, type SQL } from '@domain-index/db';
import { lastCheckedAt } from './last-checked-at';

/** How a field's column becomes the JSON text that JSON.stringify writes for the value the driver gives the API. */
type JsonKind = 'text' | 'integer' | 'boolean' | 'money' | 'real' | 'instant';

/** Every public field's kind, by the column types of `listings` (schema/listings.ts). */
const KINDS: Readonly<Record<keyof Domain, JsonKind>> = {
  domain_name: 'text',
  tld: 'text',
  status: 'text',
  source: 'text',
  length: 'integer',
  has_hyphens: 'boolean',
  has_numbers: 'boolean',
  word_count: 'integer',
  index_score: 'integer',
  current_bid: 'money',
  start_price: 'money',
  buy_now_price: 'money',
  bid_count: 'integer',
  auction_end_time: 'instant',
  auction_type: 'text',
  marketplace_url: 'text',
  extensions_taken: 'integer',
  domain_age: 'integer',
  valuation: 'money',
  spam_risk: 'real',
  seoa_dr: 'real',
  seoa_backlinks: 'integer',
  seob_tf: 'real',
  seob_cf: 'real',
  seob_backlinks: 'integer',
  seoc_authority: 'real',
  seoc_backlinks: 'integer',
  keyword_search_volume: 'integer',
  open_rank: 'real',
  rankinga_ranking: 'integer',
  rankingb_ranking: 'integer',
  last_sold_price: 'money',
  last_sold_year: 'integer',
  last_checked_at: 'instant',
  updated_at: 'instant',
};

/**
 * A value's JSON text, written by PostgreSQL exactly as JavaScript writes the value the API
 * gets for it (domain-values.ts), null included:
 * - text, whole numbers (smallint to bigint, all below 2^53) and booleans: `to_json`, whose
 *   string escapes are JSON.stringify's (\", \\, \b \f \n \r \t, \u00xx in lower case);
 * - money (numeric with 2 decimals, 14 digits): the shortest decimal, as the float8 the API
 *   reads prints (150.50 -> 150.5, 100.00 -> 100);
 * - real (0-100): PostgreSQL's shortest text of the float4 is the text the driver parses, so its
 *   digits are JavaScript's; only the notation differs: JavaScript writes an exponent only below
 *   1e-6 (`1.5e-7`, not `1.5e-07`), plain decimals above (`0.00005`, not `5e-05`), and -0 as 0;
 * - instants: the ISO text the API sends.
 */
function jsonValue(kind: JsonKind, value: AnyPgColumn | SQL): SQL {
  switch (kind) {
    case 'text':
    case 'integer':
    case 'boolean':
      return sql`coalesce(to_json(${value})::text, 'null')`;
    case 'money':
      return sql`coalesce(trim_scale(${value})::text, 'null')`;
    case 'instant':
      return sql`coalesce(to_json(to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null')`;
    case 'real':
      return sql`case when ${value} is null then 'null'
        when strpos(${value}::text, 'e') = 0 then (case when ${value}::text = '-0' then '0' else ${value}::text end)
        when ${value}::text ~ 'e-0*([7-9]|[1-9][0-9])$' then regexp_replace(${value}::text, 'e-0*', 'e-')
        else (${value}::text::numeric)::text end`;
  }
}

/** The columns of `listings` the domain object is made of, by field. */
const COLUMNS: Readonly<Record<keyof Domain, AnyPgColumn | SQL>> = {
  domain_name: listings.domainName,
  tld: listings.tld,
  status: listings.status,
  source: listings.source,
  length: listings.length,
  has_hyphens: listings.hasHyphens,
  has_numbers: listings.hasNumbers,
  word_count: listings.wordCount,
  index_score: listings.indexScore,
  current_bid: listings.currentBid,
  start_price: listings.startPrice,
  buy_now_price: listings.buyNowPrice,
  bid_count: listings.bidCount,
  auction_end_time: listings.auctionEndTime,
  auction_type: listings.auctionType,
  marketplace_url: listings.marketplaceUrl,
  extensions_taken: listings.extensionsTaken,
  domain_age: listings.domainAge,
  valuation: listings.valuation,
  spam_risk: listings.spamRisk,
  seoa_dr: listings.seoaDr,
  seoa_backlinks: listings.seoaBacklinks,
  seob_tf: listings.seobTf,
  seob_cf: listings.seobCf,
  seob_backlinks: listings.seobBacklinks,
  seoc_authority: listings.seocAuthority,
  seoc_backlinks: listings.seocBacklinks,
  keyword_search_volume: listings.keywordSearchVolume,
  open_rank: listings.openRank,
  rankinga_ranking: listings.rankingaRanking,
  rankingb_ranking: listings.rankingbRanking,
  last_sold_price: listings.lastSoldPrice,
  last_sold_year: listings.lastSoldYear,
  last_checked_at: lastCheckedAt,
  updated_at: listings.updatedAt,
};

/**
 * A listing's domain object as one line of JSON text, built by PostgreSQL: the very bytes
 * `JSON.stringify` writes for the object `domainFromValues` makes of DOMAIN_COLUMNS (fields in
 * wire order). An export of JSON lines selects this instead of the 35 values, so the API passes
 * text through instead of parsing 35 values and serialising an object per row: the work moves to
 * the database, which formats the values for the wire either way.
 */
export const DOMAIN_JSON_LINE = prerendered(
  sql.join(
    [
      sql.raw("'{'"),
      ...DOMAIN_FIELDS.map(
        (field, i) =>
          sql`${sql.raw(`'${i === 0 ? '' : ','}"${field}":'`)} || ${jsonValue(KINDS[field], COLUMNS[field])}`,
      ),
      sql.raw("'}'"),
    ],
    sql` || `,
  ),
);
