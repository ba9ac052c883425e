import { searchQuerySchema } from '@domain-index/contract';
import { sql, type SQL } from '@domain-index/db';
import { plannedConditions, searchConditions } from '@domain-index/listings/filters';
import { createTestDatabase, postgresTestEngine, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search } from './support/search-client';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';
import { plannedCount } from '@domain-index/api/search/count';
import { refreshStatistics } from '@domain-index/worker/indexing/refresh-statistics';

/** Enough rows that no count of them finishes within 1 ms, on any machine. */
const ROWS = 100_000;

// The budget is a PostgreSQL statement timeout; PGlite always counts exactly (see count.ts).
const postgres = postgresTestEngine();

/**
 * A database of the rows `rows` selects (the columns below, in order; every row of the source
 * `alpha`), with the statistics the worker refreshes after every batch, and an API whose counts
 * never fit their budget, so that every total is the planner's.
 */
async function plannedTotalsOver(rows: SQL): Promise<{ test: TestDatabase; api: RunningApi }> {
  const test = await createTestDatabase('postgres');
  await test.database.db.execute(sql`
    insert into listings (domain_name, tld, status, source, length, has_hyphens, has_numbers, word_count, index_score, current_bid, auction_end_time, updated_at)
    ${rows}`);
  await test.database.db.execute(sql`insert into source_batches (source, applied_at) values ('alpha', now())`);
  await refreshStatistics(test.database);
  return { test, api: await startApi('postgres', { test, overrides: { countBudgetMs: 1 } }) };
}

/**
 * `rows` fixed-price names (plannedTotalsOver's columns), `name<n>.com`, of which 1 in `every`
 * per term holds one of `terms` after its number, the term picked by a hash of the number.
 */
function namesWithTerms(rows: number, terms: string[], every: number): SQL {
  return sql`
    select 'name' || g || coalesce((${sql.param(terms)}::text[])[1 + h % ${every}], '') || '.com', 'com', 'available',
           'alpha', 12, false, true, 1, g % 100, 100 + g % 900, null::timestamptz, now()
    from (select g, ('x' || substr(md5(g::text), 1, 8))::bit(32)::int & 2147483647 as h
          from generate_series(1, ${rows}) as g) as numbered`;
}

/**
 * The terms whose planned total, asked as the API asks it when the count misses its budget
 * (`status=all`), is 25 % or more off their true count; each term must be in more than 10 names.
 */
async function plannedMisses(test: TestDatabase, terms: string[]): Promise<{ term: string; planned: number; truth: number }[]> {
  const misses: { term: string; planned: number; truth: number }[] = [];
  for (const term of terms) {
    const [truth] = await test.database.rows<{ n: number }>(sql`select count(*)::int as n from listings where domain_name like ${`%${term}%`}`);
    expect(truth!.n).toBeGreaterThan(10);
    const query = searchQuerySchema.parse({ status: 'all', search: term });
    const now = new Date();
    const planned = await plannedCount(test.database, plannedConditions(query, now) ?? searchConditions(query, now));
    if (Math.abs(planned / truth!.n - 1) >= 0.25) misses.push({ term, planned, truth: truth!.n });
  }
  return misses;
}

