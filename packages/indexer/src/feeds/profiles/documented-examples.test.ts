import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseFeedRecord, type FeedRow } from '../../feed-row';
import { readProfileFeed } from '../read-profile-feed';
import { SHIPPED_PROFILE_NAMES, SHIPPED_PROFILES } from './index';

// Each shipped profile against its marketplace's documented example (header and one row, or
// one record), read the way an import reads it: the profile's container and mapping, then the
// feed format's validation. The HTTP-level twin is apps/worker/test/feed-profiles.test.ts.

const now = new Date('2026-11-24T12:00:00.000Z');

/** The feed rows a text yields through a shipped profile, or the reasons its records fail. */
async function rowsOf(profile: string, text: string): Promise<(FeedRow | string)[]> {
  const rows: (FeedRow | string)[] = [];
  for await (const item of readProfileFeed(Readable.from([Buffer.from(text, 'latin1')]), SHIPPED_PROFILES[profile]!, { now })) {
    if (!('record' in item)) throw new Error(`record ${item.line}: ${'error' in item ? item.error : item.skipped}`);
    const parsed = parseFeedRecord(item.record);
    rows.push(parsed.ok ? parsed.row : parsed.reason);
  }
  return rows;
}

/** A row with every optional field null but the ones given. */
const row = (values: Partial<FeedRow> & Pick<FeedRow, 'domainName' | 'status'>): FeedRow => ({
  source: null,
  currentBid: null,
  startPrice: null,
  buyNowPrice: null,
  bidCount: null,
  auctionEndTime: null,
  auctionType: null,
  marketplaceUrl: null,
  extensionsTaken: null,
  domainAge: null,
  valuation: null,
  spamRisk: null,
  seoaDr: null,
  seoaBacklinks: null,
  seobTf: null,
  seobCf: null,
  seobBacklinks: null,
  seocAuthority: null,
  seocBacklinks: null,
  keywordSearchVolume: null,
  openRank: null,
  rankingaRanking: null,
  rankingbRanking: null,
  lastSoldPrice: null,
  lastSoldYear: null,
  ...values,
});

