import type { Domain } from '@domain-index/contract';
import type { TestEngine } from '@domain-index/db/testing';
import { buildFixtureIndex, fixtureClock, fixtureFeeds, FIXTURE_NOW, FIXTURE_SOURCES } from './fixture-index';
import { fedValues, identity, retrievableListings } from './oracle';
import { search } from './search-client';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

/**
 * Every retrievable row of the fixture as the API answers it (one page of `status=all`), after
 * checking it against the oracle's own statement of that set: exactly the not-ended listings of
 * the feeds, each with the values its feed gave. A filter or a count checked against these rows
 * therefore rests on the feeds, not on the API's idea of what is retrievable.
 */
export async function fixtureRetrievable(api: RunningApi): Promise<Domain[]> {
  const all = await search(api, { status: 'all', limit: '200' });
  if (all.page === undefined || all.page.pagination.has_more) throw new Error('the fixture index no longer fits one page of 200');
  const stated = retrievableListings(fixtureFeeds(), FIXTURE_NOW);
  const answered = all.page.data;
  const missing = stated.map((listing) => listing.identity).filter((id) => !answered.some((d) => identity(d) === id));
  const extra = answered.map(identity).filter((id) => !stated.some((listing) => listing.identity === id));
  if (missing.length > 0 || extra.length > 0 || answered.length !== stated.length) {
    throw new Error(`status=all is not the retrievable set of the feeds: missing ${missing.join(', ')}; not retrievable ${extra.join(', ')}`);
  }
  for (const listing of stated) {
    const row = answered.find((d) => identity(d) === listing.identity)!;
    const values = fedValues(row);
    const differing = Object.keys(values).filter((field) => values[field as keyof typeof values] !== listing.values[field as keyof typeof values]);
    if (differing.length > 0) throw new Error(`${listing.identity} is answered with other values than its feed gave: ${differing.join(', ')}`);
  }
  return answered;
}

/** An API over the fixture index at the fixture's "now", and every retrievable row of it. */
export async function startFixtureApi(engine: TestEngine): Promise<{ api: RunningApi; retrievable: Domain[] }> {
  const api = await startApi(engine, { clock: fixtureClock, sources: FIXTURE_SOURCES });
  await buildFixtureIndex(api.test.database);
  return { api, retrievable: await fixtureRetrievable(api) };
}
