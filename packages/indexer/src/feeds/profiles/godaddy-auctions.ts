import type { FeedProfileInput } from '../profile';

/**
 * GoDaddy Auctions' daily inventory files (`https://inventory.auctions.godaddy.com/`, e.g.
 * `all_listings.json.zip`): a zip with one JSON entry `{"meta":{...},"data":[...]}`, about
 * 590,000 records and 450 MB unzipped; entries may use data descriptors or zip64. Fields as
 * observed in public code ingesting the files (2026-10): `domainName` (upper case), `link`,
 * `auctionType` (`Bid`/`BuyNow`), `auctionEndTime` (ISO UTC), `price` and `valuation`
 * (`"$1,324"`), `numberOfBids`, `domainAge`, `pageviews`, `isAdult`, and Majestic/Semrush
 * metrics (`majesticTf`, `majesticCf`, `majesticBacklinks`, `semrushAs`, `semrushBacklinks`,
 * read only when present). Not checked against a live file; the server refuses requests
 * without a User-Agent, which every fetch sends.
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
