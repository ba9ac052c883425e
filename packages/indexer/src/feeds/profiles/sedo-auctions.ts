import type { FeedProfileInput } from '../profile';

/**
 * Sedo's auction list (`https://sedo.com/txt/auctions_us.txt`, about 17,000 rows): ISO-8859-1
 * text without a header, fields separated by `;`, read as
 * `domain;start_unix;end_unix;price;currency;bid_count;` (times in epoch seconds), currencies
 * written `$US`, `EUR` and `&#163;`. Example line, from
 * https://github.com/accomplish999/premium-domains/blob/4e73fdcd852ccfd76afedf97b87be17d292e7f2d/test/parse.test.ts
 * (a project that fetched the live file on 2026-10-07):
 *
 *     winfox.com;1790844429;1791449229;30;$US;1;
 *
 * The `;` of `&#163;` would split a field, so references are decoded before splitting.
 * Amounts in EUR or GBP need the source's `currencyRates`, or their rows are skipped.
 *
 * Unconfirmed: the column names are ours (Sedo publishes none); whether `price` is the current
 * bid or the minimum bid; the listing's page, `https://sedo.com/search/details/?domain=...`,
 * is the address public code links Sedo listings with.
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
