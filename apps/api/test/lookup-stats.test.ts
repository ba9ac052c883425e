import { lookupEnvelopeSchema, statsEnvelopeSchema, type Domain } from '@domain-index/contract';
import { testEngines } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBatch } from '../src/indexing/import-batch';
import type { Clock } from '../src/clock';
import { auctionRecord, jsonlFeed } from './support/feeds';
import { fixtureRetrievable } from './support/fixture-api';
import { buildFixtureIndex, EVERY_FIELD_RECORD, fixtureFeeds, FIXTURE_NOW, FIXTURE_SOURCES } from './support/fixture-index';
import { retrievableListings } from './support/oracle';
import { startApi, type RunningApi } from './support/start-api';

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`lookup and stats on ${engine}`, () => {
    let api: RunningApi;
    let now = FIXTURE_NOW.getTime();
    // Moves 1 ms on every reading, so two measurements can never share a timestamp.
    const clock: Clock = { now: () => new Date((now += 1)) };
    let retrievable: Domain[];
    beforeAll(async () => {
      api = await startApi(engine, { clock, sources: FIXTURE_SOURCES });
      await buildFixtureIndex(api.test.database);
      retrievable = await fixtureRetrievable(api);
    });
    afterAll(async () => {
      await api.close();
    });
    const lookup = async (segment: string, query = '') => {
      const response = await api.get(`/api/v1/domains/${segment}${query}`);
      const body: unknown = await response.json();
      return { status: response.status, body };
    };

    describe('GET /api/v1/domains/{domain}', () => {
      it('returns the listing in the lookup envelope', async () => {
        const target = retrievable.find((d) => d.source === 'delta')!;
        const result = await lookup(target.domain_name);
        expect(result.status).toBe(200);
        const envelope = lookupEnvelopeSchema.parse(result.body);
        expect(envelope.object).toBe('domain');
        expect(envelope.data).toEqual(target);
        expect(envelope.meta.api_version).toBe('v1');
        expect(envelope.meta.index_score).toMatch(/not a price/);
      });
      it('answers every field with exactly the value the feed gave, in search and lookup alike', async () => {
        const { domain_name, ...given } = EVERY_FIELD_RECORD;
        const found = lookupEnvelopeSchema.parse((await lookup(domain_name)).body).data;
        expect(found).toMatchObject({ ...given, domain_name, tld: 'co.uk', source: 'delta', length: 11, has_hyphens: true, has_numbers: false });
        expect(found.last_checked_at).toBe(FIXTURE_NOW.toISOString());
        expect(found.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        expect(retrievable.find((d) => d.domain_name === domain_name)).toEqual(found);
      });
      it('chooses among marketplaces deterministically: not ended, then auction, available, dropping', async () => {
        // multi.com: gamma auction (ended), beta available, alpha dropping
        const result = await lookup('multi.com');
        expect(lookupEnvelopeSchema.parse(result.body).data).toMatchObject({ source: 'beta', status: 'available' });
      });
      it('only lowercases the name', async () => {
        expect(lookupEnvelopeSchema.parse((await lookup('MULTI.Com')).body).data.source).toBe('beta');
        // no trimming, no trailing-dot removal, no IDN conversion
        for (const segment of ['multi.com.', '%20multi.com', 'm%C3%BClti.com']) {
          expect((await lookup(segment)).body).toMatchObject({ error: { code: 'invalid_domain' } });
        }
      });
      it('answers 400 invalid_domain for what is not a domain name', async () => {
        for (const segment of ['exa_mple.com', '-bad.com', 'com', 'a..com', 'www.example.com', 'x'.repeat(64) + '.com', '%E0%A4%A']) {
          const result = await lookup(segment);
          expect(result.status, segment).toBe(400);
          expect(result.body).toMatchObject({ error: { code: 'invalid_domain' } });
          expect(result.body).not.toHaveProperty('error.param');
        }
      });
      it('answers 404 domain_not_found for a name not listed, or only listed as ended', async () => {
        for (const segment of ['never-listed-anywhere.com', 'ended-only.com', 'just-ended.org']) {
          const result = await lookup(segment);
          expect(result.status).toBe(404);
          expect(result.body).toEqual({
            error: { code: 'domain_not_found', message: `${segment} is not currently listed on any supported marketplace` },
          });
        }
      });
      it('accepts no query parameter', async () => {
        const result = await lookup('multi.com', '?limit=10');
        expect(result).toEqual({
          status: 400,
          body: { error: { code: 'unknown_parameter', message: 'limit is not a parameter of this endpoint', param: 'limit' } },
        });
        expect((await lookup('multi.com', '?token=abc')).body).toMatchObject({ error: { code: 'api_key_in_query', param: 'token' } });
      });
    });

    describe('GET /api/v1/stats', () => {
      it('reports total, live, retrievable and the breakdowns, as the feeds state them', async () => {
        const response = await api.get('/api/v1/stats');
        const stats = statsEnvelopeSchema.parse(await response.json());
        // every count stated from the feeds: all their rows, the not-ended ones, the not-ended auctions
        const feeds = fixtureFeeds();
        const everyRow = [...feeds.values()].flat();
        const notEnded = retrievableListings(feeds, FIXTURE_NOW);
        expect(stats.data.total).toBe(everyRow.length);
        expect(stats.data.retrievable).toBe(notEnded.length);
        expect(stats.data.live).toBe(notEnded.filter((listing) => listing.values.status === 'auction').length);
        expect(stats.data.live).toBeGreaterThan(0);
        expect(stats.data.total).toBeGreaterThan(stats.data.retrievable);
        expect(stats.data.retrievable).toBeGreaterThan(stats.data.live);
        expect(stats.data.by_status).toEqual(
          Object.fromEntries(['auction', 'dropping', 'available'].map((status) => [status, everyRow.filter((row) => row.status === status).length])),
        );
        expect(Object.keys(stats.data.by_status)).toEqual(['auction', 'dropping', 'available']);
        expect(stats.data.by_source).toEqual(Object.fromEntries([...feeds].map(([source, rows]) => [source, rows.length])));
        expect(Object.keys(stats.data.by_source)).toEqual(FIXTURE_SOURCES.map((source) => source.id));
        expect(stats.data.by_source.epsilon).toBe(0);
        expect(stats.data.as_of).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(stats.meta.counts).toMatch(/concurrently/);
      });
      it('serves one measurement for 5 minutes, to concurrent first callers too', async () => {
        const first = await Promise.all([1, 2, 3, 4, 5].map(() => api.get('/api/v1/stats').then((r) => r.json())));
        const asOf = first.map((body) => statsEnvelopeSchema.parse(body).data.as_of);
        expect(new Set(asOf).size).toBe(1);
        await importBatch({
          database: api.test.database,
          source: FIXTURE_SOURCES[4]!,
          input: jsonlFeed([auctionRecord('fresh-stats.com')]),
          clock,
        });
        const cached = statsEnvelopeSchema.parse(await (await api.get('/api/v1/stats')).json());
        expect(cached.data.as_of).toBe(asOf[0]);
        expect(cached.data.by_source.epsilon).toBe(0);
        now += 5 * 60 * 1000;
        const fresh = statsEnvelopeSchema.parse(await (await api.get('/api/v1/stats')).json());
        expect(fresh.data.as_of).not.toBe(asOf[0]);
        expect(fresh.data.by_source.epsilon).toBe(1);
      });
      it('accepts no query parameter', async () => {
        const response = await api.get('/api/v1/stats?fresh=true');
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ error: { code: 'unknown_parameter', param: 'fresh' } });
      });
    });
  });
}
