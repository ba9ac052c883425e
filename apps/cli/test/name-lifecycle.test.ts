import type { Event, EventListEnvelope } from '@domain-index/contract';
import { nameEnvelopeSchema } from '@domain-index/contract';
import { resultRows, sql } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { createKey, revokeKey } from '@domain-index/accounts/key-store';
import { createRdapClient, type RdapClient } from '@domain-index/rdap';
import { startFakeRdap, type FakeRdap } from '@domain-index/rdap/testing';
import type { SourceConfig } from '@domain-index/indexer';
import { systemClock } from '@domain-index/runtime/clock';
import { parseAllowedHosts } from '@domain-index/webhooks/address-rules';
import { startWebhookReceiver, type WebhookReceiver } from '@domain-index/test-support/webhook-receiver';
import { jsonlFeed } from '@domain-index/test-support/feeds';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { RegistrationChecks, watchedNamesState } from '@domain-index/worker/names/registration-checks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';
import { checkedLine } from '../src/commands/names';
import { suiteDeliveryTask } from './support/delivery-task';

const SOURCE: SourceConfig = { id: 'alpha', name: 'alpha', everyMinutes: 60, feed: 'alpha.jsonl', format: 'jsonl' };
const NAME = 'lifecycle.com';
const DAY = 86_400_000;
const loopback = parseAllowedHosts('127.0.0.1');
if (!loopback.ok) throw new Error(loopback.reason);

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`a watched name through its life on ${engine}`, () => {
    let test: TestDatabase;
    let api: RunningApi;
    let fake: FakeRdap;
    let rdap: RdapClient;
    let receiver: WebhookReceiver;
    let checks: RegistrationChecks;
    let watchlistId: string;
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await api.raw(path, {
        method,
        headers: { authorization: `Bearer ${api.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const watchlistEvents = async () => ((await send('GET', `/api/v1/events?watchlist=${watchlistId}&limit=200`)).body as unknown as EventListEnvelope).data;
    const check = async () => {
      const [checked] = await checks.run({ domain: NAME });
      return checked!;
    };

    beforeAll(async () => {
      test = await createTestDatabase(engine);
      fake = await startFakeRdap();
      rdap = createRdapClient({ bootstrapUrl: fake.bootstrapUrl, limits: '*=4/6000', log: () => undefined });
      await rdap.refreshBootstrap();
      api = await startApi(engine, { test, sources: [SOURCE], overrides: { alerts: { allowList: loopback.allowList }, rdap } });
      checks = new RegistrationChecks({ database: test.database, clock: systemClock, rdap });
      receiver = await startWebhookReceiver();
      // the watchlist, and an alert that delivers its events by webhook
      watchlistId = String((await send('POST', '/api/v1/watchlists', { name: 'Lifecycle', domains: [NAME, 'other.org'] })).body.id);
      const alert = await send('POST', '/api/v1/alerts', { name: 'My drops', watchlist_id: watchlistId, webhook_url: receiver.url });
      expect(alert.status).toBe(201);
      expect(alert.body).toMatchObject({ watchlist_id: watchlistId, query: '' });
    });
    afterAll(async () => {
      await api?.close();
      await rdap?.close();
      await fake?.close();
      await receiver?.close();
      await test?.dispose();
    });

    it('walks registered, redemption, pending delete, 404, registered again: each move one event, in order, delivered once to the webhook alert', async () => {
      const now = Date.now();
      fake.set(NAME, { statuses: ['client transfer prohibited'], createdAt: new Date(now - 400 * DAY), expiresAt: new Date(now + 200 * DAY) });
      const first = await check();
      // the first answer records the phase without an event: there is no move yet
      expect(first).toMatchObject({ domainName: NAME, outcome: 'found', phase: 'registered', moved: null });
      expect(checkedLine(first)).toMatch(/^lifecycle\.com {2}registered {2}http:\/\/127\.0\.0\.1:\d+\/com\/v1\/ {2}next \d{4}-/);
      // daily while registered far from expiry, spread by up to 20 %
      expect(first.nextCheckAt!.getTime() - now).toBeGreaterThan(0.75 * DAY);

      fake.set(NAME, { statuses: ['redemption period'], createdAt: new Date(now - 400 * DAY), expiresAt: new Date(now - 40 * DAY), updatedAt: new Date(now - 2 * DAY) });
      expect((await check()).moved).toEqual({ from: 'registered', to: 'redemption' });
      fake.set(NAME, { statuses: ['pending delete'], createdAt: new Date(now - 400 * DAY), expiresAt: new Date(now - 70 * DAY), updatedAt: new Date(now - DAY) });
      const pending = await check();
      expect(pending.moved).toEqual({ from: 'redemption', to: 'pending_delete' });
      // every 10 minutes in pending delete (at most 12 with the spread)
      expect(pending.nextCheckAt!.getTime() - Date.now()).toBeLessThanOrEqual(12 * 60_000);
      fake.remove(NAME);
      expect((await check()).moved).toEqual({ from: 'pending_delete', to: 'available' });
      // a second check that finds the same phase adds nothing
      expect((await check()).moved).toBeNull();
      fake.set(NAME, { statuses: ['client transfer prohibited'], createdAt: new Date(), expiresAt: new Date(now + 365 * DAY) });
      expect((await check()).moved).toEqual({ from: 'available', to: 'registered' });

      const events = await watchlistEvents();
      expect(events.map((event) => [event.type, event.data.previous_attributes?.phase, event.data.name?.phase])).toEqual([
        ['name.phase_changed', 'registered', 'redemption'],
        ['name.phase_changed', 'redemption', 'pending_delete'],
        ['name.dropped', 'pending_delete', 'available'],
        ['name.registered', 'available', 'registered'],
      ]);
      for (const event of events) expect(event).toMatchObject({ source: 'rdap', data: { object: null, watchlist_id: watchlistId, name: { domain_name: NAME } } });
      // the index's feed, and another key, see none of them
      expect(((await (await api.get('/api/v1/events?limit=200')).json()) as EventListEnvelope).data.filter((event) => event.type.startsWith('name.'))).toEqual([]);

      // the alert delivers exactly these, once each, in order
      const deliveries = await suiteDeliveryTask(test.database, api.baseUrl, loopback.allowList);
      await deliveries.run();
      await deliveries.run();
      const delivered = receiver.received.flatMap((request) => (JSON.parse(request.body) as { events: Event[] }).events.map((event) => event.id));
      expect(delivered).toEqual(events.map((event) => event.id));

      // the name's page: registered now, and its moves in its history, newest first
      const page = nameEnvelopeSchema.parse((await send('GET', `/api/v1/names/${NAME}`)).body).data;
      expect(page.registration).toMatchObject({ phase: 'registered', statuses: ['client transfer prohibited'], expected_drop_at: null });
      expect(page.history.map((entry) => [entry.kind, entry.previous_phase, entry.phase])).toEqual([
        ['phase_changed', 'available', 'registered'],
        ['phase_changed', 'pending_delete', 'available'],
        ['phase_changed', 'redemption', 'pending_delete'],
        ['phase_changed', 'registered', 'redemption'],
      ]);
    });

    it('says name.listed when a marketplace lists a watched name, and name.price_changed and name.delisted after', async () => {
      const listing = (bid: number) => ({ domain_name: NAME, status: 'auction', current_bid: bid, auction_end_time: '2099-01-01T00:00:00.000Z' });
      const before = (await watchlistEvents()).length;
      // the marketplace's first batch (source.loaded in the index's feed), then a new bid, then gone
      for (const records of [[listing(10), { domain_name: 'unwatched.com', status: 'auction', current_bid: 5 }], [listing(25)], [{ domain_name: 'unwatched.com', status: 'auction', current_bid: 5 }]]) {
        const summary = await importBatch({ database: test.database, source: SOURCE, clock: systemClock, input: jsonlFeed(records) });
        expect(summary.outcome).toBe('applied');
      }
      const events = (await watchlistEvents()).slice(before);
      expect(events.map((event) => [event.type, event.data.object?.current_bid, event.data.name?.phase])).toEqual([
        ['name.listed', 10, 'registered'],
        ['name.price_changed', 25, 'registered'],
        ['name.delisted', 25, 'registered'],
      ]);
      expect(events[1]!.data.previous_attributes).toMatchObject({ current_bid: 10 });
      const history = nameEnvelopeSchema.parse((await send('GET', `/api/v1/names/${NAME}`)).body).data.history;
      expect(history.slice(0, 3).map((entry) => [entry.kind, entry.source, entry.price, entry.previous_price])).toEqual([
        ['delisted', 'alpha', 25, null],
        ['price_changed', 'alpha', 25, 10],
        ['listed', 'alpha', 10, null],
      ]);
    });

    it('refreshes a registration on request when its last check is over 10 minutes old, counted against the key', async () => {
      const recent = await send('GET', `/api/v1/names/${NAME}?refresh=true`);
      expect(recent.body).toMatchObject({ data: { refresh: { outcome: 'recent' } } });
      fake.set('fresh-name.org', { statuses: ['active'], createdAt: new Date(Date.now() - 10 * DAY), expiresAt: new Date(Date.now() + 355 * DAY) });
      const checked = nameEnvelopeSchema.parse((await send('GET', '/api/v1/names/fresh-name.org?refresh=true')).body).data;
      expect(checked.refresh).toEqual({ outcome: 'checked', message: null });
      expect(checked.registration).toMatchObject({ phase: 'registered', statuses: ['active'] });
      // a TLD without RDAP is unknown, said plainly
      const unknown = nameEnvelopeSchema.parse((await send('GET', '/api/v1/names/example.de?refresh=true')).body).data;
      expect(unknown.registration).toMatchObject({ phase: 'unknown' });
    });

    it('checks no name that only owners who can no longer sign in watch, and counts none of them overdue', async () => {
      const { id: keyId, key } = await createKey(test.database, { planId: 'pro', name: 'soon revoked', environment: 'live' });
      const created = await api.raw('/api/v1/watchlists', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Stopped owner', domains: ['only-revoked.org', 'other.org'] }),
      });
      expect(created.status).toBe(201);
      fake.set('only-revoked.org', { statuses: ['active'], createdAt: new Date(Date.now() - 10 * DAY), expiresAt: new Date(Date.now() + 300 * DAY) });
      fake.set('other.org', { statuses: ['active'], createdAt: new Date(Date.now() - 10 * DAY), expiresAt: new Date(Date.now() + 300 * DAY) });
      const everyName = async () => (await checks.run({ all: true, notAttemptedSince: new Date(Date.now() + DAY) })).map((checked) => checked.domainName);
      expect(await everyName()).toEqual(expect.arrayContaining(['only-revoked.org', 'other.org']));

      expect(await revokeKey(test.database, keyId, 'test', new Date())).toBe(true);
      const after = await everyName();
      // other.org is on a live owner's watchlist too; only-revoked.org on the revoked key's alone
      expect(after).toContain('other.org');
      expect(after).not.toContain('only-revoked.org');
      // nor when its check falls due, and the overdue count leaves it out
      await test.database.db.execute(sql`update name_registrations set next_check_at = now() - interval '2 hours' where domain_name in ('only-revoked.org', 'other.org')`);
      const due = (await checks.run()).map((checked) => checked.domainName);
      expect(due).toContain('other.org');
      expect(due).not.toContain('only-revoked.org');
      const state = await watchedNamesState(test.database, new Date(), 60_000);
      expect(state.overdue).toBe(0);
      const stuck = await test.database.db.execute(sql`select 1 from name_registrations where domain_name = 'only-revoked.org' and next_check_at < now() - interval '1 hour'`);
      expect(resultRows(stuck)).toHaveLength(1);
    });
  });
}
