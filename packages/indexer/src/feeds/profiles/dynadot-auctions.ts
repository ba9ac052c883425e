import type { FeedProfileInput } from '../profile';

/**
 * Dynadot's expired-domain auctions as CSV
 * (`https://www.dynadot.com/market/auction/auctions.csv?currency=USD`). Header and example row
 * from https://github.com/accomplish999/premium-domains/blob/4e73fdcd852ccfd76afedf97b87be17d292e7f2d/test/parse.test.ts,
 * a project that fetched the live file on 2026-10-07 (its `docs/SOURCES.md`):
 *
 *     Domain,Bid Price,Bid Price Currency,Bids,End Time,End Timestamp,Links,Age, Appraisal, Appraisal Currency
 *     xoly.ai,$101,USD,15,2026/10/11 22:17 PST,1791782224112,19,2,$4097,USD
 *
 * (leading spaces of names are trimmed). The columns are the fields of Dynadot's documented
 * auction API: `end_time` "2019/02/20 05:00 PST" with `end_time_stamp` in epoch milliseconds,
 * `links: 35`, `age: 2`, `estibot_appraisal` (https://www.dynadot.com/domain/auction-api.html;
 * `get_open_auctions` describes `<Links>` as links reaching the domain,
 * https://blog.csdn.net/Dynadot_tech/article/details/141422406), and Dynadot's help lists an
 * expired auction's stats as "monthly revenue, monthly visitors, inbound links, and age"
 * (https://www.dynadot.com/community/help/section.html?category_id=31). Read as:
 *
 * - `Links` is a count of inbound links (19 above), not a link: it is the backlink count. Dynadot
 *   does not say which provider counts them, so it goes to the neutral `seoa_backlinks` (the
 *   spec's first "SEO data provider"; `min_backlinks` and the score take the largest of the three
 *   counts, so the choice changes neither). Unconfirmed: the provider.
 * - `marketplace_url` is the listing's page, `https://www.dynadot.com/market/auction/{Domain}`,
 *   the address public code linking Dynadot's auctions uses; the feed has no link column.
 *   Unconfirmed against Dynadot's own documentation.
 * - `End Time` prints `PST` for Pacific local time all year: in the row above, 22:17 "PST" on
 *   11 October is the `End Timestamp` 05:17:04Z, i.e. UTC-7 (PDT). So the printed time is read
 *   in America/Los_Angeles and the label is only checked; `End Timestamp` comes first anyway.
 * - `Age` is read as years (the API's `age: 2`; the unit is not stated: unconfirmed);
 *   `Appraisal` is the listing's appraisal (the API's `estibot_appraisal`), our `valuation`.
 *   `-` and `--` are missing values.
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
      { from: 'End Time', format: "yyyy/MM/dd HH:mm 'PST'" },
    ],
    auction_type: { constant: 'expired' },
    marketplace_url: { template: 'https://www.dynadot.com/market/auction/{Domain}' },
    domain_age: 'Age',
    valuation: { from: 'Appraisal', currencyFrom: 'Appraisal Currency' },
    seoa_backlinks: 'Links',
  },
};