describe.skipIf(postgres.skip)('total within the count budget on postgres', () => {
  let test: TestDatabase;
  let tightBudget: RunningApi;
  let ampleBudget: RunningApi;

  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    // Rows written straight in: the import path is not under test here, only the count.
    await test.database.db.execute(sql`
      insert into listings (domain_name, tld, status, source, length, has_hyphens, has_numbers, word_count, index_score, updated_at)
      select 'name' || g || '.com', 'com', 'available', 'alpha', length('name' || g), false, true, 1, 50, now()
      from generate_series(1, ${ROWS}) as g`);
    await test.database.db.execute(sql`insert into source_batches (source, applied_at) values ('alpha', now())`);
    await test.database.db.execute(sql`analyze listings`);
    tightBudget = await startApi('postgres', { test, overrides: { countBudgetMs: 1 } });
    ampleBudget = await startApi('postgres', { test, overrides: { countBudgetMs: 60_000 } });
  }, 120_000);
  afterAll(async () => {
    await tightBudget.close();
    await ampleBudget.close();
    await test.dispose();
  });

  it('answers the planner estimate as planned when the count overruns the budget, with the page intact', async () => {
    const result = await search(tightBudget, { status: 'all', limit: '50' });
    expect(result.status).toBe(200);
    expect(result.page!.total.accuracy).toBe('planned');
    // Fresh statistics: the estimate is close to the truth, and never a made-up number.
    expect(result.page!.total.value).toBeGreaterThan(ROWS * 0.8);
    expect(result.page!.total.value).toBeLessThan(ROWS * 1.2);
    expect(result.page!.data).toHaveLength(50);
    expect(result.page!.pagination.has_more).toBe(true);
  });

  it('answers the exact count when it finishes within the budget', async () => {
    const result = await search(ampleBudget, { status: 'all', limit: '50' });
    expect(result.page!.total).toEqual({ value: ROWS, accuracy: 'exact' });
  });
});

describe.skipIf(postgres.skip)('planned totals over a mix of fixed-price, running and ended listings on postgres', () => {
  let test: TestDatabase;
  let tightBudget: RunningApi;
  // Fixed-price rows have no end time; auctions end in the future or ended an hour ago. Every
  // search keeps the first two kinds: a third of the rows without an end time, half running.
  const FIXED_PRICE = 30_000;
  const RUNNING = 50_000;
  const ENDED = 20_000;

  beforeAll(async () => {
    ({ test, api: tightBudget } = await plannedTotalsOver(sql`
      select 'name' || g || '.com', 'com',
             case when g <= ${FIXED_PRICE} then 'available' else 'auction' end,
             'alpha', length('name' || g), false, true, 1, g % 100,
             -- fixed prices of 100 to 999, bids of 0 to 119
             case when g <= ${FIXED_PRICE} then 100 + g % 900 else g % 120 end,
             case when g <= ${FIXED_PRICE} then null
                  when g <= ${FIXED_PRICE + RUNNING} then now() + make_interval(mins => 60 + g % 5000)
                  else now() - interval '1 hour' end,
             now()
      from generate_series(1, ${FIXED_PRICE + RUNNING + ENDED}) as g`));
  }, 120_000);
  afterAll(async () => {
    await tightBudget?.close();
    await test?.dispose();
  });

  it('estimates the not-ended rule from its own statistics: within 5 % of the true count, not a sixth low', async () => {
    // Estimated as two independent conditions, the rule kept 1/3 + 1/2 - 1/6 = 2/3 of the rows
    // where 5/6 remain: 67,000 planned against 80,000.
    const all = await search(tightBudget, { status: 'all', limit: '10' });
    expect(all.page!.total.accuracy).toBe('planned');
    expect(Math.abs(all.page!.total.value / (FIXED_PRICE + RUNNING) - 1)).toBeLessThan(0.05);
  });

  it('estimates a price range from the prices of the status searched: within 25 %, not two thirds over', async () => {
    // Bids and fixed prices differ: a sixth of the auctions bid 100 or more, every fixed price
    // is. By independence, P(auction) x P(price in range) over every status planned 14,000
    // against 8,333.
    const [truth] = await test.database.rows<{ n: number }>(
      sql`select count(*)::int as n from listings where status = 'auction' and auction_end_time > now() and current_bid between 100 and 500`,
    );
    const ranged = await search(tightBudget, { min_price: '100', max_price: '500', limit: '10' });
    expect(ranged.page!.total.accuracy).toBe('planned');
    expect(Math.abs(ranged.page!.total.value / truth!.n - 1)).toBeLessThan(0.25);
  });
});

