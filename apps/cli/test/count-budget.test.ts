import { sql } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search } from './support/search-client';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

/** Enough rows that no count of them finishes within 1 ms, on any machine. */
const ROWS = 100_000;

// The budget is a PostgreSQL statement timeout; PGlite always counts exactly (see count.ts).
const postgres = testEngines().find((e) => e.engine === 'postgres')!;

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
