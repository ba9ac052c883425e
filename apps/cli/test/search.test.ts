import { DOMAIN_FIELDS, errorEnvelopeSchema, type Domain } from '@domain-index/contract';
import { testEngines } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_NOW } from './support/fixture-index';
import { identity, isOrdered, matches, type Params } from './support/oracle';
import { search, walk } from './support/search-client';
import { startFixtureApi } from './support/fixture-api';
import { LEAK, type RunningApi } from '@domain-index/api/test/support/start-api';

const SORTS = ['domain_name', 'length', 'current_bid', 'auction_end_time', 'bid_count', 'buy_now_price', 'index_score'];

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`GET /api/v1/domains on ${engine}`, () => {
    let api: RunningApi;
    /** Every retrievable row, from one page of status=all. */
    let retrievable: Domain[];
    const expected = (params: Params) => retrievable.filter((d) => matches(d, params));
    const expectError = async (params: Params, code: string, param?: string) => {
      const result = await search(api, params);
      expect(result.status).toBe(400);
      const body = errorEnvelopeSchema.parse(result.body);
      expect(body.error.code).toBe(code);
      if (param !== undefined) expect(body.error.param).toBe(param);
      return body.error;
    };

    beforeAll(async () => {
      ({ api, retrievable } = await startFixtureApi(engine));
    });
    afterAll(async () => {
      await api.close();
    });

    describe('result sets', () => {
      it('without status returns running auctions that have not ended', async () => {
        const { rows } = await walk(api, { limit: '200' });
        expect(rows.length).toBeGreaterThan(20);
        expect(rows.every((d) => d.status === 'auction')).toBe(true);
        expect(rows.map(identity).sort()).toEqual(expected({}).map(identity).sort());
      });
      it('never returns an ended listing, whatever the status', async () => {
        for (const status of ['auction', 'dropping', 'available', 'all']) {
          const { rows } = await walk(api, { status, limit: '200' });
          for (const d of rows) {
            if (d.auction_end_time !== null) expect(Date.parse(d.auction_end_time)).toBeGreaterThan(FIXTURE_NOW.getTime());
          }
        }
        const names = retrievable.map(identity);
        expect(names).not.toContain('alpha/just-ended.org');
        expect(names).not.toContain('beta/ended-only.com');
        expect(names).not.toContain('gamma/multi.com');
      });
      it('keeps listings that have no end time', () => {
        expect(retrievable.map(identity)).toContain('alpha/noend-auction.com');
        expect(retrievable.some((d) => d.status === 'available' && d.auction_end_time === null)).toBe(true);
      });
      it('status=all spans every status, and each status its own', async () => {
        expect(new Set(retrievable.map((d) => d.status))).toEqual(new Set(['auction', 'dropping', 'available']));
        for (const status of ['auction', 'dropping', 'available']) {
          const { rows } = await walk(api, { status, limit: '200' });
          expect(rows.map(identity).sort()).toEqual(retrievable.filter((d) => d.status === status).map(identity).sort());
        }
      });
      it('answers no match with 200, empty data and total 0', async () => {
        const result = await search(api, { search: 'zzqqzzqq' });
        expect(result.page).toMatchObject({
          data: [],
          total: { value: 0, accuracy: 'exact' },
          pagination: { page_index: 0, has_more: false, next_cursor: null },
        });
      });
    });

    describe('parameters', () => {
      it('rejects an unknown parameter naming it', async () => {
        const error = await expectError({ offset: '5' }, 'unknown_parameter', 'offset');
        expect(error.message).toBe('offset is not a parameter of this endpoint');
      });
      it('rejects a repeated parameter', async () => {
        const response = await api.get('/api/v1/domains?limit=10&limit=20');
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({
          error: { code: 'invalid_parameter', message: 'limit is given more than once', param: 'limit' },
        });
      });
      it('treats an empty value as absent', async () => {
        const plain = await search(api, { limit: '200' });
        const empty = await search(api, { limit: '200', tld: '', status: '', search: '', min_price: '' });
        expect(empty.page!.data).toEqual(plain.page!.data);
      });
      it('lowercases tld and source, compares exactly, and takes all as no filter', async () => {
        const upper = await walk(api, { status: 'all', tld: 'COM', source: 'ALPHA', limit: '200' });
        expect(upper.rows.length).toBeGreaterThan(0);
        expect(upper.rows.every((d) => d.tld === 'com' && d.source === 'alpha')).toBe(true);
        expect(upper.rows.map(identity).sort()).toEqual(expected({ status: 'all', tld: 'com', source: 'alpha' }).map(identity).sort());
        const all = await search(api, { status: 'all', tld: 'all', source: 'all', limit: '200' });
        expect(all.page!.data.length).toBe(retrievable.length);
        // exact equality: a suffix's last label alone is another suffix
        const uk = await search(api, { status: 'all', tld: 'uk', limit: '200' });
        expect(uk.page!.data.filter((d) => d.tld === 'co.uk')).toEqual([]);
      });
      it('applies limit: default 50, under 10 raised to 10, the applied value in page_size', async () => {
        expect((await search(api, { status: 'all' })).page!.pagination.page_size).toBe(50);
        const small = await search(api, { status: 'all', limit: '3' });
        expect(small.page!.pagination.page_size).toBe(10);
        expect(small.page!.data).toHaveLength(10);
        expect((await search(api, { status: 'all', limit: '137' })).page!.pagination.page_size).toBe(137);
        await expectError({ limit: '201' }, 'invalid_parameter', 'limit');
        await expectError({ limit: '0' }, 'invalid_parameter', 'limit');
      });
      it('rejects key-like parameters with api_key_in_query before anything else', async () => {
        for (const name of ['api_key', 'apikey', 'api-key', 'key', 'token', 'access_token', 'API_KEY']) {
          // even alongside an invalid value and an unknown parameter, the key check wins
          const error = await expectError({ [name]: 'dix_live_x', limit: 'abc', bogus: '1' }, 'api_key_in_query', name);
          expect(error.message).toContain('Authorization header');
        }
      });
      it('rejects invalid values with invalid_parameter naming the parameter', async () => {
        await expectError({ min_price: '-1' }, 'invalid_parameter', 'min_price');
        await expectError({ min_dr: '101' }, 'invalid_parameter', 'min_dr');
        await expectError({ status: 'sold' }, 'invalid_parameter', 'status');
        await expectError({ min_price: '10', max_price: '5' }, 'invalid_parameter', 'max_price');
        await expectError({ ending_within: '6', status: 'all' }, 'invalid_parameter', 'ending_within');
        await expectError({ ending_within: '8761' }, 'invalid_parameter', 'ending_within');
      });
    });

    describe('search terms', () => {
      it('requires every term as a substring, in any order', async () => {
        const name = retrievable.find((d) => d.length >= 6)!;
        const brand = name.domain_name;
        const first = brand.slice(0, 3);
        const second = brand.slice(3, 6);
        const a = await walk(api, { status: 'all', search: `${second} ${first}`, limit: '200' });
        const b = await walk(api, { status: 'all', search: `${first} ${second}`, limit: '200' });
        expect(a.rows.map(identity)).toContain(identity(name));
        expect(a.rows.map(identity).sort()).toEqual(expected({ status: 'all', search: `${first} ${second}` }).map(identity).sort());
        expect(b.rows.map(identity).sort()).toEqual(a.rows.map(identity).sort());
      });
      it('finds exactly the names holding a two-character term, with or without more terms', async () => {
        const name = retrievable.find((d) => d.length >= 6)!.domain_name;
        const pair = name.slice(1, 3);
        const alone = await walk(api, { status: 'all', search: pair, limit: '200' });
        expect(alone.rows.map(identity)).toContain(identity(retrievable.find((d) => d.domain_name === name)!));
        expect(alone.rows.map(identity).sort()).toEqual(expected({ status: 'all', search: pair }).map(identity).sort());
        const withTerm = await walk(api, { status: 'all', search: `${pair} ${name.slice(3, 6)}`, limit: '200' });
        expect(withTerm.rows.map(identity).sort()).toEqual(expected({ status: 'all', search: `${pair} ${name.slice(3, 6)}` }).map(identity).sort());
      });
      it('cleans terms: case and characters that cannot be in a host name', async () => {
        const plain = await walk(api, { status: 'all', search: 'co', limit: '200' });
        const noisy = await walk(api, { status: 'all', search: 'C!O', limit: '200' });
        expect(noisy.rows.map(identity)).toEqual(plain.rows.map(identity));
      });
      it('rejects a term shorter than 2 characters after cleanup, naming it', async () => {
        const error = await expectError({ search: 'car x' }, 'invalid_parameter', 'search');
        expect(error.message).toContain('"x"');
      });
      it('accepts repeated identical terms and rejects more than 5 distinct terms', async () => {
        const repeated = await search(api, { status: 'all', search: 'ab ab AB ab ab ab ab', limit: '200' });
        expect(repeated.status).toBe(200);
        await expectError({ search: 'aa bb cc dd ee ff' }, 'invalid_parameter', 'search');
      });
    });

    describe('filters', () => {
      const cases: Params[] = [
        { min_price: '100' },
        { max_price: '20' },
        { min_price: '0' },
        { min_price: '10', max_price: '500' },
        { min_length: '6' },
        { max_length: '5' },
        { min_length: '4', max_length: '8' },
        { no_hyphens: 'true' },
        { no_hyphens: 'false' },
        { no_numbers: 'true' },
        { min_score: '40' },
        { max_score: '30' },
        { min_dr: '0' },
        { min_dr: '1' },
        { min_dr: '30', max_dr: '90' },
        { max_dr: '100' },
        { min_tf: '10' },
        { max_tf: '50' },
        { min_backlinks: '1000' },
        { min_backlinks: '0' },
        { min_age: '10' },
        { min_search_volume: '100' },
        { min_word_count: '2' },
        { min_word_count: '0' },
        { min_extensions: '0' },
        { min_extensions: '5' },
        { ending_within: '6' },
        { ending_within: '48', status: 'auction' },
        { tld: 'co.uk' },
        { source: 'beta' },
      ];
      /** The cases the rules say filter nothing: a lower bound of 0, and `no_hyphens=false`. */
      const filtersNothing = (filter: Params) =>
        Object.entries(filter).every(([param, value]) => (param.startsWith('min_') && value === '0') || (param === 'no_hyphens' && value === 'false'));
      for (const filter of cases) {
        for (const status of filter.ending_within === undefined ? ['all', ''] : ['']) {
          const params = status === '' ? filter : { ...filter, status };
          it(`applies ${new URLSearchParams(params).toString()}`, async () => {
            const { rows, pages } = await walk(api, { ...params, limit: '200' });
            expect(rows.map(identity).sort()).toEqual(expected(params).map(identity).sort());
            expect(pages[0]!.total).toEqual({ value: rows.length, accuracy: 'exact' });
            // a case that returns nothing, or that leaves every row in where the filter should
            // remove some, would agree with a filter that is ignored or that matches nothing
            const { status: ownStatus, ...bounds } = params;
            const unfiltered = expected(ownStatus === undefined ? {} : { status: ownStatus });
            expect(rows.length).toBeGreaterThan(0);
            if (filtersNothing(bounds)) expect(rows.length).toBe(unfiltered.length);
            else expect(rows.length).toBeLessThan(unfiltered.length);
          });
        }
      }
      it('drops unknown DR for any min_dr above 0 but keeps it for min_dr=0', async () => {
        const withZero = await walk(api, { status: 'all', min_dr: '0', limit: '200' });
        expect(withZero.rows.some((d) => d.seoa_dr === null)).toBe(true);
        const withOne = await walk(api, { status: 'all', min_dr: '1', limit: '200' });
        expect(withOne.rows.length).toBeGreaterThan(0);
        expect(withOne.rows.every((d) => d.seoa_dr !== null && d.seoa_dr >= 1)).toBe(true);
      });
      it('ending_within returns auctions ending within the hours only', async () => {
        const { rows } = await walk(api, { ending_within: '6', limit: '200' });
        expect(rows.map((d) => d.domain_name)).toContain('soon-ending.net');
        expect(rows.every((d) => d.status === 'auction' && d.auction_end_time !== null)).toBe(true);
      });
    });

    describe('ordering', () => {
      for (const sort of SORTS) {
        for (const order of ['asc', 'desc', '']) {
          it(`orders by ${sort} ${order || '(default direction)'} with nulls last`, async () => {
            const params: Params = order === '' ? { status: 'all', sort } : { status: 'all', sort, order };
            const { rows } = await walk(api, { ...params, limit: '200' });
            expect(rows.map(identity).sort()).toEqual(retrievable.map(identity).sort());
            expect(isOrdered(rows, params)).toBe(true);
          });
        }
      }
      it('defaults to index_score descending, and to shortest first for status=dropping', async () => {
        const plain = await search(api, { status: 'all', limit: '200' });
        expect(isOrdered(plain.page!.data, { status: 'all', sort: 'index_score', order: 'desc' })).toBe(true);
        const dropping = await search(api, { status: 'dropping', limit: '200' });
        expect(isOrdered(dropping.page!.data, { sort: 'length', order: 'asc' })).toBe(true);
        const explicit = await search(api, { status: 'dropping', sort: 'length', order: 'asc', limit: '200' });
        expect(dropping.page!.data).toEqual(explicit.page!.data);
      });
      it('gives the same order on every call (total and stable)', async () => {
        const first = await search(api, { status: 'all', sort: 'bid_count', limit: '200' });
        const second = await search(api, { status: 'all', sort: 'bid_count', limit: '200' });
        expect(second.page!.data.map(identity)).toEqual(first.page!.data.map(identity));
      });
    });

    describe('keyset paging', () => {
      it('walks every row exactly once, in order, whatever the page size', async () => {
        for (const limit of ['10', '17', '50']) {
          const { rows, pages } = await walk(api, { status: 'all', sort: 'current_bid', limit });
          const whole = await search(api, { status: 'all', sort: 'current_bid', limit: '200' });
          expect(rows.map(identity)).toEqual(whole.page!.data.map(identity));
          expect(pages.map((page) => page.pagination.page_index)).toEqual(pages.map((_, i) => i));
          expect(pages.at(-1)!.pagination).toMatchObject({ has_more: false, next_cursor: null });
          expect(pages.slice(0, -1).every((page) => page.pagination.has_more && page.data.length === Number(limit))).toBe(true);
        }
      });
      it('says has_more false on a full last page', async () => {
        const total = expected({ status: 'dropping' }).length;
        const size = Math.max(10, total);
        const result = await search(api, { status: 'dropping', limit: String(size) });
        expect(result.page!.data).toHaveLength(total);
        expect(result.page!.pagination).toMatchObject({ has_more: false, next_cursor: null });
      });
      it('treats a cursor as stale when a filter or the ordering changes: first page of the new set', async () => {
        const first = await search(api, { status: 'all', limit: '10' });
        const cursor = first.page!.pagination.next_cursor!;
        const changedFilter = await search(api, { status: 'all', min_length: '3', limit: '10', cursor });
        const freshFilter = await search(api, { status: 'all', min_length: '3', limit: '10' });
        expect(changedFilter.page!.pagination.page_index).toBe(0);
        expect(changedFilter.page!.data).toEqual(freshFilter.page!.data);
        const changedOrder = await search(api, { status: 'all', sort: 'length', limit: '10', cursor });
        expect(changedOrder.page!.pagination.page_index).toBe(0);
        // a different limit is neither a filter nor an ordering: the walk goes on
        const otherLimit = await search(api, { status: 'all', limit: '20', cursor });
        expect(otherLimit.page!.pagination.page_index).toBe(1);
      });
      it('rejects a malformed or tampered cursor with invalid_parameter cursor', async () => {
        const first = await search(api, { status: 'all', limit: '10' });
        const cursor = first.page!.pagination.next_cursor!;
        const [body, signature] = cursor.split('.');
        const forged = Buffer.from(JSON.stringify(['x'.repeat(16), 1, 'a.com', 1, 5])).toString('base64url');
        for (const bad of ['garbage', `${body}.${'A'.repeat(signature!.length)}`, `${forged}.${signature}`, `${cursor}x`, '.']) {
          await expectError({ status: 'all', limit: '10', cursor: bad }, 'invalid_parameter', 'cursor');
        }
      });
    });

    describe('total', () => {
      it('counts the matching rows whatever sort, order or limit', async () => {
        const value = expected({ status: 'all', min_length: '5' }).length;
        for (const extra of [{}, { sort: 'domain_name', order: 'desc' }, { limit: '10' }, { sort: 'bid_count', limit: '200' }]) {
          const result = await search(api, { status: 'all', min_length: '5', ...extra });
          expect(result.page!.total).toEqual({ value, accuracy: 'exact' });
        }
      });
    });

    describe('every response', () => {
      it('has all 35 fields in every domain object and the meta block', async () => {
        const result = await search(api, { status: 'all', limit: '200' });
        for (const d of result.page!.data) expect(Object.keys(d)).toEqual(DOMAIN_FIELDS);
        expect(result.page!.meta.api_version).toBe('v1');
        expect(result.page!.meta.index_score).toMatch(/not a price/);
      });
      it('never carries SQL, driver text or a stack in an error body', () => {
        expect(api.errorBodies.length).toBeGreaterThan(10);
        for (const body of api.errorBodies) expect(body).not.toMatch(LEAK);
      });
    });
  });
}