describe.skipIf(postgres.skip)('the planned total of a window of auctions when the hours ahead hold dropping names, on postgres', () => {
  let test: TestDatabase;
  let tightBudget: RunningApi;
  // Auctions end over the next 10 days, so 1 in 40 within the next 6 hours; every dropping name
  // drops within them (drops come at set hours); fixed-price rows have no end time.
  const AUCTIONS = 40_000;
  const DROPPING = 30_000;
  const FIXED_PRICE = 30_000;

  beforeAll(async () => {
    ({ test, api: tightBudget } = await plannedTotalsOver(sql`
      select 'name' || g || '.com', 'com',
             case when g <= ${AUCTIONS} then 'auction' when g <= ${AUCTIONS + DROPPING} then 'dropping' else 'available' end,
             'alpha', length('name' || g), false, true, 1, g % 100, 10 + g % 90,
             case when g <= ${AUCTIONS} then now() + make_interval(mins => 1 + g % 14400)
                  when g <= ${AUCTIONS + DROPPING} then now() + make_interval(mins => 1 + g % 350) end,
             now()
      from generate_series(1, ${AUCTIONS + DROPPING + FIXED_PRICE}) as g`));
  }, 120_000);
  afterAll(async () => {
    await tightBudget?.close();
    await test?.dispose();
  });

  it('estimates ending_within from the auctions\' own end times: within 25 %, not twelve times over', async () => {
    // Over every status the window holds 31 % of the rows, and P(auction) = 0.4: 12,400 planned
    // by independence against the 1,000 auctions that end in it.
    const [truth] = await test.database.rows<{ n: number }>(
      sql`select count(*)::int as n from listings where status = 'auction' and auction_end_time > now() and auction_end_time <= now() + interval '6 hours'`,
    );
    expect(truth!.n).toBeGreaterThan(900);
    const window = await search(tightBudget, { ending_within: '6', limit: '10' });
    expect(window.page!.total.accuracy).toBe('planned');
    expect(Math.abs(window.page!.total.value / truth!.n - 1)).toBeLessThan(0.25);
    // the page itself is the auctions of the window
    expect(window.page!.data.every((domain) => domain.status === 'auction')).toBe(true);
    expect(window.page!.data).toHaveLength(10);
  });
});

describe.skipIf(postgres.skip)('the planned total of a search term, on postgres', () => {
  let test: TestDatabase;
  let tightBudget: RunningApi;
  // Twenty terms, each in 1 name of 50, spread over the names by a hash of their number. The
  // table is smaller than ANALYZE's sample, so every refresh gives the same statistics: a term's
  // planned total is the share of the names' histogram that holds it, 1,000 names of the column
  // or 10,000 of migration 0026's expression.
  const ROWS = 100_000;
  const TERMS = ['shop', 'bike', 'cafe', 'golf', 'wolf', 'jury', 'kiwi', 'lux', 'fox', 'sky', 'bold', 'crypt', 'pix', 'quiz', 'zulu', 'joy', 'vibe', 'yoga', 'wiz', 'hub', 'x-1'];

  beforeAll(async () => {
    ({ test, api: tightBudget } = await plannedTotalsOver(namesWithTerms(ROWS, TERMS, 50)));
  }, 120_000);
  afterAll(async () => {
    await tightBudget?.close();
    await test?.dispose();
  });

  it('estimates every term within 25 % of its true count, from a histogram of 10,000 names or the trigrams', async () => {
    // From the column's 1,000 names, a term in 2 % of them is about 20 entries of the histogram,
    // whose spread is about a fifth: 8 of these 20 terms came out more than 25 % off (jury
    // +70 %). From 10,000 the worst was 15 % (hub). Three letters (`lux`) are planned from the
    // names' trigrams (0028); `x-1`, which is no trigram, from the names' histogram.
    const misses: { term: string; planned: number; truth: number }[] = [];
    for (const term of TERMS) {
      const [truth] = await test.database.rows<{ n: number }>(sql`select count(*)::int as n from listings where domain_name like ${`%${term}%`}`);
      expect(truth!.n).toBeGreaterThan(1_500);
      const result = await search(tightBudget, { status: 'all', search: term, limit: '10' });
      expect(result.page!.total.accuracy).toBe('planned');
      const planned = result.page!.total.value;
      if (Math.abs(planned / truth!.n - 1) >= 0.25) misses.push({ term, planned, truth: truth!.n });
      // the page is the term's names
      expect(result.page!.data.map((domain) => domain.domain_name).every((name) => name.includes(term))).toBe(true);
    }
    expect(misses).toEqual([]);
  });
});

