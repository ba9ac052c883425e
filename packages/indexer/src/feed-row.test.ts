import { PassThrough, Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FeedSyntaxError, parseFeedRecord, readFeed } from './feed-row';
import type { FeedItem, FeedRow } from './feed-row';

const base = { domain_name: 'example.com', status: 'auction' };

function row(record: Record<string, unknown>, mapping?: Record<string, string>): FeedRow {
  const result = parseFeedRecord(record, mapping);
  if (!result.ok) throw new Error(`expected a row, got: ${result.reason}`);
  return result.row;
}

function reason(record: Record<string, unknown>, mapping?: Record<string, string>): string {
  const result = parseFeedRecord(record, mapping);
  if (result.ok) throw new Error('expected a rejection');
  return result.reason;
}

async function collect(
  input: NodeJS.ReadableStream | AsyncIterable<string | Buffer>,
  format: 'jsonl' | 'csv',
): Promise<FeedItem[]> {
  const items: FeedItem[] = [];
  for await (const item of readFeed(input, format)) items.push(item);
  return items;
}

/** A plain async iterable, not a stream, that hands out its chunks one tick apart. */
async function* chunked<T>(chunks: readonly T[]): AsyncGenerator<T> {
  for (const chunk of chunks) {
    await Promise.resolve();
    yield chunk;
  }
}

const feed = (text: string, format: 'jsonl' | 'csv') => collect(Readable.from([text]), format);

