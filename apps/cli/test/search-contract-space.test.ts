import { errorEnvelopeSchema, searchQuerySchema, type Domain } from '@domain-index/contract';
import { testEngines } from '@domain-index/db/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchQueries, type ValuePools } from '@domain-index/test-support/contract-values';
import { identity, isOrdered, matches, NUMERIC_BOUNDS, type Params } from './support/oracle';
import { search } from './support/search-client';
import { startFixtureApi } from './support/fixture-api';
import type { RunningApi } from '@domain-index/api/test/support/start-api';

/**
 * Every value the contract accepts, sent to the real API: generators read the parameters from
 * the contract's zod schema (contract-values.ts), so a parameter added later is drawn too.
 * PROPERTY_SEED repeats a run; PROPERTY_RUNS changes its size (at least 2,000 in CI).
 */
const SEED = process.env.PROPERTY_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.PROPERTY_SEED);
const REQUESTED_RUNS = process.env.PROPERTY_RUNS === undefined ? 2_000 : Number(process.env.PROPERTY_RUNS);
if (!Number.isInteger(REQUESTED_RUNS) || REQUESTED_RUNS < 1) throw new Error('PROPERTY_RUNS must be a whole number above 0');
// CI always draws at least the 2,000 cases issue 15 asks for; a local run may draw fewer.
const RUNS = process.env.CI === 'true' ? Math.max(2_000, REQUESTED_RUNS) : REQUESTED_RUNS;

/** The fixture's values a generator should land on and near. */
function poolsOf(rows: readonly Domain[]): ValuePools {
  const numbersOf = (param: string) => {
    const field = NUMERIC_BOUNDS[param]?.[0];
    if (field === undefined) return [];
    return [...new Set(rows.map(field).filter((value): value is number => value !== null))];
  };
  const anyNumber = [...new Set(Object.keys(NUMERIC_BOUNDS).flatMap(numbersOf))];
  const pieces = rows.flatMap((d) => [d.domain_name.slice(0, 2), d.domain_name.slice(1, 4), d.domain_name.slice(-5)]);
  const texts = [...new Set([...rows.flatMap((d) => [d.tld, d.source]), ...pieces, 'co an', 'CO', ' e.c ', 'all'])];
  return { numbersOf, anyNumber, texts };
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`every value the contract accepts, on ${engine}`, () => {
    let api: RunningApi;
    let retrievable: Domain[];
    beforeAll(async () => {
      ({ api, retrievable } = await startFixtureApi(engine));
    });
    afterAll(async () => {
      await api.close();
    });

    it(`answers 200 with exactly the rows every bound allows, or 400 naming a refused parameter (${RUNS} queries)`, async () => {
      console.info(`search contract space on ${engine}: seed ${SEED}, ${RUNS} runs; PROPERTY_SEED=${SEED} repeats them`);
      // Cursors are opaque tokens issued by the API; search-properties.test.ts walks them.
      const queries = searchQueries(poolsOf(retrievable), { maxParams: 5, exclude: ['cursor'] });
      let answered = 0;
      let refused = 0;
      const property = fc.asyncProperty(queries, async (params: Params) => {
        const parsed = searchQuerySchema.safeParse(params);
        const result = await search(api, params);
        if (!parsed.success) {
          refused += 1;
          expect(result.status).toBe(400);
          const { error } = errorEnvelopeSchema.parse(result.body);
          expect(error.code).toBe('invalid_parameter');
          expect(parsed.error.issues.map((issue) => String(issue.path[0]))).toContain(error.param);
          return;
        }
        answered += 1;
        expect(result.status, JSON.stringify(result.body)).toBe(200);
        const page = result.page!;
        const wanted = retrievable.filter((d) => matches(d, params));
        const allowed = new Set(wanted.map(identity));
        expect(page.total).toEqual({ value: wanted.length, accuracy: 'exact' });
        expect(page.pagination.page_size).toBe(parsed.data.limit);
        expect(page.data.length).toBe(Math.min(wanted.length, parsed.data.limit));
        for (const row of page.data) expect(allowed.has(identity(row)), identity(row)).toBe(true);
        expect(isOrdered(page.data, params)).toBe(true);
      });
      try {
        await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: true });
      } catch (error) {
        throw new Error(`search contract space on ${engine} failed with seed ${SEED} (PROPERTY_SEED=${SEED} repeats it)\n${String(error)}`);
      }
      // Both kinds of answer were really exercised, most queries being ones the contract accepts.
      expect(answered).toBeGreaterThan(RUNS / 2);
      expect(refused).toBeGreaterThan(RUNS / 50);
    }, 600_000);
  });
}
