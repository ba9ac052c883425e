import { lookupEnvelopeSchema, statsEnvelopeSchema, type Domain } from '@domain-index/contract';
import { testEngines } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import type { Clock } from '@domain-index/runtime/clock';
import { auctionRecord, jsonlFeed } from '@domain-index/test-support/feeds';
import { fixtureRetrievable } from './support/fixture-api';
import { buildFixtureIndex, EVERY_FIELD_RECORD, fixtureFeeds, FIXTURE_NOW, FIXTURE_SOURCES } from './support/fixture-index';
import { retrievableListings } from './support/oracle';
import { search } from './support/search-client';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

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

  describe.skipIf(skip)(`the lookup's choice among marketplaces on ${engine}`, () => {
    // decisions.md "Lookup": not ended first; then auction, available, dropping; then the most
    // recent last_checked_at (the time the listing's source was last read).
    const LOOKUP_AT = Date.parse('2026-11-21T12:00:00.000Z');
    const endsIn = (hours: number) => new Date(LOOKUP_AT + hours * 3_600_000).toISOString();
    const auction = (domain: string, hours: number, bid: number) => ({ domain_name: domain, status: 'auction', auction_end_time: endsIn(hours), current_bid: bid, bid_count: 1 });
    const available = (domain: string, price: number) => ({ domain_name: domain, status: 'available', buy_now_price: price, current_bid: price });
    const dropping = (domain: string, hours: number) => ({ domain_name: domain, status: 'dropping', auction_end_time: endsIn(hours), current_bid: 5 });
    /**
     * Each source is read once, at its own time: the order of reading is not the order of
     * recency, nor the alphabetical order of the sources, so neither can stand in for it.
     */
    const READ_AT: [source: string, minutesBefore: number][] = [
      ['epsilon', 30],
      ['gamma', 50],
      ['delta', 10],
      ['alpha', 40],
      ['beta', 20],
    ];
    const FEEDS: Record<string, Record<string, unknown>[]> = {
      alpha: [
        auction('ended-auction-or-dropping.com', -1, 900),
        auction('auction-or-dropping.com', 48, 10),
        auction('all-three.com', 12, 20),
        auction('newest-auction.com', 2, 500),
        available('newest-available.com', 900),
      ],
      beta: [
        auction('ended-but-newest.com', -3, 800),
        dropping('available-or-dropping.com', 30),
        available('all-three.com', 2000),
        available('newest-available.com', 100),
        dropping('newest-dropping.com', 5),
      ],
      gamma: [
        dropping('ended-auction-or-dropping.com', 20),
        auction('ended-but-newest.com', 72, 30),
        auction('auction-or-available.com', 24, 15),
        available('available-or-dropping.com', 400),
        auction('newest-auction.com', 200, 700),
        dropping('newest-dropping.com', 40),
      ],
      delta: [
        available('auction-or-available.com', 50),
        dropping('auction-or-dropping.com', 10),
        dropping('all-three.com', 3),
        available('newest-available.com', 5000),
      ],
      epsilon: [auction('newest-auction.com', 1, 3)],
    };
    /** Each name, the sources whose listing of it is retrievable, and the one the lookup must answer. */
    const CASES: [domain: string, retrievableOn: string[], chosen: string][] = [
      // not ended first: an ended auction loses even to a dropping listing, even when newer
      ['ended-auction-or-dropping.com', ['gamma'], 'gamma'],
      ['ended-but-newest.com', ['gamma'], 'gamma'],
      // then the status, whatever the recency: the older listing wins each of these
      ['auction-or-available.com', ['delta', 'gamma'], 'gamma'],
      ['auction-or-dropping.com', ['alpha', 'delta'], 'alpha'],
      ['available-or-dropping.com', ['beta', 'gamma'], 'gamma'],
      ['all-three.com', ['alpha', 'beta', 'delta'], 'alpha'],
      // then the most recent last_checked_at within one status
      ['newest-auction.com', ['alpha', 'epsilon', 'gamma'], 'epsilon'],
      ['newest-available.com', ['alpha', 'beta', 'delta'], 'delta'],
      ['newest-dropping.com', ['beta', 'gamma'], 'beta'],
    ];
    let api: RunningApi;
    let now = LOOKUP_AT;
    const clock: Clock = { now: () => new Date(now) };
    const readAt = (source: string) => new Date(LOOKUP_AT - READ_AT.find(([id]) => id === source)![1] * 60_000).toISOString();
    beforeAll(async () => {
      api = await startApi(engine, { clock, sources: FIXTURE_SOURCES });
      for (const [id, minutesBefore] of READ_AT) {
        now = LOOKUP_AT - minutesBefore * 60_000;
        const summary = await importBatch({ database: api.test.database, source: FIXTURE_SOURCES.find((source) => source.id === id)!, input: jsonlFeed(FEEDS[id]!), clock });
        if (summary.outcome !== 'applied') throw new Error(`batch ${id} rejected: ${summary.reason ?? ''}`);
      }
      now = LOOKUP_AT;
    });
    afterAll(async () => {
      await api.close();
    });

    for (const [domain, retrievableOn, chosen] of CASES) {
      it(`answers ${domain} from ${chosen}`, async () => {
        // the listings the choice is made among: every one of them is retrievable
        const listed = await search(api, { status: 'all', search: domain.replace(/\.com$/, ''), limit: '200' });
        expect(listed.page!.data.filter((d) => d.domain_name === domain).map((d) => d.source).sort()).toEqual(retrievableOn);
        const response = await api.get(`/api/v1/domains/${domain}`);
        expect(response.status).toBe(200);
        const { data } = lookupEnvelopeSchema.parse(await response.json());
        const fed = FEEDS[chosen]!.find((record) => record.domain_name === domain)!;
        expect(data).toMatchObject({ domain_name: domain, source: chosen, status: fed.status, current_bid: fed.current_bid, last_checked_at: readAt(chosen) });
      });
    }
  });
}