describe('parseFeedRecord', () => {
  it('accepts a minimal record and fills every other field with null', () => {
    expect(row(base)).toEqual({
      domainName: 'example.com',
      status: 'auction',
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
    });
  });

  it('maps every feed field to its typed counterpart', () => {
    expect(
      row({
        domain_name: ' Example.COM ',
        status: 'Dropping',
        source: ' Source_1 ',
        current_bid: 120,
        start_price: '10.5',
        buy_now_price: 999.99,
        bid_count: 7,
        auction_end_time: '2026-11-21T07:04:00Z',
        auction_type: 'Expired',
        marketplace_url: 'https://market.example/listing/example.com',
        extensions_taken: 12,
        domain_age: 17,
        valuation: 2400,
        spam_risk: 3,
        seoa_dr: 41,
        seoa_backlinks: 5600,
        seob_tf: 22,
        seob_cf: 30,
        seob_backlinks: 4000,
        seoc_authority: 38,
        seoc_backlinks: 3100,
        keyword_search_volume: 8100,
        open_rank: 4.5,
        rankinga_ranking: 120000,
        rankingb_ranking: 95000,
        last_sold_price: 1500,
        last_sold_year: 2019,
      }),
    ).toEqual({
      domainName: 'Example.COM',
      status: 'dropping',
      source: 'source_1',
      currentBid: 120,
      startPrice: 10.5,
      buyNowPrice: 999.99,
      bidCount: 7,
      auctionEndTime: new Date('2026-11-21T07:04:00.000Z'),
      auctionType: 'expired',
      marketplaceUrl: 'https://market.example/listing/example.com',
      extensionsTaken: 12,
      domainAge: 17,
      valuation: 2400,
      spamRisk: 3,
      seoaDr: 41,
      seoaBacklinks: 5600,
      seobTf: 22,
      seobCf: 30,
      seobBacklinks: 4000,
      seocAuthority: 38,
      seocBacklinks: 3100,
      keywordSearchVolume: 8100,
      openRank: 4.5,
      rankingaRanking: 120000,
      rankingbRanking: 95000,
      lastSoldPrice: 1500,
      lastSoldYear: 2019,
    });
  });

  it('ignores fields the feed format does not know', () => {
    expect(
      row({ ...base, registrar: 'x', current_bid: 5, extra: { nested: true } }).currentBid,
    ).toBe(5);
  });

  it('treats null, absent and empty strings alike as null', () => {
    const r = row({ ...base, current_bid: '', bid_count: null, auction_type: '   ' });
    expect([r.currentBid, r.bidCount, r.auctionType, r.valuation]).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });

  describe('domain_name', () => {
    it('rejects a record without domain_name', () => {
      expect(reason({ status: 'auction' })).toBe('missing domain_name');
      expect(reason({ domain_name: '  ', status: 'auction' })).toBe('missing domain_name');
    });

    it('rejects a domain_name that is not a string', () => {
      expect(reason({ domain_name: 42, status: 'auction' })).toBe('domain_name is not a string');
    });

    it('rejects a domain_name longer than a DNS name can be', () => {
      expect(reason({ domain_name: `${'a'.repeat(250)}.com`, status: 'auction' })).toBe(
        'domain_name is too long',
      );
    });
  });

  describe('status', () => {
    it('accepts each status case-insensitively and trimmed', () => {
      expect(row({ ...base, status: ' AUCTION ' }).status).toBe('auction');
      expect(row({ ...base, status: 'Dropping' }).status).toBe('dropping');
      expect(row({ ...base, status: 'available' }).status).toBe('available');
    });

    it('rejects an unknown status and quotes it', () => {
      expect(reason({ ...base, status: 'sold' })).toBe('unknown status "sold"');
      expect(reason({ ...base, status: 3 })).toBe('unknown status "3"');
    });

    it('rejects a record without status', () => {
      expect(reason({ domain_name: 'example.com' })).toBe('missing status');
    });

    it('shortens a huge unknown status in the reason', () => {
      expect(reason({ ...base, status: 'x'.repeat(10_000) }).length).toBeLessThan(80);
    });
  });

  describe('money fields', () => {
    it('rounds to cents, half away from zero as written', () => {
      expect(row({ ...base, current_bid: 12.345 }).currentBid).toBe(12.35);
      expect(row({ ...base, current_bid: 1.005 }).currentBid).toBe(1.01);
      expect(row({ ...base, valuation: '99.994' }).valuation).toBe(99.99);
    });

    it('accepts plain decimal strings as CSV writes them', () => {
      const r = row({ ...base, current_bid: '12.50', start_price: '0', buy_now_price: ' 1500 ' });
      expect([r.currentBid, r.startPrice, r.buyNowPrice]).toEqual([12.5, 0, 1500]);
    });

    it.each(['$12', '12,50', '1e3', '0x10', 'Infinity', 'NaN', '12.', '.5', '+5', 'twelve'])(
      'rejects %j as not a number',
      (value) => {
        expect(reason({ ...base, current_bid: value })).toBe('current_bid is not a number');
      },
    );

    it('rejects a boolean or an object as not a number', () => {
      expect(reason({ ...base, start_price: true })).toBe('start_price is not a number');
      expect(reason({ ...base, start_price: { usd: 5 } })).toBe('start_price is not a number');
    });

    it('rejects a negative price', () => {
      expect(reason({ ...base, current_bid: -1 })).toBe('negative value in current_bid');
      expect(reason({ ...base, last_sold_price: '-0.5' })).toBe(
        'negative value in last_sold_price',
      );
    });

    it('rejects an amount beyond any real price', () => {
      expect(reason({ ...base, valuation: 5e12 })).toBe('valuation is too large');
    });

    it('keeps every accepted amount within half a cent and at two decimals', () => {
      fc.assert(
        fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), (value) => {
          const bid = row({ ...base, current_bid: value }).currentBid!;
          expect(Math.abs(bid - value)).toBeLessThanOrEqual(0.005 + 1e-9 * value);
          expect(Math.abs(bid * 100 - Math.round(bid * 100))).toBeLessThan(1e-6 * Math.max(1, bid));
        }),
      );
    });
  });

  describe('money fields, rounding', () => {
    /** The rule on the decimal digits as written, worked in integers: half away from zero. */
    const roundedAsWritten = (value: number): number => {
      const [whole, fraction = ''] = String(value).split('.');
      const digits = BigInt(whole! + fraction.padEnd(3, '0').slice(0, 3));
      return Number((digits + 5n) / 10n) / 100;
    };

    it('keeps an amount written with at most two decimals exactly as it is', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 100_000_000_000 }), (cents) => {
          expect(row({ ...base, current_bid: cents / 100 }).currentBid).toBe(cents / 100);
          expect(row({ ...base, valuation: String(cents / 100) }).valuation).toBe(cents / 100);
        }),
      );
    });

    it('rounds an amount with more decimals by its digits as written', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 999_999_999 }), fc.integer({ min: 0, max: 99_999 }), (whole, decimals) => {
          const value = Number(`${whole}.${String(decimals).padStart(5, '0')}`);
          fc.pre(!String(value).includes('e'));
          expect(row({ ...base, current_bid: value }).currentBid).toBe(roundedAsWritten(value));
        }),
      );
    });
  });

  describe('counts', () => {
    it('accepts non-negative integers, also as strings and as 12.0', () => {
      const r = row({
        ...base,
        bid_count: '3',
        extensions_taken: 0,
        keyword_search_volume: '12.0',
      });
      expect([r.bidCount, r.extensionsTaken, r.keywordSearchVolume]).toEqual([3, 0, 12]);
    });

    it('rejects a fraction', () => {
      expect(reason({ ...base, bid_count: 2.5 })).toBe('bid_count is not an integer');
    });

    it('rejects a negative count', () => {
      expect(reason({ ...base, seob_backlinks: -3 })).toBe('negative value in seob_backlinks');
    });

    it('allows backlink counts beyond 32 bits but not other counts', () => {
      expect(row({ ...base, seoa_backlinks: 31_000_000_000 }).seoaBacklinks).toBe(31_000_000_000);
      expect(reason({ ...base, bid_count: 3_000_000_000 })).toBe('bid_count is too large');
    });

    it('reads a ranking of 0 as unranked', () => {
      const r = row({ ...base, rankinga_ranking: 0, rankingb_ranking: '17' });
      expect([r.rankingaRanking, r.rankingbRanking]).toEqual([null, 17]);
    });
  });

  describe('0-100 metrics', () => {
    it.each(['spam_risk', 'seoa_dr', 'seob_tf', 'seob_cf', 'seoc_authority', 'open_rank'])(
      'accepts 0 to 100 in %s and nothing beyond',
      (field) => {
        expect(parseFeedRecord({ ...base, [field]: 0 }).ok).toBe(true);
        expect(parseFeedRecord({ ...base, [field]: '100' }).ok).toBe(true);
        expect(parseFeedRecord({ ...base, [field]: 37.5 }).ok).toBe(true);
        expect(reason({ ...base, [field]: 100.5 })).toBe(`${field} is out of range (0-100)`);
        expect(reason({ ...base, [field]: -1 })).toBe(`negative value in ${field}`);
      },
    );

    it('accepts a classic 0-10 page rank in open_rank as well', () => {
      expect(row({ ...base, open_rank: '4.72' }).openRank).toBe(4.72);
    });
  });

  describe('domain_age and last_sold_year', () => {
    it('accepts domain_age 0 to 200 whole years', () => {
      expect(row({ ...base, domain_age: 0 }).domainAge).toBe(0);
      expect(row({ ...base, domain_age: '200' }).domainAge).toBe(200);
      expect(reason({ ...base, domain_age: 201 })).toBe('domain_age is out of range (0-200)');
      expect(reason({ ...base, domain_age: 3.5 })).toBe('domain_age is not an integer');
    });

    it('accepts last_sold_year from 1985 to next year', () => {
      const next = new Date().getUTCFullYear() + 1;
      expect(row({ ...base, last_sold_year: '1985' }).lastSoldYear).toBe(1985);
      expect(row({ ...base, last_sold_year: next }).lastSoldYear).toBe(next);
      expect(reason({ ...base, last_sold_year: 1984 })).toBe(
        `last_sold_year is out of range (1985-${next})`,
      );
      expect(reason({ ...base, last_sold_year: next + 1 })).toBe(
        `last_sold_year is out of range (1985-${next})`,
      );
    });
  });

  describe('auction_end_time', () => {
    const at = (value: unknown) =>
      row({ ...base, auction_end_time: value }).auctionEndTime?.toISOString();

    it('reads ISO 8601 timestamps with Z or an offset', () => {
      expect(at('2026-11-21T07:04:00Z')).toBe('2026-11-21T07:04:00.000Z');
      expect(at('2026-11-21T07:04:00.123456z')).toBe('2026-11-21T07:04:00.123Z');
      expect(at('2026-11-21T09:04:00+02:00')).toBe('2026-11-21T07:04:00.000Z');
      expect(at('2026-11-21 01:34-0530')).toBe('2026-11-21T07:04:00.000Z');
      expect(at('2026-11-21T08:04:00+01')).toBe('2026-11-21T07:04:00.000Z');
    });

    it('reads unix seconds, as a number or as CSV text', () => {
      expect(at(1_795_244_640)).toBe('2026-11-21T07:04:00.000Z');
      expect(at('1795244640.5')).toBe('2026-11-21T07:04:00.500Z');
    });

    it('reads 0 and empty as no end time', () => {
      expect(at(0)).toBeUndefined();
      expect(at('')).toBeUndefined();
    });

    it.each([
      '2026-11-21T07:04:00',
      '2026-11-21',
      '21/11/2026 07:04',
      'Sat, 21 Nov 2026 07:04:00 GMT',
      '2026-02-30T00:00:00Z',
      '2026-11-21T24:00:00Z',
      '2026-13-01T00:00:00Z',
      'soon',
      1_795_244_640_000,
      -5,
      true,
    ])('rejects %j', (value) => {
      expect(reason({ ...base, auction_end_time: value })).toBe('invalid date in auction_end_time');
    });
  });

  describe('auction_type', () => {
    it.each([
      ['Buy Now', 'buy_now'],
      ['Make-Offer', 'make_offer'],
      ['BuyNow', 'buy_now'],
      ['  EXPIRED ', 'expired'],
      ['closeout', 'closeout'],
      ['Enchère', 'enchere'],
    ])('normalises %j to %j', (value, expected) => {
      expect(row({ ...base, auction_type: value }).auctionType).toBe(expected);
    });

    it('reads a placeholder without letters or digits as null', () => {
      expect(row({ ...base, auction_type: '-' }).auctionType).toBeNull();
    });

    it('rejects a type longer than 32 characters, every time it comes', () => {
      for (let i = 0; i < 2; i++) {
        expect(reason({ ...base, auction_type: 'a very long auction type name here' })).toBe(
          'auction_type is too long',
        );
      }
    });

    it('converts each type of a feed with thousands of them, and a repeated one alike', () => {
      // more distinct types than the conversion remembers, each seen twice
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 1_500; i++) {
          expect(row({ ...base, auction_type: `Lot Type${i}` }).auctionType).toBe(`lot_type${i}`);
        }
      }
      expect(row({ ...base, auction_type: 'Buy Now' }).auctionType).toBe('buy_now');
    });
  });

  describe('marketplace_url', () => {
    it('accepts an http(s) URL and returns it serialised', () => {
      expect(
        row({ ...base, marketplace_url: 'HTTPS://Market.Example/listing/a b' }).marketplaceUrl,
      ).toBe('https://market.example/listing/a%20b');
      expect(row({ ...base, marketplace_url: 'http://m.example/x' }).marketplaceUrl).toBe(
        'http://m.example/x',
      );
    });

    it.each(['ftp://m.example/x', 'javascript:alert(1)', 'market.example/listing', 'https://'])(
      'rejects %j',
      (value) => {
        expect(reason({ ...base, marketplace_url: value })).toBe(
          'marketplace_url is not an http(s) URL',
        );
      },
    );

    it('rejects credentials in the URL', () => {
      expect(reason({ ...base, marketplace_url: 'https://u:p@m.example/' })).toBe(
        'marketplace_url must not contain credentials',
      );
    });

    it('rejects a URL over 2048 characters', () => {
      expect(reason({ ...base, marketplace_url: `https://m.example/${'a'.repeat(2040)}` })).toBe(
        'marketplace_url is too long',
      );
    });
  });

  it('reports only the first problem, in feed-format field order', () => {
    expect(reason({ domain_name: 'a.com', status: 'x', current_bid: -1, bid_count: 'many' })).toBe(
      'unknown status "x"',
    );
    expect(reason({ ...base, bid_count: 'many', current_bid: -1 })).toBe(
      'negative value in current_bid',
    );
  });

  describe('mapping', () => {
    it('renames feed fields to ours', () => {
      const r = row(
        { name: 'example.com', state: 'auction', price: '15', bids: '2' },
        { name: 'domain_name', state: 'status', price: 'current_bid', bids: 'bid_count' },
      );
      expect([r.domainName, r.status, r.currentBid, r.bidCount]).toEqual([
        'example.com',
        'auction',
        15,
        2,
      ]);
    });

    it('names our field in the reason', () => {
      expect(reason({ ...base, price: '-3' }, { price: 'current_bid' })).toBe(
        'negative value in current_bid',
      );
    });

    it('prefers the mapped field over a field that already has our name', () => {
      expect(row({ ...base, price: 20, current_bid: 5 }, { price: 'current_bid' }).currentBid).toBe(
        20,
      );
    });

    it('falls back to our own name when the mapped field is empty', () => {
      expect(row({ ...base, price: '', current_bid: 5 }, { price: 'current_bid' }).currentBid).toBe(
        5,
      );
    });

    it('does not read a renamed feed field under its old name', () => {
      const r = row({ ...base, current_bid: 50 }, { current_bid: 'start_price' });
      expect([r.currentBid, r.startPrice]).toEqual([null, 50]);
    });
  });

  it('never throws, whatever JSON object it is given', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...Object.keys(sampleFeedRecord()), 'x'), fc.jsonValue()),
        (r) => {
          const result = parseFeedRecord(r);
          expect(typeof result.ok).toBe('boolean');
        },
      ),
    );
  });
});

