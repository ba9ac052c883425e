import { nameEnvelopeSchema, watchedDomainListSchema, type Watchlist } from '@domain-index/contract';
import { testEngines } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@domain-index/accounts/account-store';
import { createKey } from '@domain-index/accounts/key-store';
import { updatePlan } from '@domain-index/accounts/plan-store';
import type { Clock } from '@domain-index/runtime/clock';
import { buildFixtureIndex, FIXTURE_NOW, FIXTURE_SOURCES } from './support/fixture-index';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

type Created = Watchlist & { refused: { index: number; domain: string; message: string }[] };

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`names and watchlists on ${engine}`, () => {
    let api: RunningApi;
    let now = FIXTURE_NOW.getTime();
    const clock: Clock = { now: () => new Date((now += 1)) };
    let mine: string;
    let theirs: string;
    let keyOnly: string;
    const send = async (key: string, method: string, path: string, body?: unknown) => {
      const response = await api.raw(path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    beforeAll(async () => {
      api = await startApi(engine, { clock, sources: FIXTURE_SOURCES });
      await buildFixtureIndex(api.test.database);
      const database = api.test.database;
      // a plan of 5 names, so the limit is reached in a few calls
      await updatePlan(database, 'free', { watchLimit: 5 });
      const at = new Date();
      const me = await createAccount(database, { email: 'me@example.com', planId: 'free', at });
      const other = await createAccount(database, { email: 'other@example.com', planId: 'pro', at });
      mine = (await createKey(database, { planId: 'free', environment: 'live', accountId: me.id })).key;
      theirs = (await createKey(database, { planId: 'pro', environment: 'live', accountId: other.id })).key;
      keyOnly = (await createKey(database, { planId: 'pro', environment: 'live' })).key;
    });
    afterAll(async () => {
      await api.close();
    });

    describe('GET /api/v1/names/{domain}', () => {
      it("lists every marketplace's current listing of a name in the lookup's order, leaving the ended one out", async () => {
        // multi.com: gamma auction (ended), beta available, alpha dropping
        const { status, body } = await send(mine, 'GET', '/api/v1/names/multi.com');
        expect(status).toBe(200);
        const name = nameEnvelopeSchema.parse(body);
        expect(name.data.domain_name).toBe('multi.com');
        expect(name.data.listings.map((listing) => [listing.source, listing.status])).toEqual([
          ['beta', 'available'],
          ['alpha', 'dropping'],
        ]);
        // the lookup still answers with the first of them
        const lookup = (await (await api.get('/api/v1/domains/multi.com')).json()) as { data: { source: string } };
        expect(lookup.data.source).toBe('beta');
        expect(name.data).toMatchObject({ registration: null, history: [], refresh: null });
      });

      it('answers any valid name, listed or not, and refuses a Unicode name saying to send punycode', async () => {
        const unlisted = nameEnvelopeSchema.parse((await send(mine, 'GET', '/api/v1/names/never-listed-anywhere.org')).body);
        expect(unlisted.data).toEqual({ domain_name: 'never-listed-anywhere.org', listings: [], registration: null, history: [], refresh: null });
        expect((await send(mine, 'GET', '/api/v1/names/xn--caf-dma.com')).status).toBe(200);
        const unicode = await send(mine, 'GET', `/api/v1/names/${encodeURIComponent('café.com')}`);
        expect(unicode.status).toBe(400);
        expect(unicode.body).toEqual({ error: { code: 'invalid_domain', message: 'café.com is not in ASCII: send the name in punycode (xn--...), as registries list it' } });
        const invalid = await send(mine, 'GET', '/api/v1/names/not_a_name.com');
        expect(invalid.body).toEqual({ error: { code: 'invalid_domain', message: 'not_a_name.com is not a valid domain name' } });
        const param = await send(mine, 'GET', '/api/v1/names/multi.com?refresh=maybe');
        expect(param.body).toMatchObject({ error: { code: 'invalid_parameter', param: 'refresh' } });
      });
    });

    describe('watchlists', () => {
      it('creates a watchlist, adding the valid names and reporting each refused one by its index', async () => {
        const created = await send(mine, 'POST', '/api/v1/watchlists', { name: 'Drops', domains: ['multi.com', 'café.com', 'MULTI.com', 'bad_name.com', 'xn--caf-dma.com'] });
        expect(created.status).toBe(201);
        const list = created.body as unknown as Created;
        expect(list).toMatchObject({ object: 'watchlist', name: 'Drops', domains_count: 2 });
        expect(list.id).toMatch(/^wl_[\w-]{20}$/);
        expect(list.refused.map((entry) => [entry.index, entry.domain])).toEqual([
          [1, 'café.com'],
          [3, 'bad_name.com'],
        ]);
        const page = watchedDomainListSchema.parse((await send(mine, 'GET', `/api/v1/watchlists/${list.id}/domains`)).body);
        expect(page.data.map((entry) => entry.domain_name)).toEqual(['multi.com', 'xn--caf-dma.com']);
        // multi.com: two current listings (beta available, alpha dropping); never checked, due now
        expect(page.data[0]).toMatchObject({ listings_count: 2, phase: null, checked_at: null });
        expect(page.data[0]!.next_check_at).not.toBeNull();
        expect(page.data[1]).toMatchObject({ listings_count: 0, lowest_price: null });

        const added = await send(mine, 'POST', `/api/v1/watchlists/${list.id}/domains`, { domains: ['multi.com', 'one.io', 'one.io', '-x.com'] });
        expect(added.status).toBe(200);
        expect(added.body).toMatchObject({ object: 'watchlist_change', added: 1, already_watched: 2, refused: [{ index: 3, domain: '-x.com' }] });
        expect((added.body.watchlist as Watchlist).domains_count).toBe(3);

        const renamed = await send(mine, 'PATCH', `/api/v1/watchlists/${list.id}`, { name: 'Drops to catch' });
        expect(renamed.body).toMatchObject({ id: list.id, name: 'Drops to catch', domains_count: 3 });
        const listed = await send(mine, 'GET', '/api/v1/watchlists');
        expect((listed.body.data as Watchlist[]).map((entry) => entry.id)).toEqual([list.id]);

        const removed = await send(mine, 'DELETE', `/api/v1/watchlists/${list.id}/domains/one.io`);
        expect(removed.body).toEqual({ object: 'watched_domain', domain_name: 'one.io', deleted: true });
        const again = await send(mine, 'DELETE', `/api/v1/watchlists/${list.id}/domains/one.io`);
        expect(again.status).toBe(404);
        expect(again.body).toMatchObject({ error: { code: 'domain_not_found' } });
      });

      it("answers another owner's watchlist with 404 for every verb, and its events too", async () => {
        const created = (await send(theirs, 'POST', '/api/v1/watchlists', { name: 'Theirs', domains: ['theirs.com'] })).body as unknown as Created;
        const path = `/api/v1/watchlists/${created.id}`;
        for (const [method, suffix, body] of [
          ['GET', '', undefined],
          ['PATCH', '', { name: 'Mine now' }],
          ['DELETE', '', undefined],
          ['POST', '/domains', { domains: ['x.com'] }],
          ['GET', '/domains', undefined],
          ['DELETE', '/domains/theirs.com', undefined],
        ] as const) {
          for (const key of [mine, keyOnly]) {
            const answer = await send(key, method, `${path}${suffix}`, body);
            expect(answer.status, `${method} ${suffix}`).toBe(404);
            expect(answer.body).toEqual({ error: { code: 'watchlist_not_found', message: `no watchlist ${created.id} of yours` } });
          }
        }
        expect((await send(mine, 'GET', `/api/v1/events?watchlist=${created.id}`)).body).toMatchObject({ error: { code: 'watchlist_not_found' } });
        const own = await send(theirs, 'GET', `/api/v1/events?watchlist=${created.id}`);
        expect(own.status).toBe(200);
        expect(own.body.data).toEqual([]);
        // untouched by the attempts
        expect((await send(theirs, 'GET', path)).body).toMatchObject({ name: 'Theirs', domains_count: 1 });
      });

      it("refuses names past the plan's limit whole, counting a name once over all of the owner's watchlists, even when requests race", async () => {
        // the owner watches multi.com and xn--caf-dma.com (3 names left of 5)
        const second = (await send(mine, 'POST', '/api/v1/watchlists', { name: 'Second', domains: ['multi.com'] })).body as unknown as Created;
        expect(second.domains_count).toBe(1);
        const over = await send(mine, 'POST', `/api/v1/watchlists/${second.id}/domains`, { domains: ['a1.com', 'a2.com', 'a3.com', 'a4.com'] });
        expect(over.status).toBe(403);
        expect(over.body).toEqual({
          error: { code: 'watch_limit_reached', message: 'your plan (free) allows 5 watched names and you watch 2: 4 more would be 6; remove some, or move to a plan with more' },
        });
        expect((await send(mine, 'GET', `/api/v1/watchlists/${second.id}`)).body).toMatchObject({ domains_count: 1 });
        // two requests of 2 new names each, side by side: only one fits
        const racing = await Promise.all([
          send(mine, 'POST', `/api/v1/watchlists/${second.id}/domains`, { domains: ['b1.com', 'b2.com'] }),
          send(mine, 'POST', `/api/v1/watchlists/${second.id}/domains`, { domains: ['c1.com', 'c2.com'] }),
        ]);
        expect(racing.map((answer) => answer.status).sort()).toEqual([200, 403]);
        expect((await send(mine, 'GET', `/api/v1/watchlists/${second.id}`)).body).toMatchObject({ domains_count: 3 });
      });

      it('pages the names of a watchlist by cursor, in name order, without a repeat or a gap', async () => {
        const names = ['e5.net', 'e1.net', 'e3.net', 'e2.net', 'e4.net'];
        const created = (await send(keyOnly, 'POST', '/api/v1/watchlists', { name: 'Pages', domains: names })).body as unknown as Created;
        const seen: string[] = [];
        let after: string | null = null;
        do {
          const query: string = after === null ? '?limit=2' : `?limit=2&after=${after}`;
          const page = watchedDomainListSchema.parse((await send(keyOnly, 'GET', `/api/v1/watchlists/${created.id}/domains${query}`)).body);
          seen.push(...page.data.map((entry) => entry.domain_name));
          expect(page.pagination.has_more).toBe(page.pagination.next_cursor !== null);
          after = page.pagination.next_cursor;
        } while (after !== null);
        expect(seen).toEqual([...names].sort());
        const bad = await send(keyOnly, 'GET', `/api/v1/watchlists/${created.id}/domains?after=%25%25`);
        expect(bad.body).toMatchObject({ error: { code: 'invalid_parameter', param: 'after' } });
        const deleted = await send(keyOnly, 'DELETE', `/api/v1/watchlists/${created.id}`);
        expect(deleted.body).toEqual({ object: 'watchlist', id: created.id, deleted: true });
        expect((await send(keyOnly, 'GET', `/api/v1/watchlists/${created.id}`)).status).toBe(404);
      });

      it('refuses a bad body naming the field', async () => {
        const tooMany = await send(mine, 'POST', '/api/v1/watchlists', { name: 'Big', domains: Array.from({ length: 1001 }, (_, i) => `n${i}.com`) });
        expect(tooMany.body).toMatchObject({ error: { code: 'invalid_parameter', param: 'domains' } });
        const noName = await send(mine, 'POST', '/api/v1/watchlists', { name: ' ' });
        expect(noName.body).toMatchObject({ error: { code: 'invalid_parameter', param: 'name' } });
      });
    });
  });
}
