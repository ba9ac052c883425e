import type { Domain } from '@domain-index/contract';
import type { TestEngine } from '@domain-index/db/testing';
import { buildFixtureIndex, fixtureClock, FIXTURE_SOURCES } from './fixture-index';
import { search } from './search-client';
import { startApi, type RunningApi } from './start-api';

/**
 * An API over the fixture index at the fixture's "now", and every retrievable row of it, read
 * from one page of `status=all` (the fixture is small enough for one page to hold them all).
 */
export async function startFixtureApi(engine: TestEngine): Promise<{ api: RunningApi; retrievable: Domain[] }> {
  const api = await startApi(engine, { clock: fixtureClock, sources: FIXTURE_SOURCES });
  await buildFixtureIndex(api.test.database);
  const all = await search(api, { status: 'all', limit: '200' });
  if (all.page === undefined || all.page.pagination.has_more) throw new Error('the fixture index no longer fits one page of 200');
  return { api, retrievable: all.page.data };
}