describe.skipIf(postgres.skip)('the planned total of a two-character term, on postgres', () => {
  let test: TestDatabase;
  let tightBudget: RunningApi;
  // Two-character terms each in about 20 names of 100,000, placed by a hash of the name's number.
  const ROWS = 100_000;
  const TERMS = ['qz', 'xj', 'vq', 'jz', 'qk'];

  beforeAll(async () => {
    ({ test, api: tightBudget } = await plannedTotalsOver(namesWithTerms(ROWS, TERMS, 5000)));
    // The bigram index's statistics are built only by an ANALYZE of the whole table, as
    // PostgreSQL's autovacuum runs it; the worker's refresh names columns.
    await test.database.db.execute(sql`analyze listings`);
  }, 120_000);
  afterAll(async () => {
    await tightBudget?.close();
    await test?.dispose();
  });

  it('plans every rare two-character term within 25 % of its true count, from every bigram listed', async () => {
    // A count this small usually fits even a budget of 1 ms, so the planned figure is asked as
    // the API asks it when the count misses. At the index's default target of 100, its list of
    // the most common bigrams kept only those in more than about 90 of these names, and a term
    // not listed was planned at PostgreSQL's default share, 0.5 % (500 here, for 18 to 26).
    expect(await plannedMisses(test, TERMS)).toEqual([]);
  });

  it('answers a rare two-character term with its names, within 25 % however it was counted', async () => {
    const result = await search(tightBudget, { status: 'all', search: 'qz', limit: '50' });
    const [truth] = await test.database.rows<{ n: number }>(sql`select count(*)::int as n from listings where domain_name like '%qz%'`);
    expect(result.page!.data.map((domain) => domain.domain_name).every((name) => name.includes('qz'))).toBe(true);
    expect(result.page!.data).toHaveLength(truth!.n);
    expect(Math.abs(result.page!.total.value / truth!.n - 1)).toBeLessThan(0.25);
  });
});

describe.skipIf(postgres.skip)('the planned total of a rare three-character term, on postgres', () => {
  let test: TestDatabase;
  // Three-character terms each in about 20 names of 100,000 (1 in 5,000), placed by a hash of the
  // name's number: rarer than 1 name in 10,000 of any sample's histogram can tell apart.
  const ROWS = 100_000;
  const TERMS = ['zyg', 'qxv', 'jvk', 'wq7', 'x9f'];

  beforeAll(async () => {
    ({ test } = await plannedTotalsOver(namesWithTerms(ROWS, TERMS, 5000)));
  }, 120_000);
  afterAll(async () => {
    await test?.dispose();
  });

  it('plans every rare three-character term within 25 % of its true count, from the names\' trigrams', async () => {
    // From the histogram of 10,000 names (0026) such a term is 0 to 5 of its entries, and
    // PostgreSQL plans no pattern below 1 row in 10,000: all 5 came out more than 25 % off (10 to
    // 40 planned for 18 to 26). The trigrams' list (0028) is built by the refresh from a sample
    // of 1,000,200 rows, the whole table here.
    expect(await plannedMisses(test, TERMS)).toEqual([]);
  });
});
