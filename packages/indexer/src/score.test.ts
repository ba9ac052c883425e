import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexScore, indexScoreOf, SCORE_WEIGHTS } from './score';
import type { ScoreInputs } from './score';

const AUTHORITY_KEYS = [
  'seoaDr',
  'seoaBacklinks',
  'seobTf',
  'seobCf',
  'seobBacklinks',
  'seocAuthority',
  'seocBacklinks',
  'keywordSearchVolume',
  'openRank',
  'rankingaRanking',
  'rankingbRanking',
] as const satisfies readonly (keyof ScoreInputs)[];

const NO_AUTHORITY = {
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
} satisfies Partial<ScoreInputs>;

/** A middling row: every component is below its maximum, so a change in any input can show. */
const BASE: ScoreInputs = {
  length: 9,
  hasHyphens: false,
  hasNumbers: false,
  tld: 'net',
  domainAge: 6,
  bidCount: 4,
  currentBid: 120,
  seoaDr: 20,
  seoaBacklinks: 300,
  seobTf: 10,
  seobCf: 15,
  seobBacklinks: 200,
  seocAuthority: 12,
  seocBacklinks: 100,
  keywordSearchVolume: 500,
  openRank: 2,
  rankingaRanking: 400_000,
  rankingbRanking: 600_000,
};

const STRONGEST_WITHOUT_AUTHORITY: ScoreInputs = {
  length: 3,
  hasHyphens: false,
  hasNumbers: false,
  tld: 'com',
  domainAge: 30,
  bidCount: 200,
  currentBid: 1_000_000,
  ...NO_AUTHORITY,
};

const score = (changes: Partial<ScoreInputs>): number => indexScore({ ...BASE, ...changes });

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.option(arb, { nil: null, freq: 3 });
const count = (max: number): fc.Arbitrary<number> => fc.integer({ min: 0, max });
const percent = fc.double({ min: 0, max: 100, noNaN: true });

const inputs: fc.Arbitrary<ScoreInputs> = fc.record({
  length: fc.integer({ min: 1, max: 63 }),
  hasHyphens: fc.boolean(),
  hasNumbers: fc.boolean(),
  tld: fc.constantFrom('com', 'net', 'org', 'io', 'ai', 'de', 'co.uk', 'com.au', 'xyz', 'xn--p1ai'),
  domainAge: maybe(fc.double({ min: 0, max: 40, noNaN: true })),
  bidCount: maybe(count(500)),
  currentBid: maybe(fc.double({ min: 0, max: 5_000_000, noNaN: true })),
  seoaDr: maybe(percent),
  seoaBacklinks: maybe(count(10_000_000)),
  seobTf: maybe(percent),
  seobCf: maybe(percent),
  seobBacklinks: maybe(count(10_000_000)),
  seocAuthority: maybe(percent),
  seocBacklinks: maybe(count(10_000_000)),
  keywordSearchVolume: maybe(count(10_000_000)),
  openRank: maybe(fc.double({ min: 0, max: 10, noNaN: true })),
  rankingaRanking: maybe(fc.integer({ min: 1, max: 50_000_000 })),
  rankingbRanking: maybe(fc.integer({ min: 1, max: 50_000_000 })),
});