function sampleFeedRecord(): Record<string, unknown> {
  return {
    domain_name: 'a.com',
    status: 'auction',
    source: 's',
    current_bid: 1,
    start_price: 1,
    buy_now_price: 1,
    bid_count: 1,
    auction_end_time: 1,
    auction_type: 'a',
    marketplace_url: 'https://a.example',
    extensions_taken: 1,
    domain_age: 1,
    valuation: 1,
    spam_risk: 1,
    seoa_dr: 1,
    open_rank: 1,
    rankinga_ranking: 1,
    last_sold_price: 1,
    last_sold_year: 2000,
  };
}

describe('readFeed', () => {
  it.each(['jsonl', 'csv'] as const)(
    'closes a %s input when the reader stops early',
    async (format) => {
      const input = new PassThrough();
      input.write(format === 'csv' ? 'a\n1\n2\n3\n' : '{"a":1}\n{"a":2}\n');
      for await (const item of readFeed(input, format)) {
        expect(item.line).toBeGreaterThan(0);
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(input.destroyed).toBe(true);
    },
  );
});

describe('readFeed (JSONL)', () => {
  it('yields one record per line with 1-based line numbers, skipping blank lines', async () => {
    const items = await feed('{"domain_name":"a.com"}\n\n   \n{"domain_name":"b.com"}\n', 'jsonl');
    expect(items).toEqual([
      { line: 1, record: { domain_name: 'a.com' } },
      { line: 4, record: { domain_name: 'b.com' } },
    ]);
  });

  it('reports a line that is not JSON and goes on', async () => {
    const items = await feed('{"a":1}\n{"a":\n{"a":2}', 'jsonl');
    expect(items).toEqual([
      { line: 1, record: { a: 1 } },
      { line: 2, error: 'invalid JSON' },
      { line: 3, record: { a: 2 } },
    ]);
  });

  it('reports JSON that is not an object', async () => {
    const items = await feed('[1,2]\n42\nnull\n"x"\n', 'jsonl');
    expect(items).toEqual([1, 2, 3, 4].map((line) => ({ line, error: 'not a JSON object' })));
  });

  it('handles CRLF line ends and a byte order mark', async () => {
    const items = await feed('\uFEFF{"a":1}\r\n\r\n{"a":2}\r\n', 'jsonl');
    expect(items).toEqual([
      { line: 1, record: { a: 1 } },
      { line: 3, record: { a: 2 } },
    ]);
  });

  it('reassembles lines and characters split across chunks', async () => {
    const bytes = Buffer.from('{"domain_name":"bücher.de"}\n{"domain_name":"b.com"}\n');
    const split = bytes.indexOf(0xc3) + 1; // inside the two-byte ü
    const chunks = [
      bytes.subarray(0, split),
      bytes.subarray(split, split + 20),
      bytes.subarray(split + 20),
    ];
    expect(await collect(chunked(chunks), 'jsonl')).toEqual([
      { line: 1, record: { domain_name: 'bücher.de' } },
      { line: 2, record: { domain_name: 'b.com' } },
    ]);
  });

  it('yields a record before the input has ended', async () => {
    const input = new PassThrough();
    const iterator = readFeed(input, 'jsonl');
    input.write('{"a":1}\n');
    await expect(iterator.next()).resolves.toEqual({
      done: false,
      value: { line: 1, record: { a: 1 } },
    });
    input.end('{"a":2}\n');
    await expect(iterator.next()).resolves.toEqual({
      done: false,
      value: { line: 2, record: { a: 2 } },
    });
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
  });

  it('passes on an error of the input stream', async () => {
    const input = new PassThrough();
    input.write('{"a":1}\n');
    setTimeout(() => input.destroy(new Error('disk gone')), 5);
    await expect(collect(input, 'jsonl')).rejects.toThrow('disk gone');
  });
});

describe('readFeed (CSV)', () => {
  it('turns each row into a record keyed by the header, all values strings', async () => {
    const items = await feed('domain_name,status,current_bid\nexample.com,auction,12.50\n', 'csv');
    expect(items).toEqual([
      { line: 2, record: { domain_name: 'example.com', status: 'auction', current_bid: '12.50' } },
    ]);
  });

  it('feeds numeric strings and empty cells through parseFeedRecord', async () => {
    const [item] = await feed(
      'domain_name,status,current_bid,bid_count,auction_end_time,valuation\n' +
        'example.com,Auction,12.50,3,1795244640,\n',
      'csv',
    );
    expect(item && 'record' in item).toBe(true);
    if (item === undefined || !('record' in item)) return;
    const r = row(item.record);
    expect([
      r.status,
      r.currentBid,
      r.bidCount,
      r.auctionEndTime?.toISOString(),
      r.valuation,
    ]).toEqual(['auction', 12.5, 3, '2026-11-21T07:04:00.000Z', null]);
  });

  it('keeps commas and doubled quotes inside quoted fields', async () => {
    const items = await feed('domain_name,auction_type\n"a.com","Buy Now, or ""Offer"""\n', 'csv');
    expect(items).toEqual([
      { line: 2, record: { domain_name: 'a.com', auction_type: 'Buy Now, or "Offer"' } },
    ]);
  });

  it('numbers records by physical line, past blank lines and multi-line fields', async () => {
    const text = 'a,b\n1,2\n\n3,"x\ny\nz"\n4,5\n"q\n",6\n\n\n7,8';
    const lines = (await feed(text, 'csv')).map((item) => item.line);
    expect(lines).toEqual([2, 4, 7, 8, 12]);
    const crlf = (await feed(text.replaceAll('\n', '\r\n'), 'csv')).map((item) => item.line);
    expect(crlf).toEqual([2, 4, 7, 8, 12]);
  });

  it('reports a row with the wrong number of fields and goes on', async () => {
    const items = await feed('a,b\n1,2,3\n4\n5,6\n', 'csv');
    expect(items).toEqual([
      { line: 2, error: 'wrong column count: expected 2, got 3' },
      { line: 3, error: 'wrong column count: expected 2, got 1' },
      { line: 4, record: { a: '5', b: '6' } },
    ]);
  });

  it('keeps a stray quote inside an unquoted field as a character', async () => {
    const items = await feed('a,b\n1,5" wide\n', 'csv');
    expect(items).toEqual([{ line: 2, record: { a: '1', b: '5" wide' } }]);
  });

  it('trims header names and drops a byte order mark', async () => {
    const items = await feed('\uFEFF domain_name , status\r\na.com,auction\r\n', 'csv');
    expect(items).toEqual([{ line: 2, record: { domain_name: 'a.com', status: 'auction' } }]);
  });

  it('yields nothing for a header without rows', async () => {
    expect(await feed('domain_name,status\n', 'csv')).toEqual([]);
  });

  it('throws FeedSyntaxError naming the line of a record whose quote never closes', async () => {
    const result = feed('a,b\n1,2\n3,"open\n4,5\n6,7\n', 'csv');
    await expect(result).rejects.toBeInstanceOf(FeedSyntaxError);
    await expect(result).rejects.toMatchObject({ line: 3 });
  });

  it('yields a record before the input has ended', async () => {
    const input = new PassThrough();
    const iterator = readFeed(input, 'csv');
    // csv-parse looks one character past a row's end before it emits the row
    input.write('a,b\n1,2\n3');
    await expect(iterator.next()).resolves.toEqual({
      done: false,
      value: { line: 2, record: { a: '1', b: '2' } },
    });
    input.end(',4\n');
    await expect(iterator.next()).resolves.toEqual({
      done: false,
      value: { line: 3, record: { a: '3', b: '4' } },
    });
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
  });

  it('reads from an async iterable of strings', async () => {
    expect(await collect(chunked(['a,b\n1,', '2\n3,4']), 'csv')).toEqual([
      { line: 2, record: { a: '1', b: '2' } },
      { line: 3, record: { a: '3', b: '4' } },
    ]);
  });

  it('passes on an error of the input stream', async () => {
    const input = new PassThrough();
    input.write('a,b\n1,2\n');
    setTimeout(() => input.destroy(new Error('disk gone')), 5);
    await expect(collect(input, 'csv')).rejects.toThrow('disk gone');
  });
});
