import { gzipSync } from 'node:zlib';
import { Writable } from 'node:stream';
import { listings, sourceSyncs, sql, type Database } from '@domain-index/db';
import { createTestDatabase, type TestDatabase } from '@domain-index/db/testing';
import { parseSources, type SourceConfig } from '@domain-index/indexer';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '@domain-index/runtime/clock';
import { syncSource } from '../src/indexing/sync-source';
import { createLogger } from '@domain-index/runtime/logger';
import { startFeedServer, type FeedHandler, type FeedServer } from '@domain-index/test-support/feed-server';
import { zipOne } from '@domain-index/test-support/zip';

// Each shipped profile against a fixture in exactly its marketplace's shape, served from
// loopback and synced end to end; every field a profile maps is checked in the index.

const silent = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
const clock: Clock = { now: () => new Date('2026-11-24T12:00:00.000Z') };

/** A source as a sources file would declare it, validated the same way. */
function source(id: string, feed: string, extra: Record<string, unknown>): SourceConfig {
  const parsed = parseSources(JSON.stringify([{ id, name: id, everyMinutes: 60, feed, ...extra }]));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.sources[0]!;
}

/** Every column a feed fills, numbers as numbers and times in ISO UTC, in name order. */
async function indexed(database: Database, sourceId: string): Promise<Record<string, unknown>[]> {
  const rows = await database.rows<Record<string, unknown>>(sql`
    select domain_name, status, current_bid::float8 as current_bid, start_price::float8 as start_price,
      buy_now_price::float8 as buy_now_price, bid_count,
      to_char(auction_end_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as auction_end_time, auction_type, marketplace_url,
      extensions_taken, domain_age, valuation::float8 as valuation, seoa_dr, seoa_backlinks::float8 as seoa_backlinks,
      seob_tf, seob_cf, seob_backlinks::float8 as seob_backlinks, seoc_authority, seoc_backlinks::float8 as seoc_backlinks,
      keyword_search_volume, rankinga_ranking, rankingb_ranking, last_sold_price::float8 as last_sold_price, last_sold_year
    from listings where source = ${sourceId} order by domain_name`);
  return rows;
}

/** A listing with every fillable column null but the ones given. */
const listing = (values: Record<string, unknown>): Record<string, unknown> => ({
  domain_name: null,
  status: null,
  current_bid: null,
  start_price: null,
  buy_now_price: null,
  bid_count: null,
  auction_end_time: null,
  auction_type: null,
  marketplace_url: null,
  extensions_taken: null,
  domain_age: null,
  valuation: null,
  seoa_dr: null,
  seoa_backlinks: null,
  seob_tf: null,
  seob_cf: null,
  seob_backlinks: null,
  seoc_authority: null,
  seoc_backlinks: null,
  keyword_search_volume: null,
  rankinga_ranking: null,
  rankingb_ranking: null,
  last_sold_price: null,
  last_sold_year: null,
  ...values,
});