const EXAMPLES: Record<string, { text: string; rows: FeedRow[] }> = {
  'dynadot-auctions': {
    // https://github.com/accomplish999/premium-domains/blob/4e73fdcd852ccfd76afedf97b87be17d292e7f2d/test/parse.test.ts
    text: 'Domain,Bid Price,Bid Price Currency,Bids,End Time,End Timestamp,Links,Age, Appraisal, Appraisal Currency\nxoly.ai,$101,USD,15,2026/10/11 22:17 PST,1791782224112,19,2,$4097,USD\n',
    rows: [
      row({
        domainName: 'xoly.ai',
        status: 'auction',
        currentBid: 101,
        bidCount: 15,
        auctionEndTime: new Date('2026-10-12T05:17:04.112Z'),
        auctionType: 'expired',
        marketplaceUrl: 'https://www.dynadot.com/market/auction/xoly.ai',
        domainAge: 2,
        valuation: 4097,
        seoaBacklinks: 19,
      }),
    ],
  },
  'namecheap-market': {
    // the "user provided sample" of Namecheap_Market_Sales.csv in a CSV-parser test of
    // https://github.com/kotechile/_domain_analysis (beside backend/src/services/csv_parser_service.py)
    text: [
      'url,name,startDate,endDate,price,startPrice,renewPrice,bidCount,ahrefsDomainRating,umbrellaRanking,cloudflareRanking,estibotValue,extensionsTaken,keywordSearchCount,registeredDate,lastSoldPrice,lastSoldYear,isPartnerSale,semrushAScore,majesticCitation,ahrefsBacklinks,semrushBacklinks,majesticBacklinks,majesticTrustFlow,goValue',
      'https://www.namecheap.com/market/sale/2RWaPo3CJb32sMzrzpuQse/,sgs.cc,2026-01-23T08:38:08Z,2026-02-15T16:00:00Z,1.00,1.00,13.98,1,0,,,140.00,340,241000,2015-01-15T00:00:00Z,,,1,,,16,,,,1116.00',
      '',
    ].join('\n'),
    rows: [
      row({
        domainName: 'sgs.cc',
        status: 'auction',
        currentBid: 1,
        startPrice: 1,
        bidCount: 1,
        auctionEndTime: new Date('2026-02-15T16:00:00.000Z'),
        auctionType: 'auction',
        marketplaceUrl: 'https://www.namecheap.com/market/sale/2RWaPo3CJb32sMzrzpuQse/',
        extensionsTaken: 340,
        domainAge: 11,
        valuation: 140,
        seoaDr: 0,
        seoaBacklinks: 16,
        keywordSearchVolume: 241000,
      }),
    ],
  },
  'godaddy-auctions': {
    // the record of https://github.com/accomplish999/premium-domains/blob/55647ed12bd84582f8c1164faf1c93a518b6fb94/test/parse.test.ts,
    // with numberOfBids, domainAge and valuation added (values ours): the file's records carry
    // them (https://github.com/maschlr/domainwizard/blob/10b3a24a5b11dafcf789bb8b754db58ead8485e7/backend/domainwizard/integrations/data/godaddy.py
    // maps every key of a record) and the profile refuses a feed without them
    text: JSON.stringify({
      meta: {},
      data: [
        {
          domainName: 'amber.io',
          link: 'https://www.godaddy.com/domain-auctions/amber-io-1',
          auctionType: 'Bid',
          auctionEndTime: '2026-10-13T16:01:00Z',
          price: '$1,324',
          numberOfBids: 7,
          domainAge: 9,
          valuation: '$2,100',
        },
      ],
    }),
    rows: [
      row({
        domainName: 'amber.io',
        status: 'auction',
        currentBid: 1324,
        bidCount: 7,
        auctionEndTime: new Date('2026-10-13T16:01:00.000Z'),
        auctionType: 'auction',
        marketplaceUrl: 'https://www.godaddy.com/domain-auctions/amber-io-1',
        domainAge: 9,
        valuation: 2100,
      }),
    ],
  },
  'sedo-auctions': {
    // https://github.com/accomplish999/premium-domains/blob/4e73fdcd852ccfd76afedf97b87be17d292e7f2d/test/parse.test.ts
    text: 'winfox.com;1790844429;1791449229;30;$US;1;\n',
    rows: [
      row({
        domainName: 'winfox.com',
        status: 'auction',
        currentBid: 30,
        bidCount: 1,
        auctionEndTime: new Date('2026-10-08T08:47:09.000Z'),
        auctionType: 'auction',
        marketplaceUrl: 'https://sedo.com/search/details/?domain=winfox.com',
      }),
    ],
  },
  'parkio-auctions': {
    // the record of https://github.com/accomplish999/premium-domains/blob/4e73fdcd852ccfd76afedf97b87be17d292e7f2d/test/parse.test.ts
    // in the page envelope of its src/sources/parkio.ts (success, nextPage, page, pageCount)
    text: JSON.stringify({ success: true, nextPage: false, page: 1, pageCount: 1, auctions: [{ name: 'Jellyfin.co', price: '99', close_date: '2026-07-10EDT12:41:01000' }] }),
    rows: [
      row({
        domainName: 'jellyfin.co',
        status: 'auction',
        currentBid: 99,
        auctionEndTime: new Date('2026-10-07T16:41:01.000Z'),
        auctionType: 'auction',
        marketplaceUrl: 'https://park.io/auctions/view/Jellyfin.co',
      }),
    ],
  },
};

describe("the shipped profiles read their marketplace's documented example", () => {
  it('has an example for every shipped profile', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual([...SHIPPED_PROFILE_NAMES].sort());
  });

  it.each(Object.entries(EXAMPLES))('%s', async (profile, { text, rows }) => {
    expect(await rowsOf(profile, text)).toEqual(rows);
  });
});
