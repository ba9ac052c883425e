import { searchQuerySchema, SORT_FIELDS } from '@domain-index/contract';
import { postgresTestEngine, testEngines } from '@domain-index/db/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultRows, sql, type Database, type SQL } from '@domain-index/db';
import { searchConditions } from '@domain-index/listings/filters';
import { countStatement } from '@domain-index/api/search/count';
import { resolveOrdering } from '@domain-index/api/search/ordering';
import { pageConditions, pageQuery, pageRows } from '@domain-index/api/search/page-query';
import { PageStatements } from '@domain-index/api/search/page-statements';
import type { PageStrategy } from '@domain-index/api/search/page-strategy';
import { fixtureClock } from './support/fixture-index';
import { startFixtureApi } from './support/fixture-api';
import type { RunningApi } from '@domain-index/api/test/support/start-api';

const bound = (max: number) =>
  fc.oneof(
    fc.constant('0'),
    fc.integer({ min: 0, max }).map(String),
    fc.double({ min: 0, max, noNaN: true }).map((value) => value.toFixed(2)),
  );

/** A value for every parameter that shapes the statement. */
const PARAMETERS = {
  status: fc.constantFrom('all', 'auction', 'dropping', 'available'),
  sort: fc.constantFrom(...SORT_FIELDS),
  order: fc.constantFrom('asc', 'desc'),
  limit: fc.integer({ min: 10, max: 40 }).map(String),
  search: fc
    .array(fc.constantFrom('co', 'an', 'er', 'e.c', 'ne', 'shop', 'in'), {
      minLength: 1,
      maxLength: 3,
    })
    .map((terms) => terms.join(' ')),
  tld: fc.constantFrom('com', 'net', 'co.uk', 'io'),
  source: fc.constantFrom('godaddy', 'namecheap', 'dynadot'),
  min_price: bound(400),
  max_price: bound(5000),
  min_length: fc.integer({ min: 1, max: 8 }).map(String),
  max_length: fc.integer({ min: 6, max: 20 }).map(String),
  no_hyphens: fc.constantFrom('true', 'false'),
  no_numbers: fc.constantFrom('true', 'false'),
  min_score: bound(60),
  max_score: bound(100).map((value) => String(Math.max(60, Number(value)))),
  min_dr: bound(40),
  max_tf: bound(100),
  min_backlinks: fc.integer({ min: 0, max: 500 }).map(String),
  min_age: fc.integer({ min: 0, max: 20 }).map(String),
  min_word_count: fc.integer({ min: 0, max: 3 }).map(String),
  min_extensions: fc.integer({ min: 0, max: 5 }).map(String),
  ending_within: fc.integer({ min: 1, max: 720 }).map(String),
};

/**
 * Random filter sets over every parameter that shapes the statement: statuses, terms of two and
 * more characters, each bound (0 included, which is not applied), both orders of every sort. A
 * few parameters at a time, so that most sets match rows of the small fixture.
 */
