import { describe, expect, it } from 'vitest';
import { queryErrorToApiError } from './query-errors';
import { searchQuerySchema, SEARCH_LIMITS } from './search-params';
import type { ApiErrorBody } from './errors';

/** Validates a raw wire query the way the server does. */
function parse(query: Record<string, string | string[]>) {
  const result = searchQuerySchema.safeParse(query);
  return result.success
    ? ({ ok: true, value: result.data } as const)
    : ({ ok: false, error: queryErrorToApiError(result.error) } as const);
}

function expectInvalid(query: Record<string, string | string[]>, param: string): ApiErrorBody {
  const result = parse(query);
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error('unreachable');
  expect(result.error.code).toBe('invalid_parameter');
  expect(result.error.param).toBe(param);
  expect(result.error.message.startsWith(`${param} `)).toBe(true);
  return result.error;
}

function expectValid(query: Record<string, string | string[]>) {
  const result = parse(query);
  if (!result.ok) throw new Error(`expected valid, got ${JSON.stringify(result.error)}`);
  return result.value;
}

// [param, values at or just inside the bounds, values just outside them]
const numericBounds: [string, string[], string[]][] = [
  ['min_price', ['0', '0.01', '12.5', '99999999'], ['-0.01', '-1', 'abc', '1e3', '0x10', 'Infinity', 'NaN', '12.', '.5']],
  ['max_price', ['0', '1', '250.75'], ['-1', '1,5', ' 5']],
  ['min_length', ['1', '2', '62', '63'], ['0', '64', '1.5', '-1']],
  ['max_length', ['1', '2', '62', '63'], ['0', '64', '2.0']],
  ['min_score', ['0', '0.5', '99.9', '100'], ['-0.1', '100.1', '101']],
  ['max_score', ['0', '1', '99', '100'], ['-1', '100.01']],
  ['min_dr', ['0', '1', '99', '100'], ['-1', '100.5', '101']],
  ['max_dr', ['0', '1', '99', '100'], ['-1', '101']],
  ['min_tf', ['0', '1', '99', '100'], ['-1', '101']],
  ['max_tf', ['0', '1', '99', '100'], ['-1', '101']],
  ['min_backlinks', ['0', '1', '1000000'], ['-1', '1.5', 'many']],
  ['min_age', ['0', '1', '99', '100'], ['-1', '101', '5.5']],
  ['min_search_volume', ['0', '1', '5000000'], ['-1', '2.5']],
  ['min_word_count', ['0', '1', '2', '3'], ['-1', '4', '1.5']],
  ['min_extensions', ['0', '1', '500'], ['-1', '0.5']],
  ['ending_within', ['1', '2', '8759', '8760'], ['0', '8761', '1.5', '-1']],
  ['limit', ['1', '9', '10', '11', '199', '200'], ['0', '201', '-1', '10.5', 'ten']],
];

describe('numeric parameters', () => {
  for (const [param, valid, invalid] of numericBounds) {
    it(`accepts ${param} at and just inside its bounds: ${valid.join(', ')}`, () => {
      for (const value of valid) {
        const parsed = expectValid({ [param]: value }) as Record<string, unknown>;
        if (param !== 'limit') expect(parsed[param]).toBe(Number(value));
      }
    });
    it(`rejects ${param} just outside its bounds with invalid_parameter: ${invalid.join(', ')}`, () => {
      for (const value of invalid) expectInvalid({ [param]: value }, param);
    });
  }
});

describe('limit', () => {
  it('defaults to 50', () => {
    expect(expectValid({}).limit).toBe(SEARCH_LIMITS.limitDefault);
  });
  it('raises values under 10 to 10 and keeps 10-200 as given', () => {
    expect(expectValid({ limit: '1' }).limit).toBe(10);
    expect(expectValid({ limit: '9' }).limit).toBe(10);
    expect(expectValid({ limit: '10' }).limit).toBe(10);
    expect(expectValid({ limit: '137' }).limit).toBe(137);
    expect(expectValid({ limit: '200' }).limit).toBe(200);
  });
});

describe('text parameters', () => {
  it('accepts tld up to 63 characters and rejects 64', () => {
    expect(expectValid({ tld: 'a'.repeat(63) }).tld).toBe('a'.repeat(63));
    expect(expectValid({ tld: 'a'.repeat(62) }).tld).toBe('a'.repeat(62));
    expectInvalid({ tld: 'a'.repeat(64) }, 'tld');
  });
  it('accepts source up to 32 characters and rejects 33', () => {
    expect(expectValid({ source: 'b'.repeat(32) }).source).toBe('b'.repeat(32));
    expect(expectValid({ source: 'b'.repeat(31) }).source).toBe('b'.repeat(31));
    expectInvalid({ source: 'b'.repeat(33) }, 'source');
  });
  it('accepts a cursor up to 512 characters and rejects 513', () => {
    expect(expectValid({ cursor: 'c'.repeat(512) }).cursor).toBe('c'.repeat(512));
    expect(expectValid({ cursor: 'c'.repeat(511) }).cursor).toBe('c'.repeat(511));
    expectInvalid({ cursor: 'c'.repeat(513) }, 'cursor');
  });
  it('lowercases tld and source, and treats all as no filter', () => {
    const parsed = expectValid({ tld: 'CO.UK', source: 'SourceOne' });
    expect(parsed.tld).toBe('co.uk');
    expect(parsed.source).toBe('sourceone');
    const all = expectValid({ tld: 'ALL', source: 'all' });
    expect(all.tld).toBeUndefined();
    expect(all.source).toBeUndefined();
  });
});

