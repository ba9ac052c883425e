import { errorEnvelopeSchema, listEnvelopeSchema, searchQuerySchema } from '@domain-index/contract';
import { testEngines } from '@domain-index/db/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureClock } from './support/fixture-index';
import { identity, isOrdered, matches, type Params } from './support/oracle';
import { search, walk } from './support/search-client';
import { startFixtureApi } from './support/fixture-api';
import type { RunningApi } from '@domain-index/api/test/support/start-api';
import type { Domain } from '@domain-index/contract';
import { searchConditions } from '@domain-index/listings/filters';
import { resolveOrdering } from '@domain-index/api/search/ordering';
import { pageQuery, pageRows } from '@domain-index/api/search/page-query';
import type { PageStrategy } from '@domain-index/api/search/page-strategy';

const SORTS = ['domain_name', 'length', 'current_bid', 'auction_end_time', 'bid_count', 'buy_now_price', 'index_score'] as const;

/** Random but valid search parameters: a status, an ordering, a page size and a few filters. */
const validParams: fc.Arbitrary<Params> = fc
  .record(
    {
      status: fc.constantFrom('all', 'auction', 'dropping', 'available'),
      sort: fc.constantFrom(...SORTS),
      order: fc.constantFrom('asc', 'desc'),
      limit: fc.integer({ min: 1, max: 60 }).map(String),
      search: fc.constantFrom('co', 'an', 'er', 'in', 'on', 'ar', 'e.c', 'x'.repeat(2)),
      tld: fc.constantFrom('com', 'net', 'co.uk', 'io'),
      min_price: fc.integer({ min: 0, max: 400 }).map(String),
      max_length: fc.integer({ min: 3, max: 14 }).map(String),
      no_hyphens: fc.constantFrom('true', 'false'),
      min_score: fc.integer({ min: 0, max: 60 }).map(String),
      min_dr: fc.integer({ min: 0, max: 40 }).map(String),
    },
    { requiredKeys: ['limit'] },
  )
  .map((params) => params as Params);

/** Random query strings: known and unknown names, repeated names, any text as values. */
const anyQuery = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom('search', 'status', 'tld', 'source', 'min_price', 'max_price', 'min_length', 'max_length', 'no_hyphens', 'min_score', 'min_dr', 'max_tf', 'min_backlinks', 'min_word_count', 'min_extensions', 'ending_within', 'sort', 'order', 'limit', 'cursor'),
      fc.string({ maxLength: 12 }),
    ),
    fc.oneof(fc.string({ maxLength: 40 }), fc.string({ maxLength: 20, unit: 'grapheme' }), fc.integer().map(String), fc.double().map(String)),
  ),
  { maxLength: 6 },
);

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`search properties on ${engine}`, () => {
    let api: RunningApi;
    let retrievable: Domain[];
    beforeAll(async () => {
      ({ api, retrievable } = await startFixtureApi(engine));
    });
    afterAll(async () => {
      await api.close();
    });

    it('the pages of any query, joined, are its full ordered result, each row once', async () => {
      await fc.assert(
        fc.asyncProperty(validParams, async (params) => {
          const { limit: _limit, ...filters } = params;
          const { rows, pages } = await walk(api, params);
          const whole = await search(api, { ...filters, limit: '200' });
          expect(rows.map(identity)).toEqual(whole.page!.data.map(identity));
          expect(new Set(rows.map(identity)).size).toBe(rows.length);
          expect(rows.map(identity).sort()).toEqual(retrievable.filter((d) => matches(d, filters)).map(identity).sort());
          expect(isOrdered(rows, filters)).toBe(true);
          for (const page of pages) expect(page.total.value).toBe(rows.length);
        }),
        { numRuns: 40 },
      );
    });

    it('finds the same pages by walking the sort order, by walking for ids first and by collecting the matches', async () => {
      // The API picks one way per query (page-strategy.ts); the fixture is small, so all three
      // are run here directly, on every combination of status,
      // ordering and term, with pages small enough that most results span several pages.
      type After = { key: number | null; name: string; id: number };
      const database = api.test.database;
      const now = fixtureClock.now();
      let morePagesThanOne = 0;
      for (const status of ['all', 'auction', 'available'] as const) {
        for (const sort of SORTS) {
          for (const order of ['asc', 'desc'] as const) {
            for (const search of ['co', 'an', 'er', 'e.c', 'an .c', 'ne']) {
              const q = searchQuerySchema.parse({ status, sort, order, search, limit: '10' });
              const ordering = resolveOrdering(q);
              const where = searchConditions(q, now);
              const page = async (strategy: PageStrategy, after?: After) =>
                (await pageRows(database, pageQuery(database, where, ordering, after, q.limit, now, strategy))).map((row) => ({
                  id: row.id,
                  name: row.domain.domain_name,
                  key: row.sortKey !== null && Number.isFinite(row.sortKey) ? row.sortKey : null,
                }));
              const walked = await page('walk');
              expect(await page('ids-first'), JSON.stringify(q)).toEqual(walked);
              expect(await page('collect'), JSON.stringify(q)).toEqual(walked);
              // and from a cursor in the middle of that page
              const middle = walked[Math.floor(walked.length / 2)];
              if (middle !== undefined) {
                const next = await page('walk', middle);
                expect(await page('ids-first', middle), JSON.stringify(q)).toEqual(next);
                expect(await page('collect', middle), JSON.stringify(q)).toEqual(next);
              }
              if (walked.length > q.limit) morePagesThanOne += 1;
            }
          }
        }
      }
      // the comparison means something only where a page could not hold every match
      expect(morePagesThanOne).toBeGreaterThan(80);
    });

    it('any query string gets 200 or a 4xx error envelope, never a 5xx', async () => {
      await fc.assert(
        fc.asyncProperty(anyQuery, async (pairs) => {
          const query = pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
          const response = await api.get(`/api/v1/domains?${query}`);
          const body: unknown = await response.json();
          if (response.status === 200) {
            expect(listEnvelopeSchema.safeParse(body).success).toBe(true);
          } else {
            expect(response.status).toBe(400);
            expect(errorEnvelopeSchema.safeParse(body).success).toBe(true);
          }
        }),
        { numRuns: 300 },
      );
    });
  });
}
