import { DOMAIN_FIELDS, type Domain } from '@domain-index/contract';
import { listings, prerendered, sql, type AnyPgColumn, type SQL } from '@domain-index/db';
import { lastCheckedAt } from './last-checked-at';

/** A timestamp as the API writes it (ISO 8601, UTC, milliseconds), formatted by PostgreSQL. */
const isoText = (value: AnyPgColumn | SQL) => sql`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/**
 * numeric (money) and bigint (backlinks) arrive from the drivers as strings; as float8 they
 * arrive as the JSON number the API answers with. Exact: money has 2 decimals within 14 digits,
 * counts are at most 2^53 - 1 (the feed's limit), and the connection asks for the exact float
 * output (extra_float_digits, database.ts).
 */
const asNumber = (column: AnyPgColumn) => sql`${column}::float8`;

/** The columns of a listing's public fields, by their names in `listings` (the change feed's table has them too). */
type DomainColumns = Record<
  | 'domainName' | 'tld' | 'status' | 'source' | 'length' | 'hasHyphens' | 'hasNumbers' | 'wordCount' | 'indexScore' | 'currentBid'
  | 'startPrice' | 'buyNowPrice' | 'bidCount' | 'auctionEndTime' | 'auctionType' | 'marketplaceUrl' | 'extensionsTaken' | 'domainAge'
  | 'valuation' | 'spamRisk' | 'seoaDr' | 'seoaBacklinks' | 'seobTf' | 'seobCf' | 'seobBacklinks' | 'seocAuthority' | 'seocBacklinks'
  | 'keywordSearchVolume' | 'openRank' | 'rankingaRanking' | 'rankingbRanking' | 'lastSoldPrice' | 'lastSoldYear' | 'updatedAt',
  AnyPgColumn
>;

/** What each public field is selected as, over `table`: the very value the response carries. */
export function domainExpressions(table: DomainColumns, checkedAt: AnyPgColumn | SQL): Record<keyof Domain, AnyPgColumn | SQL> {
  return {
    domain_name: table.domainName,
    tld: table.tld,
    status: table.status,
    source: table.source,
    length: table.length,
    has_hyphens: table.hasHyphens,
    has_numbers: table.hasNumbers,
    word_count: table.wordCount,
    index_score: table.indexScore,
    current_bid: asNumber(table.currentBid),
    start_price: asNumber(table.startPrice),
    buy_now_price: asNumber(table.buyNowPrice),
    bid_count: table.bidCount,
    auction_end_time: isoText(table.auctionEndTime),
    auction_type: table.auctionType,
    marketplace_url: table.marketplaceUrl,
    extensions_taken: table.extensionsTaken,
    domain_age: table.domainAge,
    valuation: asNumber(table.valuation),
    spam_risk: table.spamRisk,
    seoa_dr: table.seoaDr,
    seoa_backlinks: asNumber(table.seoaBacklinks),
    seob_tf: table.seobTf,
    seob_cf: table.seobCf,
    seob_backlinks: asNumber(table.seobBacklinks),
    seoc_authority: table.seocAuthority,
    seoc_backlinks: asNumber(table.seocBacklinks),
    keyword_search_volume: table.keywordSearchVolume,
    open_rank: table.openRank,
    rankinga_ranking: table.rankingaRanking,
    rankingb_ranking: table.rankingbRanking,
    last_sold_price: asNumber(table.lastSoldPrice),
    last_sold_year: table.lastSoldYear,
    last_checked_at: isoText(checkedAt),
    updated_at: isoText(table.updatedAt),
  };
}

const EXPRESSIONS = domainExpressions(listings, lastCheckedAt);

/** The 35 fields in wire order over `table`, as one select-list fragment (see DOMAIN_COLUMNS). */
export function domainSelectList(expressions: Record<keyof Domain, AnyPgColumn | SQL>): SQL {
  return sql.join(DOMAIN_FIELDS.map((field) => sql`${expressions[field]}`), sql`, `);
}

/**
 * The select list of a domain object: the 35 fields in wire order, as one fragment rendered
 * once. A statement that starts its select list with this is run for arrays
 * (`Database.values`), and `domainFromValues` turns each row into the response object without
 * any per-column conversion; the drivers' own parsing of int, float, bool and text is all
 * there is. Internal columns are never selected.
 */
export const DOMAIN_COLUMNS = prerendered(domainSelectList(EXPRESSIONS));

/** How many leading values of a row make its domain object; a statement's own columns follow. */
export const DOMAIN_WIDTH = DOMAIN_FIELDS.length;

/**
 * The domain object of a row whose select list starts with DOMAIN_COLUMNS. Generated once as
 * one object literal over the 35 fields: every object then has the same fixed shape from birth,
 * which V8 builds and JSON.stringify walks far faster than an object grown key by key (a
 * page of 51 rows, measured: 72 us to build and 163 us to serialise grown key by key, 4 us and
 * 122 us generated).
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the source is our own field list, not input
export const domainFromValues = new Function('v', `return { ${DOMAIN_FIELDS.map((field, i) => `${JSON.stringify(field)}: v[${i}]`).join(', ')} };`) as (
  values: readonly unknown[],
) => Domain;