const filterSets = fc
  .tuple(
    fc.record(PARAMETERS),
    fc.subarray(Object.keys(PARAMETERS) as (keyof typeof PARAMETERS)[], { maxLength: 5 }),
  )
  .map(([values, chosen]) => Object.fromEntries(chosen.map((name) => [name, values[name]])));

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`page statements cached by shape on ${engine}`, () => {
    let api: RunningApi;
    beforeAll(async () => {
      ({ api } = await startFixtureApi(engine));
    });
    afterAll(async () => {
      await api.close();
    });

    it('send, for any filter set, the statement and the rows the statement rendered on its own gives', async () => {
      const database = api.test.database;
      const now = fixtureClock.now();
      // One cache for every run: each filter set meets the templates of the sets before it.
      const statements = new PageStatements();
      let rowsCompared = 0;
      await fc.assert(
        fc.asyncProperty(
          filterSets,
          fc.constantFrom<PageStrategy>('walk', 'ids-first', 'collect'),
          fc.nat(),
          async (raw, strategy, pick) => {
            const parsed = searchQuerySchema.safeParse(raw);
            fc.pre(parsed.success);
            const q = parsed.data;
            const ordering = resolveOrdering(q);
            const rendered = (after?: { key: number | null; name: string; id: number }) =>
              pageQuery(
                database,
                pageConditions(q, now),
                ordering,
                after,
                q.limit,
                now,
                strategy,
              ).toSQL();
            const first = await pageRows(database, rendered());
            const cached = statements.statement(database, q, ordering, undefined, now, strategy);
            expect(cached, JSON.stringify(raw)).toEqual(rendered());
            expect(await pageRows(database, cached)).toEqual(first);
            rowsCompared += first.length;
            // and after a row of that page, as a cursor would continue
            const row = first[pick % Math.max(1, first.length)];
            if (row !== undefined) {
              const after = {
                key: row.sortKey !== null && Number.isFinite(row.sortKey) ? row.sortKey : null,
                name: row.domain.domain_name,
                id: row.id,
              };
              const cachedAfter = statements.statement(database, q, ordering, after, now, strategy);
              expect(cachedAfter, JSON.stringify(raw)).toEqual(rendered(after));
              expect(await pageRows(database, cachedAfter)).toEqual(
                await pageRows(database, rendered(after)),
              );
            }
          },
        ),
        { numRuns: 400 },
      );
      // the comparison means something only if the filter sets found rows
      expect(rowsCompared).toBeGreaterThan(500);
    });
  });
}

/**
 * The plan PostgreSQL makes for a statement where parallel workers cost nothing to start or to
 * feed, so that it plans them wherever it may: whether it planned any (a Gather node).
 */
async function plannedWithWorkers(database: Database, statement: SQL | { getSQL(): SQL }): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`set local parallel_setup_cost = 0`);
    await tx.execute(sql`set local parallel_tuple_cost = 0`);
    await tx.execute(sql`set local min_parallel_table_scan_size = 0`);
    await tx.execute(sql`set local min_parallel_index_scan_size = 0`);
    const plan = resultRows<{ 'QUERY PLAN': string }>(await tx.execute(sql`explain ${statement}`));
    return plan.some((line) => line['QUERY PLAN'].includes('Gather'));
  });
}

const postgres = postgresTestEngine();
describe.skipIf(postgres.skip)('statements of searches with terms on postgres', () => {
  let api: RunningApi;
  beforeAll(async () => {
    ({ api } = await startFixtureApi(postgres.engine));
  });
  afterAll(async () => {
    await api.close();
  });

  // Such statements end within milliseconds at any size, on a bitmap of few rows, before workers
  // repay their start (at 30M listings a two-character term's page 92 ms with them, 18 without).
  it('are planned without parallel workers, with the rows they would give with them', async () => {
    const database = api.test.database;
    const now = fixtureClock.now();
    // whether the planner, left to itself, used workers for each page and count
    const freePages: boolean[] = [];
    const freeCounts: boolean[] = [];
    for (const search of ['co', 'shop', 'an er']) {
      const q = searchQuerySchema.parse({ search, status: 'all' });
      const ordering = resolveOrdering(q);
      for (const strategy of ['walk', 'collect'] as const) {
        const free = pageQuery(database, searchConditions(q, now), ordering, undefined, q.limit, now, strategy);
        const sent = pageQuery(database, pageConditions(q, now), ordering, undefined, q.limit, now, strategy);
        freePages.push(await plannedWithWorkers(database, free));
        expect(await plannedWithWorkers(database, sent), `${search} ${strategy}`).toBe(false);
        expect(await pageRows(database, sent.toSQL())).toEqual(await pageRows(database, free.toSQL()));
      }
      freeCounts.push(await plannedWithWorkers(database, sql`select count(*) from listings where ${searchConditions(q, now)}`));
      expect(await plannedWithWorkers(database, countStatement(searchConditions(q, now))), search).toBe(false);
    }
    // the checks can fail: without the marker the planner gave these statements workers
    expect(freePages).toContain(true);
    expect(freeCounts).toContain(true);
  });
});
