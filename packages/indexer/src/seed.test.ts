import { describe, expect, it } from 'vitest';
import { parseFeedRecord } from './feed-row';
import { seedRecords } from './seed';
import { DEFAULT_SOURCES } from './sources';
import type { SeedOptions } from './seed';

const now = new Date('2026-11-21T07:04:00.000Z');
const sources = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];

function take(opts: Partial<SeedOptions> & { rows: number }) {
  return [...seedRecords({ sources, now, ...opts })];
}

const share = <T>(items: readonly T[], test: (item: T) => boolean): number =>
  items.filter(test).length / items.length;

/** 20k rows shared by the distribution checks. */
const sample = take({ rows: 20_000 });
const records = sample.map(({ record }) => record);
const brandOf = (record: Record<string, unknown>): string =>
  String(record.domain_name).split('.')[0]!;
const endOf = (record: Record<string, unknown>): number | null =>
  typeof record.auction_end_time === 'string' ? Date.parse(record.auction_end_time) : null;

describe('seedRecords', () => {
  it('gives byte-identical output for the same options', () => {
    const first = JSON.stringify(take({ rows: 3000, seed: 7 }));
    const second = JSON.stringify(take({ rows: 3000, seed: 7 }));
    expect(second).toBe(first);
  });

  it('uses 42 when no seed is given', () => {
    expect(JSON.stringify(take({ rows: 500 }))).toBe(JSON.stringify(take({ rows: 500, seed: 42 })));
  });

  it('gives different output for a different seed', () => {
    const a = take({ rows: 500, seed: 1 }).map(({ record }) => record.domain_name);
    const b = take({ rows: 500, seed: 2 }).map(({ record }) => record.domain_name);
    expect(a).not.toEqual(b);
    expect(a.filter((name, i) => name === b[i]).length).toBeLessThan(25);
  });

  it('makes a short run a prefix of a longer one', () => {
    expect(JSON.stringify(take({ rows: 1000 }))).toBe(
      JSON.stringify(take({ rows: 5000 }).slice(0, 1000)),
    );
  });

  it('never repeats a domain name within a source over 50k rows', () => {
    const seen = new Set<string>();
    let duplicates = 0;
    for (const { source, record } of seedRecords({ rows: 50_000, sources, now })) {
      const key = `${source} ${String(record.domain_name)}`;
      if (seen.has(key)) duplicates += 1;
      seen.add(key);
    }
    expect(duplicates).toBe(0);
  });

  it('keeps names unique even on a single source with scarce script-specific names', () => {
    const names = take({ rows: 30_000, sources: ['solo'] })
      .map(({ record }) => String(record.domain_name))
      .filter((name) => name.endsWith('.xn--p1ai') || name.endsWith('.xn--6frz82g'));
    expect(names.length).toBeGreaterThan(100);
    expect(new Set(names).size).toBe(names.length);
  });

  it('produces records that all pass parseFeedRecord, naming their source', () => {
    for (const { source, record } of sample) {
      const result = parseFeedRecord(record);
      if (!result.ok) throw new Error(`${JSON.stringify(record)}: ${result.reason}`);
      expect(result.row.source).toBe(source);
    }
  });

  it('uses only JSON values, so a record survives a JSON round trip unchanged', () => {
    for (const record of records.slice(0, 2000))
      expect(JSON.parse(JSON.stringify(record))).toEqual(record);
  });

  it('mixes the statuses about 60/15/25', () => {
    expect(share(records, (r) => r.status === 'auction')).toBeCloseTo(0.6, 1);
    expect(share(records, (r) => r.status === 'dropping')).toBeCloseTo(0.15, 1);
    expect(share(records, (r) => r.status === 'available')).toBeCloseTo(0.25, 1);
  });

  it('spreads rows unevenly over the sources, the first getting most', () => {
    const counts = sources.map(
      (s) => sample.filter(({ source }) => source === s).length / sample.length,
    );
    expect(counts[0]).toBeCloseTo(0.35, 1);
    expect(counts[4]).toBeCloseTo(0.08, 1);
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
  });

  it('includes listings that ended within the last three days, and none older', () => {
    const timed = records.filter((r) => r.status !== 'available');
    const ended = timed.filter((r) => endOf(r)! < now.getTime());
    expect(ended.length / timed.length).toBeGreaterThan(0.02);
    expect(ended.length / timed.length).toBeLessThan(0.1);
    for (const r of ended) expect(endOf(r)).toBeGreaterThanOrEqual(now.getTime() - 3 * 86_400_000);
  });

  it('ends auctions and drops no later than six weeks ahead', () => {
    for (const r of records) {
      if (r.status !== 'available')
        expect(endOf(r)).toBeLessThanOrEqual(now.getTime() + 42 * 86_400_000);
    }
  });

  it('gives available listings mostly no end time and a buy-now price', () => {
    const available = records.filter((r) => r.status === 'available');
    expect(share(available, (r) => r.auction_end_time === null)).toBeGreaterThan(0.8);
    expect(share(available, (r) => r.buy_now_price !== null)).toBeGreaterThan(0.7);
    expect(share(available, (r) => r.bid_count === 0)).toBe(1);
  });

  it('leaves bid_count at 0 for most dropping listings and starts auction bids low', () => {
    const dropping = records.filter((r) => r.status === 'dropping');
    expect(share(dropping, (r) => r.bid_count === 0)).toBeGreaterThan(0.8);
    const auctions = records.filter((r) => r.status === 'auction');
    expect(share(auctions, (r) => Number(r.bid_count) <= 3)).toBeGreaterThan(0.7);
    expect(Math.max(...auctions.map((r) => Number(r.bid_count)))).toBeGreaterThan(20);
  });

  it('carries SEO metrics on a minority of rows only', () => {
    const withSeo = share(
      records,
      (r) => r.seoa_dr !== null || r.seob_tf !== null || r.seoc_authority !== null,
    );
    expect(withSeo).toBeGreaterThan(0.1);
    expect(withSeo).toBeLessThan(0.2);
  });

  it('gives names with a higher DR more backlinks', () => {
    const rated = records.filter((r) => r.seoa_dr !== null);
    const median = (values: number[]) =>
      values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const low = median(
      rated.filter((r) => Number(r.seoa_dr) < 20).map((r) => Number(r.seoa_backlinks)),
    );
    const high = median(
      rated.filter((r) => Number(r.seoa_dr) >= 50).map((r) => Number(r.seoa_backlinks)),
    );
    expect(high).toBeGreaterThan(low * 10);
  });

  it('draws long-tailed prices: mostly small, a few in the tens of thousands', () => {
    const prices = records.map((r) => Number(r.current_bid));
    expect(share(prices, (p) => p >= 1 && p <= 200)).toBeGreaterThan(0.6);
    expect(prices.some((p) => p >= 10_000)).toBe(true);
  });

  it('weights public suffixes heavily towards com and includes multi-label and punycode ones', () => {
    const suffixes = records.map((r) => String(r.domain_name).slice(brandOf(r).length + 1));
    expect(share(suffixes, (s) => s === 'com')).toBeCloseTo(0.45, 1);
    for (const suffix of [
      'net',
      'org',
      'io',
      'ai',
      'co.uk',
      'com.au',
      'co.nz',
      'com.br',
      'xn--p1ai',
      'xn--6frz82g',
    ]) {
      expect(suffixes).toContain(suffix);
    }
  });

  it('builds brands from words, with some hyphens, digits and punycode', () => {
    const brands = records.map(brandOf);
    const ascii = brands.filter((b) => !b.startsWith('xn--'));
    expect(share(ascii, (b) => /^[a-z0-9-]+$/.test(b))).toBe(1);
    expect(share(ascii, (b) => b.includes('-'))).toBeGreaterThan(0.03);
    expect(share(ascii, (b) => b.includes('-'))).toBeLessThan(0.08);
    expect(share(ascii, (b) => /\d/.test(b))).toBeGreaterThan(0.06);
    expect(share(ascii, (b) => /\d/.test(b))).toBeLessThan(0.15);
    expect(share(brands, (b) => b.startsWith('xn--'))).toBeGreaterThan(0.005);
    expect(brands).toContain('time');
  });

  it('gives common two-word searches names to find in the 20,000-row demo, as the API matches them', () => {
    const demoNow = new Date();
    const live = [
      ...seedRecords({
        rows: 20_000,
        sources: DEFAULT_SOURCES.map((source) => source.id),
        now: demoNow,
      }),
    ]
      .map(({ record }) =>
        String(record.status) === 'auction' && (endOf(record) ?? Infinity) > demoNow.getTime()
          ? String(record.domain_name)
          : undefined,
      )
      .filter((name) => name !== undefined);
    // a search without status: running auctions; every term a substring of the name
    const found = (search: string) =>
      live.filter((name) => search.split(' ').every((term) => name.includes(term)));
    for (const search of [
      'cloud data',
      'solar energy',
      'my home',
      'smart home',
      'web design',
      'coffee shop',
      'real estate',
      'pet food',
    ]) {
      expect(found(search).length, search).toBeGreaterThanOrEqual(3);
    }
    expect(found('cloud data')).toEqual(
      expect.arrayContaining([expect.stringMatching(/clouddata|cloud-data|datacloud/)]),
    );
  });

  it('links each listing to its marketplace', () => {
    const { source, record } = sample[0]!;
    expect(record.marketplace_url).toBe(
      `https://${source}.example/listing/${String(record.domain_name)}`,
    );
  });

  it('rejects options it cannot honour', () => {
    expect(() => take({ rows: -1 })).toThrow(RangeError);
    expect(() => take({ rows: 1, sources: [] })).toThrow(RangeError);
    expect(() => take({ rows: 1, sources: ['a', 'a'] })).toThrow(RangeError);
    expect(() => take({ rows: 1, sources: ['Not An Id'] })).toThrow(RangeError);
    expect(() => take({ rows: 1, now: new Date(Number.NaN) })).toThrow(RangeError);
  });
});
