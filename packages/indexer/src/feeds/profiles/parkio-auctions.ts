import type { FeedProfileInput } from '../profile';

/**
 * park.io's auctions as paginated JSON (`https://park.io/auctions.json`, then
 * `/auctions/index/page:N.json`): an envelope with `success`, `nextPage`, `page`, `pageCount`
 * and the records in `auctions`, each with `name`, `price` (a string, US dollars) and
 * `close_date` such as `2026-07-10EDT12:41:01000`: year, day, month, a US Eastern zone
 * abbreviation, time and milliseconds. Example record, from
 * https://github.com/accomplish999/premium-domains/blob/4e73fdcd852ccfd76afedf97b87be17d292e7f2d/test/parse.test.ts
 * (a project that fetched the live feed on 2026-10-07, and reads the day before the month):
 *
 *     { "name": "Jellyfin.co", "price": "99", "close_date": "2026-07-10EDT12:41:01000" }
 *
 * Unconfirmed: the listing's page. `https://park.io/auctions/view/{name}` is how older public
 * scripts open an auction; a later version of the project above links
 * `https://park.io/auctions/view/{id}` with an `id` of the record instead.
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