describe('search', () => {
  it('accepts 300 characters and rejects 301', () => {
    expect(expectValid({ search: 'a'.repeat(300) }).search).toEqual(['a'.repeat(300)]);
    expect(expectValid({ search: 'a'.repeat(299) }).search).toEqual(['a'.repeat(299)]);
    expectInvalid({ search: 'a'.repeat(301) }, 'search');
  });
  it('splits on whitespace, lowercases and removes characters that cannot occur in a host name', () => {
    expect(expectValid({ search: '  Foo\tBAR!  x.y-z ' }).search).toEqual(['foo', 'bar', 'x.y-z']);
  });
  it('rejects a term under 2 characters after cleanup, naming the term', () => {
    const error = expectInvalid({ search: 'good a' }, 'search');
    expect(error.message).toContain('"a"');
    expect(expectInvalid({ search: 'ok $x$' }, 'search').message).toContain('"$x$"');
    expect(expectInvalid({ search: '!!' }, 'search').message).toContain('"!!"');
  });
  it('accepts exactly 2 characters', () => {
    expect(expectValid({ search: 'ab' }).search).toEqual(['ab']);
  });
  it('accepts repeated identical terms and counts distinct terms only', () => {
    expect(expectValid({ search: 'ab AB ab cd ef gh ij' }).search).toEqual(['ab', 'cd', 'ef', 'gh', 'ij']);
  });
  it('accepts 5 distinct terms and rejects 6', () => {
    expect(expectValid({ search: 'aa bb cc dd ee' }).search).toHaveLength(5);
    expect(expectInvalid({ search: 'aa bb cc dd ee ff' }, 'search').message).toContain('6 distinct terms');
  });
  it('treats a search of only whitespace as no terms', () => {
    expect(expectValid({ search: '   ' }).search).toEqual([]);
  });
});

describe('enumerations and booleans', () => {
  it('accepts every status and rejects others', () => {
    for (const status of ['auction', 'dropping', 'available', 'all']) {
      expect(expectValid({ status }).status).toBe(status);
    }
    expectInvalid({ status: 'Auction' }, 'status');
    expectInvalid({ status: 'sold' }, 'status');
  });
  it('accepts the seven sort fields and two orders', () => {
    for (const sort of ['domain_name', 'length', 'current_bid', 'auction_end_time', 'bid_count', 'buy_now_price', 'index_score']) {
      expect(expectValid({ sort }).sort).toBe(sort);
    }
    expectInvalid({ sort: 'price' }, 'sort');
    expect(expectValid({ order: 'asc' }).order).toBe('asc');
    expect(expectValid({ order: 'desc' }).order).toBe('desc');
    expectInvalid({ order: 'up' }, 'order');
  });
  it('accepts true and false only', () => {
    expect(expectValid({ no_hyphens: 'true' }).no_hyphens).toBe(true);
    expect(expectValid({ no_numbers: 'false' }).no_numbers).toBe(false);
    for (const value of ['1', 'yes', 'TRUE', 'True']) expectInvalid({ no_hyphens: value }, 'no_hyphens');
  });
});

describe('query shape', () => {
  it('treats an empty value as absent', () => {
    const parsed = expectValid({ tld: '', limit: '', min_price: '', status: '' });
    expect(parsed.tld).toBeUndefined();
    expect(parsed.status).toBeUndefined();
    expect(parsed.min_price).toBeUndefined();
    expect(parsed.limit).toBe(50);
  });
  it('rejects a repeated parameter with invalid_parameter naming it', () => {
    const error = expectInvalid({ limit: ['10', '20'] }, 'limit');
    expect(error.message).toBe('limit is given more than once');
    expectInvalid({ search: ['ab', 'ab'] }, 'search');
  });
  it('rejects an unknown parameter with unknown_parameter naming it', () => {
    const result = parse({ offset: '10', limit: '20' });
    expect(result).toEqual({
      ok: false,
      error: { code: 'unknown_parameter', message: 'offset is not a parameter of this endpoint', param: 'offset' },
    });
  });
  it('rejects a lower bound above its upper bound naming the upper one', () => {
    expectInvalid({ min_price: '10', max_price: '5' }, 'max_price');
    expectInvalid({ min_length: '8', max_length: '7' }, 'max_length');
    expectInvalid({ min_score: '50', max_score: '49.5' }, 'max_score');
    expectInvalid({ min_dr: '30', max_dr: '20' }, 'max_dr');
    expectInvalid({ min_tf: '30', max_tf: '20' }, 'max_tf');
    expectValid({ min_price: '5', max_price: '5' });
  });
  it('rejects ending_within with any status but auction', () => {
    for (const status of ['all', 'dropping', 'available']) {
      expectInvalid({ ending_within: '6', status }, 'ending_within');
    }
    expect(expectValid({ ending_within: '6', status: 'auction' }).ending_within).toBe(6);
    expect(expectValid({ ending_within: '6' }).ending_within).toBe(6);
  });
  it('accepts typed values as a client passes them', () => {
    const parsed = searchQuerySchema.parse({ min_price: 12.5, no_hyphens: true, limit: 5 });
    expect(parsed).toMatchObject({ min_price: 12.5, no_hyphens: true, limit: 10 });
  });
});
