import type { FeedProfileInput } from '../profile';

/**
 * GoDaddy Auctions' daily inventory files (`https://inventory.auctions.godaddy.com/`, listed in
 * its `metadata.json`): a zip with one JSON entry `{"meta":{...},"data":[...]}`; entries may use
 * data descriptors or zip64. The server refuses requests without a User-Agent, which every
 * fetch sends. `all_biddable_auctions.json.zip` held 586,958 records, 450 MB unzipped, in
 * October 2026, with `auctionType` only `Bid` or `BuyNow` (as observed by public code that
 * imported it whole without a rejected record); the other files have the same record shape, as
 * far as public code reads them.
 *
 * A record's keys, all of which
 * https://github.com/maschlr/domainwizard/blob/10b3a24a5b11dafcf789bb8b754db58ead8485e7/backend/domainwizard/integrations/data/godaddy.py
 * maps: `domainName` (upper case), `link` (the listing's page,
 * `https://www.godaddy.com/domain-auctions/<name>-<id>`), `auctionType`, `auctionEndTime` (ISO
 * UTC), `price` and `valuation` (`"$1,324"`, US dollars), `numberOfBids` (may be absent on `BuyNow`),
 * `domainAge` (years), `pageviews`, `monthlyParkingRevenue`, `isAdult`; since 2026 also Majestic
 * and Semrush metrics (`majesticTf`, `majesticCf`, `majesticBacklinks`, `semrushAs`,
 * `semrushBacklinks`, read when present, and referring-domain counts with no field of ours).
 * Example record:
 * https://github.com/accomplish999/premium-domains/blob/55647ed12bd84582f8c1164faf1c93a518b6fb94/test/parse.test.ts
 *
 * Unconfirmed: that a `BuyNow` record is a fixed-price offer (`available`, its `price` the
 * buy-now price) rather than a closeout at a falling price; other `auctionType` values (other
 * files may hold `Offer` or `Closeout` records) are bad rows until mapped.
 */
export const godaddyAuctions: FeedProfileInput = {
  container: { type: 'json', records: 'data' },
  status: { from: 'auctionType', map: { Bid: 'auction', BuyNow: 'available' } },
  fields: {
    domain_name: 'domainName',
    current_bid: 'price',
    buy_now_price: { from: 'price', when: { field: 'auctionType', in: ['BuyNow'] } },
    bid_count: 'numberOfBids',
    auction_end_time: { from: 'auctionEndTime', format: 'iso' },
    auction_type: { from: 'auctionType', map: { Bid: 'auction', BuyNow: 'buy_now' } },
    marketplace_url: 'link',
    domain_age: 'domainAge',
    valuation: 'valuation',
    seob_tf: { from: 'majesticTf', optional: true },
    seob_cf: { from: 'majesticCf', optional: true },
    seob_backlinks: { from: 'majesticBacklinks', optional: true },
    seoc_authority: { from: 'semrushAs', optional: true },
    seoc_backlinks: { from: 'semrushBacklinks', optional: true },
  },
};