describe('indexScore', () => {
  it('ranks shorter names at least as high as longer ones', () => {
    expect(score({ length: 4 })).toBeGreaterThan(score({ length: 12 }));
    expect(score({ length: 2 })).toBeGreaterThanOrEqual(score({ length: 3 }));
  });

  it('lowers the score for a hyphen and for a digit', () => {
    expect(score({ hasHyphens: true })).toBeLessThan(score({}));
    expect(score({ hasNumbers: true })).toBeLessThan(score({}));
    expect(score({ hasHyphens: true, hasNumbers: true })).toBeLessThan(score({ hasNumbers: true }));
  });

  it('orders the suffix tiers: com, then strong suffixes, then multi-label, then others', () => {
    const com = score({ tld: 'com' });
    for (const strong of ['net', 'org', 'io', 'ai', 'co', 'de', 'uk']) {
      expect(score({ tld: strong })).toBeLessThan(com);
      expect(score({ tld: strong })).toBeGreaterThan(score({ tld: 'co.uk' }));
    }
    expect(score({ tld: 'co.uk' })).toBe(score({ tld: 'com.au' }));
    expect(score({ tld: 'co.uk' })).toBeGreaterThan(score({ tld: 'xyz' }));
  });

  it('raises the score with age, saturating', () => {
    expect(score({ domainAge: 15 })).toBeGreaterThan(score({ domainAge: 2 }));
    expect(score({ domainAge: 2 })).toBeGreaterThan(score({ domainAge: null }));
    expect(score({ domainAge: 60 })).toBe(score({ domainAge: 25 }));
  });

  it('raises the score with bids and with the bid price', () => {
    expect(score({ bidCount: 30 })).toBeGreaterThan(score({ bidCount: 4 }));
    expect(score({ bidCount: 4 })).toBeGreaterThan(score({ bidCount: 0 }));
    expect(score({ currentBid: 5_000 })).toBeGreaterThan(score({ currentBid: 120 }));
    expect(score({ bidCount: 1_000 })).toBe(score({ bidCount: 50 }));
  });

  it('ignores an asking price when nobody has bid', () => {
    expect(score({ bidCount: 0, currentBid: 50_000 })).toBe(score({ bidCount: 0, currentBid: 10 }));
    expect(score({ bidCount: null, currentBid: 50_000 })).toBe(
      score({ bidCount: null, currentBid: null }),
    );
  });

  it('raises the score with each authority metric', () => {
    expect(score({ seoaDr: 80 })).toBeGreaterThan(score({}));
    expect(score({ seobTf: 80 })).toBeGreaterThan(score({}));
    expect(score({ seobCf: 90 })).toBeGreaterThan(score({}));
    expect(score({ seocAuthority: 80 })).toBeGreaterThan(score({}));
    expect(score({ openRank: 8 })).toBeGreaterThan(score({}));
    expect(score({ seoaBacklinks: 80_000 })).toBeGreaterThan(score({}));
    expect(score({ seobBacklinks: 80_000 })).toBeGreaterThan(score({}));
    expect(score({ seocBacklinks: 80_000 })).toBeGreaterThan(score({}));
    expect(score({ keywordSearchVolume: 50_000 })).toBeGreaterThan(score({}));
    expect(score({ rankingaRanking: 1_000 })).toBeGreaterThan(score({}));
    expect(score({ rankingbRanking: 1_000 })).toBeGreaterThan(score({}));
  });

  it('ranks a better (lower) traffic rank higher and ignores non-ranks', () => {
    expect(score({ rankingaRanking: 10 })).toBeGreaterThan(score({ rankingaRanking: 100_000 }));
    expect(score({ rankingaRanking: 0, rankingbRanking: null })).toBe(
      score({ rankingaRanking: null, rankingbRanking: null }),
    );
  });

  it('stays at or below 70 without any authority data', () => {
    const total =
      SCORE_WEIGHTS.length +
      SCORE_WEIGHTS.cleanCharacters +
      SCORE_WEIGHTS.suffix +
      SCORE_WEIGHTS.age +
      SCORE_WEIGHTS.bidCount +
      SCORE_WEIGHTS.currentBid;
    expect(total).toBe(70);
    expect(indexScore(STRONGEST_WITHOUT_AUTHORITY)).toBe(70);
  });

  it('reaches 100 only with strong authority data', () => {
    expect(
      indexScore({
        ...STRONGEST_WITHOUT_AUTHORITY,
        seoaDr: 100,
        seoaBacklinks: 5_000_000,
        rankingaRanking: 1,
        keywordSearchVolume: 1_000_000,
      }),
    ).toBe(100);
  });

  it('gives unknown metrics no points and survives nonsense values', () => {
    const weak = { ...NO_AUTHORITY, length: 40, hasHyphens: true, hasNumbers: true, tld: 'xyz' };
    // Only the floor of the weakest suffix tier remains.
    expect(indexScore({ ...weak, domainAge: null, bidCount: null, currentBid: null })).toBe(2);
    const nonsense = { ...BASE, domainAge: Number.NaN, bidCount: -3, seoaDr: 1e9, openRank: -1 };
    const result = indexScore(nonsense);
    expect(Number.isInteger(result)).toBe(true);
    expect(result).toBeGreaterThanOrEqual(0);
    expect(result).toBeLessThanOrEqual(100);
  });

  it('is always an integer from 0 to 100', () => {
    fc.assert(
      fc.property(inputs, (i) => {
        const result = indexScore(i);
        expect(Number.isInteger(result)).toBe(true);
        expect(result).toBeGreaterThanOrEqual(0);
        expect(result).toBeLessThanOrEqual(100);
      }),
    );
  });

  it('never exceeds 70 when every authority metric is unknown', () => {
    fc.assert(
      fc.property(inputs, (i) => {
        expect(indexScore({ ...i, ...NO_AUTHORITY })).toBeLessThanOrEqual(70);
      }),
    );
  });

  it('is monotone in every input', () => {
    const improve = fc.constantFrom(
      (i: ScoreInputs): ScoreInputs => ({ ...i, length: Math.max(1, i.length - 1) }),
      (i: ScoreInputs): ScoreInputs => ({ ...i, hasHyphens: false }),
      (i: ScoreInputs): ScoreInputs => ({ ...i, hasNumbers: false }),
      (i: ScoreInputs): ScoreInputs => ({ ...i, tld: 'com' }),
      (i: ScoreInputs): ScoreInputs => ({ ...i, domainAge: (i.domainAge ?? 0) + 1 }),
      (i: ScoreInputs): ScoreInputs => ({ ...i, bidCount: (i.bidCount ?? 0) + 1 }),
      (i: ScoreInputs): ScoreInputs => ({ ...i, currentBid: (i.currentBid ?? 0) * 2 + 1 }),
      (i: ScoreInputs): ScoreInputs => ({
        ...i,
        rankingaRanking: i.rankingaRanking === null ? 1_000_000 : Math.ceil(i.rankingaRanking / 2),
      }),
      ...AUTHORITY_KEYS.filter((k) => k !== 'rankingaRanking' && k !== 'rankingbRanking').map(
        (key) =>
          (i: ScoreInputs): ScoreInputs => ({ ...i, [key]: (i[key] ?? 0) * 2 + 1 }),
      ),
    );
    fc.assert(
      fc.property(inputs, improve, (i, better) => {
        expect(indexScore(better(i))).toBeGreaterThanOrEqual(indexScore(i));
      }),
    );
  });

  it('scores a name and its listing given apart exactly as the same inputs given together', () => {
    fc.assert(
      fc.property(inputs, (i) => {
        const { length, hasHyphens, hasNumbers, tld, ...listing } = i;
        expect(indexScoreOf({ length, hasHyphens, hasNumbers, tld }, listing)).toBe(indexScore(i));
      }),
    );
  });

  it('does not depend on word count or extensions taken', () => {
    // They are not inputs at all: extra properties are ignored.
    const withExtras = { ...BASE, wordCount: 3, extensionsTaken: 40 };
    expect(indexScore(withExtras)).toBe(indexScore(BASE));
  });
});
