import type { FeedProfileInput } from '../profile';

/**
 * Namecheap Market's hourly CSV of its auctions (`Namecheap_Market_Sales.csv`; 1,104,121 rows
 * and 194 MB on 2026-10-07, unquoted fields, LF line endings, as observed by public code).
 * Header and example row, from the "user provided sample" in a CSV-parser test of
 * https://github.com/kotechile/_domain_analysis (beside
 * `backend/src/services/csv_parser_service.py`):
 *
 *     url,name,startDate,endDate,price,startPrice,renewPrice,bidCount,ahrefsDomainRating,umbrellaRanking,cloudflareRanking,estibotValue,extensionsTaken,keywordSearchCount,registeredDate,lastSoldPrice,lastSoldYear,isPartnerSale,semrushAScore,majesticCitation,ahrefsBacklinks,semrushBacklinks,majesticBacklinks,majesticTrustFlow,goValue
 *     https://www.namecheap.com/market/sale/2RWaPo3CJb32sMzrzpuQse/,sgs.cc,2026-01-23T08:38:08Z,2026-02-15T16:00:00Z,1.00,1.00,13.98,1,0,,,140.00,340,241000,2015-01-15T00:00:00Z,,,1,,,16,,,,1116.00
 *
 * `url` is the sale's page, `price` the current price and `startPrice` the opening one, in US
 * dollars as plain decimals, dates ISO UTC (the same reading as
 * https://github.com/maschlr/domainwizard/blob/c3317f33c464b2fac77e1356f8a6bdf38558d354/backend/domainwizard/integrations/data/namecheap.py).
 * Columns have been added over time: columns not read here are ignored, and every column read
 * here must be in the header.
 *
 * Unconfirmed (plausible from the names, not documented): `keywordSearchCount` as a monthly
 * search volume; `umbrellaRanking` and `cloudflareRanking` as ranks in the Cisco Umbrella and
 * Cloudflare Radar lists; `majesticCitation` as Citation Flow; `goValue` (GoDaddy's appraisal)
 * as the valuation when `estibotValue` is empty; `domain_age` as whole years from
 * `registeredDate` to the import.
 */
export const namecheapMarket: FeedProfileInput = {
  container: { type: 'delimited', header: true },
  status: { constant: 'auction' },
  fields: {
    domain_name: 'name',
    current_bid: 'price',
    start_price: 'startPrice',
    bid_count: 'bidCount',
    auction_end_time: { from: 'endDate', format: 'iso' },
    auction_type: { constant: 'auction' },
    marketplace_url: 'url',
    extensions_taken: 'extensionsTaken',
    domain_age: { from: 'registeredDate', parse: 'years-since', format: 'iso' },
    valuation: ['estibotValue', 'goValue'],
    seoa_dr: 'ahrefsDomainRating',
    seoa_backlinks: 'ahrefsBacklinks',
    seob_tf: 'majesticTrustFlow',
    seob_cf: 'majesticCitation',
    seob_backlinks: 'majesticBacklinks',
    seoc_authority: 'semrushAScore',
    seoc_backlinks: 'semrushBacklinks',
    keyword_search_volume: 'keywordSearchCount',
    rankinga_ranking: 'umbrellaRanking',
    rankingb_ranking: 'cloudflareRanking',
    last_sold_price: 'lastSoldPrice',
    last_sold_year: 'lastSoldYear',
  },
};
