import type { FeedProfileInput } from '../profile';

/**
 * Namecheap Market's hourly CSV of its auctions (`Namecheap_Market_Sales.csv`, about 1.1
 * million rows and 194 MB as observed in public code ingesting it, 2026-10). Header:
 * `url,name,startDate,endDate,price,startPrice,renewPrice,bidCount,ahrefsDomainRating,
 * umbrellaRanking,cloudflareRanking,estibotValue,extensionsTaken,keywordSearchCount,
 * registeredDate,lastSoldPrice,lastSoldYear,isPartnerSale,semrushAScore,majesticCitation,
 * ahrefsBacklinks,semrushBacklinks,majesticBacklinks,majesticTrustFlow,goValue`; prices are
 * plain decimals, dates ISO UTC. Columns have been added over time: columns not read here are
 * ignored, and every column read here must be in the header. Not checked against a live file.
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