describe('the shipped marketplace profiles, each against a fixture in its shape', () => {
  let test: TestDatabase;
  const servers: FeedServer[] = [];
  const serve = async (handler: FeedHandler, path: string) => {
    const server = await startFeedServer(handler, path);
    servers.push(server);
    return server;
  };
  const sync = (config: SourceConfig) => syncSource(config, { database: test.database, clock, logger: silent, backoffMs: 1, maxAttempts: 1 });

  beforeAll(async () => {
    test = await createTestDatabase('pglite');
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await test.dispose();
  });
  beforeEach(async () => {
    await test.database.db.delete(listings);
    await test.database.db.delete(sourceSyncs);
  });

  // Each marketplace's documented example (header and one row, or one record), served as the
  // marketplace serves it and synced end to end: the listing it yields, every column exact.
  const DOCUMENTED: { profile: string; path: string; body: Buffer | Promise<Buffer>; listing: Record<string, unknown> }[] = [
    {
      profile: 'dynadot-auctions',
      path: '/market/auction/auctions.csv',
      // https://github.com/accomplish999/premium-domains/blob/4e73fdcd852ccfd76afedf97b87be17d292e7f2d/test/parse.test.ts
      body: Buffer.from('Domain,Bid Price,Bid Price Currency,Bids,End Time,End Timestamp,Links,Age, Appraisal, Appraisal Currency\nxoly.ai,$101,USD,15,2026/10/11 22:17 PST,1791782224112,19,2,$4097,USD\n'),
      listing: listing({
        domain_name: 'xoly.ai',
        status: 'auction',
        current_bid: 101,
        bid_count: 15,
        auction_end_time: '2026-10-12T05:17:04.112Z',
        auction_type: 'expired',
        marketplace_url: 'https://www.dynadot.com/market/auction/xoly.ai',
        domain_age: 2,
        valuation: 4097,
        seoa_backlinks: 19,
      }),
    },
    {
      profile: 'namecheap-market',
      path: '/reports/Namecheap_Market_Sales.csv',
      // the "user provided sample" in a CSV-parser test of https://github.com/kotechile/_domain_analysis
      body: Buffer.from(
        'url,name,startDate,endDate,price,startPrice,renewPrice,bidCount,ahrefsDomainRating,umbrellaRanking,cloudflareRanking,estibotValue,extensionsTaken,keywordSearchCount,registeredDate,lastSoldPrice,lastSoldYear,isPartnerSale,semrushAScore,majesticCitation,ahrefsBacklinks,semrushBacklinks,majesticBacklinks,majesticTrustFlow,goValue\n' +
          'https://www.namecheap.com/market/sale/2RWaPo3CJb32sMzrzpuQse/,sgs.cc,2026-01-23T08:38:08Z,2026-02-15T16:00:00Z,1.00,1.00,13.98,1,0,,,140.00,340,241000,2015-01-15T00:00:00Z,,,1,,,16,,,,1116.00\n',
      ),
      listing: listing({
        domain_name: 'sgs.cc',
        status: 'auction',
        current_bid: 1,
        start_price: 1,
        bid_count: 1,
        auction_end_time: '2026-02-15T16:00:00.000Z',
        auction_type: 'auction',
        marketplace_url: 'https://www.namecheap.com/market/sale/2RWaPo3CJb32sMzrzpuQse/',
        extensions_taken: 340,
        domain_age: 11,
        valuation: 140,
        seoa_dr: 0,
        seoa_backlinks: 16,
        keyword_search_volume: 241000,
      }),
    },
    {
      profile: 'godaddy-auctions',
      path: '/all_biddable_auctions.json.zip',
      // the record of https://github.com/accomplish999/premium-domains/blob/55647ed12bd84582f8c1164faf1c93a518b6fb94/test/parse.test.ts
      // with numberOfBids, domainAge and valuation added (values ours), which every record of the
      // file carries and the profile requires
      body: zipOne(
        'all_biddable_auctions.json',
        Buffer.from(
          JSON.stringify({
            meta: {},
            data: [{ domainName: 'AMBER.IO', link: 'https://www.godaddy.com/domain-auctions/amber-io-1', auctionType: 'Bid', auctionEndTime: '2026-10-13T16:01:00Z', price: '$1,324', numberOfBids: 7, domainAge: 9, valuation: '$2,100' }],
          }),
        ),
      ),
      listing: listing({
        domain_name: 'amber.io',
        status: 'auction',
        current_bid: 1324,
        bid_count: 7,
        auction_end_time: '2026-10-13T16:01:00.000Z',
        auction_type: 'auction',
        marketplace_url: 'https://www.godaddy.com/domain-auctions/amber-io-1',
        domain_age: 9,
        valuation: 2100,
      }),
    },
    {
      profile: 'sedo-auctions',
      path: '/txt/auctions_us.txt',
      // https://github.com/accomplish999/premium-domains/blob/4e73fdcd852ccfd76afedf97b87be17d292e7f2d/test/parse.test.ts
      body: Buffer.from('winfox.com;1790844429;1791449229;30;$US;1;\n', 'latin1'),
      listing: listing({
        domain_name: 'winfox.com',
        status: 'auction',
        current_bid: 30,
        bid_count: 1,
        auction_end_time: '2026-10-08T08:47:09.000Z',
        auction_type: 'auction',
        marketplace_url: 'https://sedo.com/search/details/?domain=winfox.com',
      }),
    },
    {
      profile: 'parkio-auctions',
      path: '/auctions.json',
      // the record of https://github.com/accomplish999/premium-domains/blob/4e73fdcd852ccfd76afedf97b87be17d292e7f2d/test/parse.test.ts
      // in the page envelope its src/sources/parkio.ts reads
      body: Buffer.from(JSON.stringify({ success: true, nextPage: false, page: 1, pageCount: 1, auctions: [{ name: 'Jellyfin.co', price: '99', close_date: '2026-07-10EDT12:41:01000' }] })),
      listing: listing({
        domain_name: 'jellyfin.co',
        status: 'auction',
        current_bid: 99,
        auction_end_time: '2026-10-07T16:41:01.000Z',
        auction_type: 'auction',
        marketplace_url: 'https://park.io/auctions/view/Jellyfin.co',
      }),
    },
  ];

  it.each(DOCUMENTED.map((example) => [example.profile, example] as const))("%s: its marketplace's documented example yields exactly the listing", async (profile, example) => {
    const body = await example.body;
    const server = await serve(() => ({ status: 200, body }), example.path);
    const result = await sync(source(profile.split('-')[0]!, server.url, { profile }));
    expect(result).toMatchObject({ status: 'applied', summary: { rowsRead: 1, inserted: 1, rejected: 0, skipped: 0 } });
    expect(await indexed(test.database, profile.split('-')[0]!)).toEqual([example.listing]);
  });

  it('godaddy-auctions: a zip with a data descriptor around {meta, data}, dollar strings, BuyNow as available, a User-Agent sent', async () => {
    const data = [
      {
        domainName: 'CLOUDKITCHEN.COM',
        link: 'https://www.godaddy.com/domain-auctions/cloudkitchen-com-593834',
        auctionType: 'Bid',
        auctionEndTime: '2026-12-01T17:10:00Z',
        price: '$1,324',
        numberOfBids: 12,
        domainAge: 14,
        pageviews: 251,
        valuation: '$1,067',
        isAdult: false,
        majesticTf: 21,
        majesticCf: 30,
        majesticBacklinks: 4200,
        majesticReferringDomains: 35,
        semrushAs: 9,
        semrushReferringDomains: 20,
        semrushBacklinks: 1500,
      },
      {
        domainName: 'BUYTHIS.NET',
        link: 'https://www.godaddy.com/domain-auctions/buythis-net-77',
        auctionType: 'BuyNow',
        auctionEndTime: '2026-12-20T08:00:00Z',
        price: '$2,500',
        domainAge: 3,
        pageviews: 0,
        valuation: '$1,900',
        isAdult: false,
      },
      {
        domainName: 'MÜNCHEN-SHOP.DE',
        link: 'https://www.godaddy.com/domain-auctions/xn--mnchen-shop-thb-de-12',
        auctionType: 'Bid',
        auctionEndTime: '2026-11-30T23:59:00Z',
        price: '$15',
        numberOfBids: 0,
        domainAge: 0,
        pageviews: 7,
        valuation: '$0',
        isAdult: true,
      },
    ];
    const zip = await zipOne('all_listings.json', Buffer.from(JSON.stringify({ meta: { generated: '2026-11-24', count: data.length }, data })));
    // like GoDaddy's server: no User-Agent, no file
    const server = await serve((request) => (request.headers['user-agent'] === undefined ? { status: 403, body: 'Forbidden' } : { status: 200, body: zip, headers: { 'content-type': 'application/zip' } }), '/all_listings.json.zip');
    const result = await sync(source('godaddy', server.url, { profile: 'godaddy-auctions' }));
    expect(result).toMatchObject({ status: 'applied', summary: { rowsRead: 3, inserted: 3, rejected: 0, skipped: 0 } });
    expect(server.received[0]!.headers['user-agent']).toMatch(/^domain-index\//);
    expect(await indexed(test.database, 'godaddy')).toEqual([
      listing({
        domain_name: 'buythis.net',
        status: 'available',
        current_bid: 2500,
        buy_now_price: 2500,
        auction_end_time: '2026-12-20T08:00:00.000Z',
        auction_type: 'buy_now',
        marketplace_url: 'https://www.godaddy.com/domain-auctions/buythis-net-77',
        domain_age: 3,
        valuation: 1900,
      }),
      listing({
        domain_name: 'cloudkitchen.com',
        status: 'auction',
        current_bid: 1324,
        bid_count: 12,
        auction_end_time: '2026-12-01T17:10:00.000Z',
        auction_type: 'auction',
        marketplace_url: 'https://www.godaddy.com/domain-auctions/cloudkitchen-com-593834',
        domain_age: 14,
        valuation: 1067,
        seob_tf: 21,
        seob_cf: 30,
        seob_backlinks: 4200,
        seoc_authority: 9,
        seoc_backlinks: 1500,
      }),
      listing({
        domain_name: 'xn--mnchen-shop-thb.de',
        status: 'auction',
        current_bid: 15,
        bid_count: 0,
        auction_end_time: '2026-11-30T23:59:00.000Z',
        auction_type: 'auction',
        marketplace_url: 'https://www.godaddy.com/domain-auctions/xn--mnchen-shop-thb-de-12',
        domain_age: 0,
        valuation: 0,
      }),
    ]);
  });

  it('namecheap-market: its exact header plus a column added later, gzip-compressed, plain decimals, ages from registeredDate, valuation falling back to goValue', async () => {
    const csv = [
      'url,name,startDate,endDate,price,startPrice,renewPrice,bidCount,ahrefsDomainRating,umbrellaRanking,cloudflareRanking,estibotValue,extensionsTaken,keywordSearchCount,registeredDate,lastSoldPrice,lastSoldYear,isPartnerSale,semrushAScore,majesticCitation,ahrefsBacklinks,semrushBacklinks,majesticBacklinks,majesticTrustFlow,goValue,addedLater',
      'https://www.namecheap.com/market/sale/2RWaPo3CJb32sMzrzpuQse/,sgs.cc,2026-11-23T08:38:08Z,2026-12-15T16:00:00Z,1.00,1.00,13.98,1,0,,,140.00,340,241000,2015-01-15T00:00:00Z,,,1,,,16,,,,1116.00,x',
      'https://www.namecheap.com/market/sale/qMNdQL59ujA93Mo8yDKmzk/,menu.pro,2026-11-03T10:31:53Z,2026-12-04T16:00:00Z,1250.50,1.00,33.98,17,12,52000,8100,,384,633000,2016-01-26T00:00:00Z,900.00,2019,1,22,35,9,31,480,18,3853.00,y',
    ].join('\n');
    const server = await serve(() => ({ status: 200, body: gzipSync(`${csv}\n`), headers: { 'content-type': 'application/octet-stream' } }), '/reports/Namecheap_Market_Sales.csv.gz');
    const result = await sync(source('namecheap', server.url, { profile: 'namecheap-market' }));
    expect(result).toMatchObject({ status: 'applied', summary: { rowsRead: 2, inserted: 2, rejected: 0 } });
    expect(await indexed(test.database, 'namecheap')).toEqual([
      listing({
        domain_name: 'menu.pro',
        status: 'auction',
        current_bid: 1250.5,
        start_price: 1,
        bid_count: 17,
        auction_end_time: '2026-12-04T16:00:00.000Z',
        auction_type: 'auction',
        marketplace_url: 'https://www.namecheap.com/market/sale/qMNdQL59ujA93Mo8yDKmzk/',
        extensions_taken: 384,
        domain_age: 10,
        valuation: 3853,
        seoa_dr: 12,
        seoa_backlinks: 9,
        seob_tf: 18,
        seob_cf: 35,
        seob_backlinks: 480,
        seoc_authority: 22,
        seoc_backlinks: 31,
        keyword_search_volume: 633000,
        rankinga_ranking: 52000,
        rankingb_ranking: 8100,
        last_sold_price: 900,
        last_sold_year: 2019,
      }),
      listing({
        domain_name: 'sgs.cc',
        status: 'auction',
        current_bid: 1,
        start_price: 1,
        bid_count: 1,
        auction_end_time: '2026-12-15T16:00:00.000Z',
        auction_type: 'auction',
        marketplace_url: 'https://www.namecheap.com/market/sale/2RWaPo3CJb32sMzrzpuQse/',
        extensions_taken: 340,
        domain_age: 11,
        valuation: 140,
        seoa_dr: 0,
        seoa_backlinks: 16,
        keyword_search_volume: 241000,
      }),
    ]);
  });

  it('dynadot-auctions: header names with leading spaces, $ amounts, epoch milliseconds or Pacific times labelled PST, Links as the backlink count, - and -- as missing', async () => {
    const csv = [
      'Domain,Bid Price,Bid Price Currency,Bids,End Time,End Timestamp,Links,Age, Appraisal, Appraisal Currency',
      'example-auction.com,$101,USD,4,2026/10/11 22:17 PST,1791785820000,19,12,"$1,200",USD',
      'nobids.net,$25,USD,0,2026/10/12 09:05 PST,-,0,--,-,-',
      'evening.org,"$1,050.50",USD,--,2026/12/13 18:30 PST,--,"1,204",5,$80,USD',
    ].join('\r\n');
    const server = await serve(() => ({ status: 200, body: `${csv}\r\n`, headers: { 'content-type': 'text/csv' } }), '/market/auction/auctions.csv');
    const result = await sync(source('dynadot', server.url, { profile: 'dynadot-auctions', query: { currency: 'USD' } }));
    expect(result).toMatchObject({ status: 'applied', summary: { rowsRead: 3, inserted: 3, rejected: 0 } });
    expect(server.received[0]!.url).toBe('/market/auction/auctions.csv?currency=USD');
    const dynadot = (values: Record<string, unknown>) =>
      listing({ status: 'auction', auction_type: 'expired', marketplace_url: `https://www.dynadot.com/market/auction/${values.domain_name as string}`, ...values });
    expect(await indexed(test.database, 'dynadot')).toEqual([
      // 18:30 in Los Angeles in December is UTC-8, 09:05 in October UTC-7, whatever the label says
      dynadot({ domain_name: 'evening.org', current_bid: 1050.5, auction_end_time: '2026-12-14T02:30:00.000Z', domain_age: 5, valuation: 80, seoa_backlinks: 1204 }),
      dynadot({ domain_name: 'example-auction.com', current_bid: 101, bid_count: 4, auction_end_time: '2026-10-12T06:17:00.000Z', domain_age: 12, valuation: 1200, seoa_backlinks: 19 }),
      dynadot({ domain_name: 'nobids.net', current_bid: 25, bid_count: 0, auction_end_time: '2026-10-12T16:05:00.000Z', seoa_backlinks: 0 }),
    ]);
  });

  it('sedo-auctions: ISO-8859-1 without a header, ; fields, $US/EUR/&#163; currencies converted with the configured rates or skipped apart', async () => {
    const text = [
      'beispiel.de;1795000000;1796144400;1500;EUR;3;',
      'müller.de;1795000000;1796148000;250;$US;0;',
      'london-shop.co.uk;1795000000;1796151600;99;&#163;;2;',
      'bigsale.com;1795000000;1796155200;12000;$US;14;',
    ].join('\n');
    const server = await serve(() => ({ status: 200, body: Buffer.from(`${text}\n`, 'latin1'), headers: { 'content-type': 'text/plain; charset=iso-8859-1' } }), '/txt/auctions_us.txt');
    const result = await sync(source('sedo', server.url, { profile: 'sedo-auctions', currencyRates: { EUR: 1.1 } }));
    expect(result).toMatchObject({
      status: 'applied',
      summary: { rowsRead: 4, inserted: 3, rejected: 0, skipped: 1, skippedReasons: { 'currency GBP has no configured rate': 1 } },
    });
    const sedo = (values: Record<string, unknown>) => listing({ status: 'auction', auction_type: 'auction', ...values });
    expect(await indexed(test.database, 'sedo')).toEqual([
      sedo({ domain_name: 'beispiel.de', current_bid: 1650, bid_count: 3, auction_end_time: '2026-12-01T17:00:00.000Z', marketplace_url: 'https://sedo.com/search/details/?domain=beispiel.de' }),
      sedo({ domain_name: 'bigsale.com', current_bid: 12000, bid_count: 14, auction_end_time: '2026-12-01T20:00:00.000Z', marketplace_url: 'https://sedo.com/search/details/?domain=bigsale.com' }),
      sedo({ domain_name: 'xn--mller-kva.de', current_bid: 250, bid_count: 0, auction_end_time: '2026-12-01T18:00:00.000Z', marketplace_url: 'https://sedo.com/search/details/?domain=m%C3%BCller.de' }),
    ]);
  });

  it('parkio-auctions: paginated JSON, day-before-month close dates in US Eastern time, string prices', async () => {
    const pages: Record<string, unknown> = {
      '/auctions.json': {
        success: true,
        nextPage: true,
        page: 1,
        pageCount: 2,
        auctions: [
          { name: 'short.io', price: '99', close_date: '2026-07-10EDT12:41:01000' },
          { name: 'tiny.ly', price: '$1,250', close_date: '2026-15-11EST09:00:00000' },
        ],
      },
      '/auctions/index/page:2.json': {
        success: true,
        nextPage: false,
        page: 2,
        pageCount: 2,
        auctions: [{ name: 'last.me', price: '10', close_date: '2026-01-12EST23:59:59000' }],
      },
    };
    const server = await serve((request) => {
      const page = pages[request.url];
      return page === undefined ? { status: 404, body: 'no' } : { status: 200, body: JSON.stringify(page), headers: { 'content-type': 'application/json' } };
    }, '/auctions.json');
    const result = await sync(source('parkio', server.url, { profile: 'parkio-auctions' }));
    expect(result).toMatchObject({ status: 'applied', summary: { rowsRead: 3, inserted: 3, rejected: 0 } });
    expect(server.received.map((request) => request.url)).toEqual(['/auctions.json', '/auctions/index/page:2.json']);
    const parkio = (values: Record<string, unknown>) =>
      listing({ status: 'auction', auction_type: 'auction', marketplace_url: `https://park.io/auctions/view/${values.domain_name as string}`, ...values });
    expect(await indexed(test.database, 'parkio')).toEqual([
      parkio({ domain_name: 'last.me', current_bid: 10, auction_end_time: '2026-12-02T04:59:59.000Z' }),
      parkio({ domain_name: 'short.io', current_bid: 99, auction_end_time: '2026-10-07T16:41:01.000Z' }),
      parkio({ domain_name: 'tiny.ly', current_bid: 1250, auction_end_time: '2026-11-15T14:00:00.000Z' }),
    ]);
  });
});
