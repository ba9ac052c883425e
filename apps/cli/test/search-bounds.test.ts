import { errorEnvelopeSchema, searchQuerySchema, type Domain } from '@domain-index/contract';
import { testEngines } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchParamSpecs } from '@domain-index/test-support/contract-values';
import { EVERY_FIELD_RECORD } from './support/fixture-index';
import { identity, matches, NUMERIC_BOUNDS, type Params } from './support/oracle';
import { search, walk } from './support/search-client';
import { startFixtureApi } from './support/fixture-api';
import type { RunningApi } from '@domain-index/api/test/support/start-api';

/** A fractional value for each decimal bound, near values the fixture holds. */
const FRACTIONAL_DECIMALS: Params[] = [
  { min_score: '40.5' },
  { max_score: '37.169' },
  { min_price: '12.345' },
  { max_price: '250.505' },
  { min_dr: '30.05' },
  { max_dr: '45.5999999' },
  { min_tf: '33.2999999' },
  { max_tf: '33.29' },
];

/** A fraction on each whole-number parameter: the contract refuses it, naming the parameter. */
const FRACTIONAL_INTEGERS = ['min_length', 'max_length', 'min_backlinks', 'min_age', 'min_search_volume', 'min_word_count', 'min_extensions', 'ending_within', 'limit'];

/** The edges of a number parameter the contract allows: 0, its bounds, the longest digits, the most decimals. */
function edgesOf(spec: { min: number; max: number | undefined }): string[] {
  const max = spec.max === undefined ? [] : [String(spec.max), `${spec.max}.${'0'.repeat(15)}`];
  return ['0', String(spec.min), ...max, '9'.repeat(15), `${'9'.repeat(15)}.${'9'.repeat(15)}`, `0.${'0'.repeat(14)}1`, `1.${'9'.repeat(15)}`];
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`numeric bounds of a search on ${engine}`, () => {
    let api: RunningApi;
    let retrievable: Domain[];
    const expected = (params: Params) => retrievable.filter((d) => matches(d, params)).map(identity).sort();
    const rowsOf = async (params: Params) => {
      const { rows, pages } = await walk(api, { ...params, limit: '200' });
      expect(pages[0]!.total).toEqual({ value: rows.length, accuracy: 'exact' });
      return rows;
    };

    beforeAll(async () => {
      ({ api, retrievable } = await startFixtureApi(engine));
    });
    afterAll(async () => {
      await api.close();
    });

    it('reads min_score=40.5 as a score of 41 and up', async () => {
      const rows = await rowsOf({ status: 'all', min_score: '40.5' });
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((d) => d.index_score >= 41)).toBe(true);
      expect(rows.map(identity).sort()).toEqual((await rowsOf({ status: 'all', min_score: '41' })).map(identity).sort());
    });

    it('reads max_score=37.169 as a score of 37 and down', async () => {
      const rows = await rowsOf({ status: 'all', max_score: '37.169' });
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((d) => d.index_score <= 37)).toBe(true);
      expect(rows.map(identity).sort()).toEqual((await rowsOf({ status: 'all', max_score: '37' })).map(identity).sort());
    });

    for (const filter of FRACTIONAL_DECIMALS) {
      const [param, value] = Object.entries(filter)[0]!;
      it(`applies the fractional bound ${param}=${value} to the rows`, async () => {
        const params = { status: 'all', ...filter };
        const rows = await rowsOf(params);
        const [field, side] = NUMERIC_BOUNDS[param]!;
        for (const row of rows) {
          const shown = field(row);
          expect(shown).not.toBeNull();
          expect(side === 'lower' ? shown! >= Number(value) : shown! <= Number(value), `${identity(row)}: ${shown}`).toBe(true);
        }
        expect(rows.map(identity).sort()).toEqual(expected(params));
      });
    }

    it('compares DR and TF as shown: a shown 45.6 is outside max_dr=45.5999999 and inside max_dr=45.6', async () => {
      const every = `delta/${EVERY_FIELD_RECORD.domain_name}`;
      expect((await rowsOf({ status: 'all', max_dr: '45.5999999' })).map(identity)).not.toContain(every);
      expect((await rowsOf({ status: 'all', max_dr: '45.6' })).map(identity)).toContain(every);
      expect((await rowsOf({ status: 'all', min_dr: '45.6' })).map(identity)).toContain(every);
      expect((await rowsOf({ status: 'all', min_dr: '45.6000001' })).map(identity)).not.toContain(every);
      expect((await rowsOf({ status: 'all', min_tf: '33.3', max_tf: '33.3' })).map(identity)).toContain(every);
    });

    for (const param of FRACTIONAL_INTEGERS) {
      it(`refuses a fraction in the whole-number parameter ${param} with 400 naming it`, async () => {
        const result = await search(api, { [param]: '2.5' });
        expect(result.status).toBe(400);
        const { error } = errorEnvelopeSchema.parse(result.body);
        expect(error).toMatchObject({ code: 'invalid_parameter', param });
      });
    }

    it('answers every edge of every number parameter with 200 and the right rows, or 400 naming it', async () => {
      const numbers = searchParamSpecs().filter((spec) => spec.kind === 'number');
      expect(numbers.map((spec) => spec.name)).toEqual(expect.arrayContaining([...Object.keys(NUMERIC_BOUNDS), 'ending_within', 'limit']));
      let answered = 0;
      for (const spec of numbers) {
        for (const value of edgesOf(spec)) {
          const params: Params = spec.name === 'ending_within' ? { [spec.name]: value } : { status: 'all', [spec.name]: value };
          const label = new URLSearchParams(params).toString();
          const result = await search(api, params);
          if (!searchQuerySchema.safeParse(params).success) {
            expect(result.status, label).toBe(400);
            expect(errorEnvelopeSchema.parse(result.body).error, label).toMatchObject({ code: 'invalid_parameter', param: spec.name });
            continue;
          }
          expect(result.status, `${label}: ${JSON.stringify(result.body)}`).toBe(200);
          if (spec.name === 'limit') continue;
          answered += 1;
          expect((await rowsOf(params)).map(identity).sort(), label).toEqual(expected(params));
        }
      }
      expect(answered).toBeGreaterThan(60);
    });
  });
}
