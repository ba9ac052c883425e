import type { FeedProfileInput } from '../profile';

/**
 * Sedo's auction list (`https://sedo.com/txt/auctions_us.txt`, about 17,000 rows), as observed
 * in public code ingesting it (2026-10): ISO-8859-1 text without a header, fields separated by
 * `;` as `domain;start_unix;end_unix;price;currency;bid_count;`, currencies written `$US`,
 * `EUR` and `&#163;`. The `;` of `&#163;` would split a field, so references are decoded
 * before splitting. Amounts in EUR or GBP need the source's `currencyRates`, or their rows are
 * skipped. Not checked against a live file.
 */
export const sedoAuctions: FeedProfileInput = {
  container: {
    type: 'delimited',
    delimiter: ';',
    columns: ['domain', 'start_unix', 'end_unix', 'price', 'currency', 'bid_count'],
    encoding: 'iso-8859-1',
    quote: null,
    htmlEntities: true,
  },
  status: { constant: 'auction' },
  fields: {
    domain_name: 'domain',
    current_bid: { from: 'price', currencyFrom: 'currency' },
    bid_count: 'bid_count',
    auction_end_time: { from: 'end_unix', format: 'epoch-seconds' },
    auction_type: { constant: 'auction' },
    marketplace_url: { template: 'https://sedo.com/search/details/?domain={domain}' },
  },
};
