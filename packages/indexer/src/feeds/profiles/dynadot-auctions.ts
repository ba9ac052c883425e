import type { FeedProfileInput } from '../profile';

/**
 * Dynadot's expired-domain auctions as CSV
 * (`https://www.dynadot.com/market/auction/auctions.csv?currency=USD`), as observed in public
 * code ingesting it (2026-10). Header `Domain,Bid Price,Bid Price Currency,Bids,End Time,End
 * Timestamp,Links,Age, Appraisal, Appraisal Currency` (some names with a leading space, which
 * is trimmed); values like `$101` and `2026/10/11 22:17 PST`; the end timestamp in epoch
 * milliseconds (preferred, the printed time is the fallback); `-` or `--` for a missing value.
 * Not checked against a live file.
 */
export const dynadotAuctions: FeedProfileInput = {
  container: { type: 'delimited', header: true },
  timeZone: 'America/Los_Angeles',
  nullValues: ['-', '--'],
  status: { constant: 'auction' },
  fields: {
    domain_name: 'Domain',
    current_bid: { from: 'Bid Price', currencyFrom: 'Bid Price Currency' },
    bid_count: 'Bids',
    auction_end_time: [
      { from: 'End Timestamp', format: 'epoch-milliseconds' },
      { from: 'End Time', format: 'yyyy/MM/dd HH:mm zzz' },
    ],
    auction_type: { constant: 'expired' },
    marketplace_url: 'Links',
    domain_age: 'Age',
    valuation: { from: 'Appraisal', currencyFrom: 'Appraisal Currency' },
  },
};
