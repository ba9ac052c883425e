import { describe, expect, it } from 'vitest';
import { compileProfile, type MappingOptions } from './map-record';
import { feedProfileSchema, type FeedProfileInput } from './profile';
import { SHIPPED_PROFILES } from './profiles';

const now = new Date('2026-11-24T12:00:00.000Z');
const mapper = (input: FeedProfileInput, options: Partial<MappingOptions> = {}) => compileProfile(feedProfileSchema.parse(input), { now, ...options });

describe('compileProfile', () => {
  it('maps a GoDaddy record to the feed format, a BuyNow listing as available with a buy-now price', () => {
    const godaddy = compileProfile(SHIPPED_PROFILES['godaddy-auctions']!, { now });
    const record = {
      domainName: 'CLOUDKITCHEN.COM',
      link: 'https://www.godaddy.com/domain-auctions/cloudkitchen-com-123',
      auctionType: 'Bid',
      auctionEndTime: '2026-12-01T17:10:00Z',
      price: '$1,324',
      numberOfBids: 12,
      domainAge: 14,
      pageviews: 3,
      valuation: '$1,067',
      isAdult: false,
      majesticTf: 21,
      semrushAs: 9,
    };
    expect(godaddy.map(record)).toEqual({
      ok: true,
      record: {
        domain_name: 'cloudkitchen.com',
        status: 'auction',
        current_bid: 1324,
        buy_now_price: null,
        bid_count: 12,
        auction_end_time: '2026-12-01T17:10:00.000Z',
        auction_type: 'auction',
        marketplace_url: 'https://www.godaddy.com/domain-auctions/cloudkitchen-com-123',
        domain_age: 14,
        valuation: 1067,
        seob_tf: 21,
        seob_cf: null,
        seob_backlinks: null,
        seoc_authority: 9,
        seoc_backlinks: null,
      },
    });
    expect(godaddy.map({ ...record, auctionType: 'BuyNow', price: '$2,500' })).toMatchObject({
      ok: true,
      record: { status: 'available', current_bid: 2500, buy_now_price: 2500, auction_type: 'buy_now' },
    });
    expect(godaddy.map({ ...record, auctionType: 'Raffle' })).toEqual({ ok: false, reason: 'status (auctionType): no status for "Raffle"' });
    expect(godaddy.map({ ...record, price: 'cheap' })).toEqual({ ok: false, reason: 'current_bid (price): not a money amount "cheap"' });
    expect(godaddy.requiredFields).toEqual(['domainName', 'price', 'auctionType', 'numberOfBids', 'auctionEndTime', 'link', 'domainAge', 'valuation']);
  });

  it('converts other currencies with the configured rates, and skips amounts it cannot convert', () => {
    const sedo = (rates?: Record<string, number>) => compileProfile(SHIPPED_PROFILES['sedo-auctions']!, { now, ...(rates && { rates }) });
    const record = { domain: 'beispiel.de', price: '1500', currency: 'EUR', bid_count: '3', end_unix: '1796144400' };
    expect(sedo({ EUR: 1.1 }).map(record)).toMatchObject({ ok: true, record: { current_bid: 1650.0000000000002 } });
    expect(sedo().map(record)).toEqual({ ok: 'skip', reason: 'currency EUR has no configured rate' });
    expect(sedo().map({ ...record, currency: '$US' })).toMatchObject({ ok: true, record: { current_bid: 1500 } });
    expect(sedo({ GBP: 1.25 }).map({ ...record, currency: '£' })).toMatchObject({ ok: true, record: { current_bid: 1875 } });
    expect(sedo().map({ ...record, currency: 'bananas' })).toEqual({ ok: false, reason: 'current_bid (price): unknown currency "bananas" in currency' });
    expect(sedo().map({ ...record, price: '$5', currency: 'EUR' })).toEqual({ ok: false, reason: 'current_bid (price): the amount is in USD but currency says EUR' });
    expect(sedo().map(record)).not.toHaveProperty('record');
  });

  it('tries a list of rules in turn, skipping the profile null values; Dynadot prints Pacific local time as PST all year', () => {
    const dynadot = compileProfile(SHIPPED_PROFILES['dynadot-auctions']!, { now });
    const record = { Domain: 'xoly.ai', 'Bid Price': '$101', 'Bid Price Currency': 'USD', Bids: '15', 'End Time': '2026/10/11 22:17 PST', 'End Timestamp': '1791782224112', Links: '19', Age: '--', Appraisal: '-', 'Appraisal Currency': 'USD' };
    expect(dynadot.map(record)).toEqual({
      ok: true,
      record: {
        domain_name: 'xoly.ai',
        status: 'auction',
        current_bid: 101,
        bid_count: 15,
        auction_end_time: '2026-10-12T05:17:04.112Z',
        auction_type: 'expired',
        marketplace_url: 'https://www.dynadot.com/market/auction/xoly.ai',
        domain_age: null,
        valuation: null,
        seoa_backlinks: 19,
      },
    });
    // the printed time, when the timestamp is missing: 22:17 in Los Angeles, PDT in October and PST in January
    expect(dynadot.map({ ...record, 'End Timestamp': '-' })).toMatchObject({ record: { auction_end_time: '2026-10-12T05:17:00.000Z' } });
    expect(dynadot.map({ ...record, 'End Timestamp': '-', 'End Time': '2026/01/11 22:17 PST' })).toMatchObject({ record: { auction_end_time: '2026-01-12T06:17:00.000Z' } });
    expect(dynadot.map({ ...record, 'End Timestamp': '-', 'End Time': '2026/10/11 22:17 PDT' })).toEqual({
      ok: false,
      reason: `auction_end_time (End Time): not a date and time "2026/10/11 22:17 PDT" (expected yyyy/MM/dd HH:mm 'PST')`,
    });
    expect(dynadot.map({ ...record, 'End Timestamp': '--', 'End Time': '--' })).toMatchObject({ record: { auction_end_time: null } });
    // a link where the count belongs is a bad row, not a silent null
    expect(dynadot.map({ ...record, Links: 'https://www.dynadot.com/market/auction/xoly.ai' })).toEqual({
      ok: false,
      reason: 'seoa_backlinks (Links): not a number "https://www.dynadot.com/market/auction/x..."',
    });
    expect(dynadot.requiredFields).toEqual(['Domain', 'Bid Price Currency', 'Bid Price', 'Bids', 'End Timestamp', 'End Time', 'Age', 'Appraisal Currency', 'Appraisal', 'Links']);
  });

  it('builds text from templates, translates text with a map, and reads ages from dates', () => {
    const map = mapper({
      container: { type: 'jsonl' },
      status: { from: 'buyNow', parse: 'boolean', true: 'available', false: 'auction' },
      fields: {
        domain_name: 'name',
        marketplace_url: { template: 'https://market.example/d/{name}?ref={ref}' },
        auction_type: { from: 'kind', map: { 'Make Offer': 'make_offer', closeout: null } },
        domain_age: { from: 'created', parse: 'years-since', format: 'iso' },
        buy_now_price: { from: 'price', when: { field: 'buyNow', in: [true] } },
      },
    });
    expect(map.map({ name: 'Café.com', ref: 'a b', kind: 'make offer', created: '2010-11-25', buyNow: 'yes', price: 50 })).toEqual({
      ok: true,
      record: {
        domain_name: 'xn--caf-dma.com',
        status: 'available',
        buy_now_price: 50,
        auction_type: 'make_offer',
        marketplace_url: 'https://market.example/d/Caf%C3%A9.com?ref=a%20b',
        domain_age: 15,
      },
    });
    expect(map.map({ name: 'x.com', kind: 'Closeout', buyNow: 0, price: 50 })).toMatchObject({ record: { status: 'auction', auction_type: null, buy_now_price: null, marketplace_url: null } });
    expect(map.map({ name: 'x.com', buyNow: 'perhaps' })).toEqual({ ok: false, reason: 'status (buyNow): not a yes/no value "perhaps"' });
    expect(map.map({ name: 'x.com' })).toEqual({ ok: false, reason: 'missing status (buyNow)' });
    expect(map.requiredFields).toEqual(['name', 'buyNow', 'price', 'kind', 'ref', 'created']);
  });

  it('leaves ranges to the feed format: a negative bid is still a number here', () => {
    const map = mapper({ container: { type: 'jsonl' }, status: { constant: 'dropping' }, fields: { domain_name: 'n', current_bid: 'p', bid_count: 'b' } });
    expect(map.map({ n: 'a.com', p: '-5', b: '1,200' })).toEqual({ ok: true, record: { domain_name: 'a.com', status: 'dropping', current_bid: -5, bid_count: 1200 } });
    expect(map.map({ n: 'a.com', b: 'many' })).toEqual({ ok: false, reason: 'bid_count (b): not a number "many"' });
  });
});
