import type { FeedProfileInput } from '../profile';

/**
 * park.io's auctions as paginated JSON (`https://park.io/auctions.json`, then
 * `/auctions/index/page:N.json`), as observed in public code ingesting it (2026-10): an
 * envelope with `success`, `nextPage`, `page`, `pageCount` and the records in `auctions`,
 * each with `name`, `price` (a string) and `close_date` such as `2026-07-10EDT12:41:01000`:
 * year, day, month, a US Eastern zone abbreviation, time and milliseconds. Not checked against
 * a live file.
 */
export const parkioAuctions: FeedProfileInput = {
  container: { type: 'json', records: 'auctions' },
  pagination: {
    pageUrl: '/auctions/index/page:{page}.json',
    pageField: 'page',
    pageCountField: 'pageCount',
    hasMoreField: 'nextPage',
    successField: 'success',
    maxPages: 200,
    delayMs: 500,
  },
  timeZone: 'America/New_York',
  status: { constant: 'auction' },
  fields: {
    domain_name: 'name',
    current_bid: 'price',
    auction_end_time: { from: 'close_date', format: 'yyyy-dd-MMzzzHH:mm:ssSSS' },
    auction_type: { constant: 'auction' },
    marketplace_url: { template: 'https://park.io/auctions/view/{name}' },
  },
};
