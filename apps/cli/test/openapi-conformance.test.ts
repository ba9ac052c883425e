import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import {
  ERROR_CODES,
  EVENT_TYPES,
  type ErrorCode,
  type EventListEnvelope,
} from '@domain-index/contract';
import { plans } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import type { SourceConfig } from '@domain-index/indexer';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@domain-index/accounts/account-store';
import { deliveryTask, type Deliveries } from '@domain-index/worker/alerts/delivery-worker';
import { AlertContext, type AlertSettings } from '@domain-index/alerts/alert-deps';
import { createKey } from '@domain-index/accounts/key-store';
import type { Clock } from '@domain-index/runtime/clock';
import { lockEventLog } from '@domain-index/events/event-log-lock';
import { dropExpiredEventPartitions } from '@domain-index/events/partitions';
import { appendTimedEvents } from '@domain-index/worker/events/timed-events';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { createLogger } from '@domain-index/runtime/logger';
import { ApiMetrics, type StatementKind } from '@domain-index/api/ops/api-metrics';
import { MemoryRateLimiter } from '@domain-index/api/ratelimit/memory-rate-limiter';
import { RateLimiterUnavailableError, type RateLimiter } from '@domain-index/api/ratelimit/rate-limiter';
import { PrimaryReads, type ReadNodes } from '@domain-index/api/replicas/read-nodes';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { parseAllowedHosts } from '@domain-index/webhooks/address-rules';
import { jsonlFeed } from '@domain-index/test-support/feeds';
import { freePort, until } from '@domain-index/test-support/waiting';
import {
  startPrismProxy,
  startStubbingProxy,
  STUB_BODY,
  STUB_HEADER,
  type PrismProxy,
} from './support/prism';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';
import { WatchlistActions } from '@domain-index/names/watchlist-actions';
import { createRdapClient, type RdapClient } from '@domain-index/rdap';
import { startFakeRdap, type FakeRdap } from '@domain-index/rdap/testing';
import { RegistrationChecks } from '@domain-index/worker/names/registration-checks';
import { startWebhookReceiver, type WebhookReceiver } from '@domain-index/test-support/webhook-receiver';

type Json = Record<string, unknown>;

/** PostgreSQL when the suites have one (as `serve` runs), else the embedded PGlite: one run either way. */
const ENGINE = testEngines().some(({ engine, skip }) => engine === 'postgres' && !skip)
  ? 'postgres'
  : 'pglite';

const SOURCES: readonly SourceConfig[] = ['alpha', 'beta'].map((id) => ({
  id,
  name: id,
  everyMinutes: 60,
  feed: `${id}.jsonl`,
  format: 'jsonl' as const,
}));
const T1 = new Date('2026-11-21T12:00:00.000Z');
const T2 = new Date('2026-11-21T13:00:00.000Z');
const hours = (from: Date, h: number) => new Date(from.getTime() + h * 3_600_000).toISOString();
const clock: Clock = { now: () => T2 };

/** Enough unchanging listings for a search to have a second page (its limit is at least 10). */
const FILLERS = Array.from({ length: 12 }, (_, i) => ({
  domain_name: `filler-${i}.com`,
  status: 'available',
  buy_now_price: 100 + i,
  current_bid: 100 + i,
}));
/** The first batch of alpha (one source.loaded), then one that adds, changes and removes a listing each. */
const FIRST = [
  ...FILLERS,
  {
    domain_name: 'price-moves.com',
    status: 'auction',
    current_bid: 20,
    bid_count: 2,
    auction_end_time: hours(T1, 100),
  },
  { domain_name: 'goes-away.com', status: 'available', buy_now_price: 500, current_bid: 500 },
  {
    domain_name: 'ends-soon.net',
    status: 'auction',
    current_bid: 5,
    auction_end_time: hours(T2, 30),
  },
];
const SECOND = [
  ...FILLERS,
  { ...FIRST[12]!, current_bid: 25, bid_count: 3 },
  FIRST[14]!,
  {
    domain_name: 'brand-new.io',
    status: 'auction',
    current_bid: 1,
    bid_count: 0,
    auction_end_time: hours(T1, 200),
    seoa_dr: 12,
  },
];

/** Webhooks to loopback are allowed; digests can be sent (their addresses come from the account). */
const ALERT_SETTINGS: AlertSettings = (() => {
  const parsed = parseAllowedHosts('127.0.0.1');
  if (!parsed.ok) throw new Error(parsed.reason);
  return { allowList: parsed.allowList, digestsAvailable: true };
})();
const silent = createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() }));

/** A database failure as the driver reports one: unavailable (a lost connection) or a defect (a missing relation). */
const failure = (kind: 'unavailable' | 'defect') =>
  Object.assign(new Error(`made to fail by the test (${kind})`), {
    code: kind === 'unavailable' ? 'CONNECTION_CLOSED' : '42P01',
  });

/** Reads of the primary that fail, for the statements of one kind, while a test says so. */
class FaultyReads implements ReadNodes {
  fault: { kind: StatementKind; as: 'unavailable' | 'defect' } | undefined;
  private readonly inner: PrimaryReads;
  readonly engine: ReadNodes['engine'];
  readonly replicated = false;
  constructor(database: TestDatabase['database']) {
    this.inner = new PrimaryReads(database, new ApiMetrics(new Registry()));
    this.engine = this.inner.engine;
  }
  read<T>(kind: StatementKind, run: Parameters<ReadNodes['read']>[1]): Promise<T> {
    if (this.fault?.kind === kind) return Promise.reject(failure(this.fault.as));
    return this.inner.read(kind, run) as Promise<T>;
  }
  readPrimary<T>(kind: StatementKind, run: Parameters<ReadNodes['read']>[1]): Promise<T> {
    return this.read(kind, run);
  }
  readLong<T>(kind: StatementKind, run: Parameters<ReadNodes['readLong']>[1]): Promise<T> {
    if (this.fault?.kind === kind) return Promise.reject(failure(this.fault.as));
    return this.inner.readLong(kind, run) as Promise<T>;
  }
  pools() {
    return this.inner.pools();
  }
  close() {
    return this.inner.close();
  }
}

/** An in-process limiter that cannot count while a test says so. */
class FaultyLimiter implements RateLimiter {
  down = false;
  private readonly inner = new MemoryRateLimiter();
  consume(...args: Parameters<RateLimiter['consume']>) {
    return this.down
      ? Promise.reject(new RateLimiterUnavailableError('made to fail by the test'))
      : this.inner.consume(...args);
  }
  reserve(...args: Parameters<RateLimiter['reserve']>) {
    return this.down ? Promise.reject(new RateLimiterUnavailableError('made to fail by the test')) : this.inner.reserve(...args);
  }
  acquireSlot(...args: Parameters<RateLimiter['acquireSlot']>) {
    return this.down ? Promise.reject(new RateLimiterUnavailableError('made to fail by the test')) : this.inner.acquireSlot(...args);
  }
  close() {
    return this.inner.close();
  }
}

interface Operation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  statuses: string[];
}

/**
 * Every documented operation through Stoplight Prism's validation proxy (`prism proxy --errors`)
 * in front of the real API: each success and each error a client can get, events of every type,
 * the alerts and their deliveries, and 5xx answers made by failing reads and a failing limiter.
 * Any violation, of the request or the response, of any severity, fails the suite.
 */
describe(`every documented operation through Prism's validation proxy, on ${ENGINE}`, () => {
  let test: TestDatabase;
  let api: RunningApi;
  let faults: RunningApi;
  let reads: FaultyReads;
  let limiter: FaultyLimiter;
  let strict: PrismProxy;
  let lenient: PrismProxy;
  let stubbing: Awaited<ReturnType<typeof startStubbingProxy>>;
  let receiver: WebhookReceiver;
  let deliveries: Deliveries;
  let document: Json;
  let operations: Operation[];
  let scratch: string;
  /** Keys: an account's on a roomy plan (alerts, digests), one allowed a single request, one allowed 2 alerts. */
  const keys = { account: '', single: '', twoAlerts: '', leaked: '', capped: '' };
  /** `operationId status` of every answer that went through a proxy. */
  const answered = new Set<string>();
  const codes = new Set<ErrorCode>();
  const eventTypes = new Set<string>();
  let fake: FakeRdap;
  let rdap: RdapClient;
  let watchlistId = '';

  beforeAll(async () => {
    test = await createTestDatabase(ENGINE);
    fake = await startFakeRdap();
    rdap = createRdapClient({ bootstrapUrl: fake.bootstrapUrl, limits: '*=4/6000', log: () => undefined });
    await rdap.refreshBootstrap();
    api = await startApi(ENGINE, {
      test,
      clock,
      sources: SOURCES,
      overrides: { alerts: ALERT_SETTINGS, rdap },
    });
    reads = new FaultyReads(test.database);
    limiter = new FaultyLimiter();
    faults = await startApi(ENGINE, {
      test,
      clock,
      sources: SOURCES,
      overrides: { alerts: ALERT_SETTINGS, reads, rateLimiter: limiter },
    });

    await test.database.db.insert(plans).values([
      {
        id: 'conformance',
        requestsPerWindow: 1_000_000,
        windowSeconds: 3600,
        description: 'conformance suite',
        alertsLimit: 50,
        watchLimit: 3,
        rdapRefreshesPerHour: 1,
      },
      {
        id: 'conformance-single',
        requestsPerWindow: 1,
        windowSeconds: 3600,
        description: 'one request an hour',
      },
    ]);
    const account = await createAccount(test.database, {
      email: 'conformance@example.com',
      planId: 'conformance',
      at: T1,
    });
    keys.account = (
      await createKey(test.database, {
        planId: 'conformance',
        environment: 'live',
        accountId: account.id,
      })
    ).key;
    keys.single = (
      await createKey(test.database, {
        planId: 'conformance-single',
        name: 'single',
        environment: 'test',
      })
    ).key;
    keys.twoAlerts = api.apiKey;
    keys.leaked = (
      await createKey(test.database, { planId: 'conformance', name: 'leaked', environment: 'test' })
    ).key;
    await test.database.db.insert(plans).values({ id: 'conformance-capped', requestsPerWindow: 1_000, windowSeconds: 3600, description: 'exports of one row', exportRowsMax: 1 });
    keys.capped = (await createKey(test.database, { planId: 'conformance-capped', name: 'capped', environment: 'test' })).key;

    // a watchlist of two names of the feed, before the batches: their listing events give the
    // watchlist's name.listed, name.price_changed and name.delisted
    const watched = await new WatchlistActions({ database: test.database, clock }).create(
      { owner: { accountId: account.id }, keyId: null, ip: null },
      { id: 'conformance', watchLimit: 3 },
      { name: 'Conformance', domains: ['price-moves.com', 'goes-away.com'] },
    );
    watchlistId = watched.id;

    // the change feed: alpha's first batch (source.loaded), its second (added, updated,
    // removed), ends passing (ending_soon, ended)
    const at = (when: Date): Clock => ({ now: () => when });
    for (const [when, rows] of [[T1, FIRST], [T2, SECOND]] as const) {
      const summary = await importBatch({ database: test.database, source: SOURCES[0]!, clock: at(when), input: jsonlFeed(rows) });
      expect(summary.outcome).toBe('applied');
    }
    for (const when of [hours(T2, 7), hours(T2, 31)])
      await appendTimedEvents(test.database, new Date(when));

    // and a loopback registry walks price-moves.com through its phases: name.phase_changed,
    // name.dropped, name.registered
    const checks = new RegistrationChecks({ database: test.database, clock, rdap });
    const day = 86_400_000;
    for (const state of [
      { statuses: ['client transfer prohibited'], expiresAt: new Date(T2.getTime() + 100 * day) },
      { statuses: ['redemption period'], expiresAt: new Date(T2.getTime() - 40 * day), updatedAt: new Date(T2.getTime() - day) },
      undefined,
      { statuses: ['client transfer prohibited'], expiresAt: new Date(T2.getTime() + 365 * day) },
    ]) {
      if (state === undefined) fake.remove('price-moves.com');
      else fake.set('price-moves.com', { ...state, createdAt: new Date(T1.getTime() - 400 * day) });
      expect((await checks.run({ domain: 'price-moves.com' }))[0]!.outcome).toMatch(/^(found|not_found)$/);
    }


    receiver = await startWebhookReceiver();
    deliveries = deliveryTask({
      database: test.database,
      clock,
      logger: silent,
      publicUrl: api.baseUrl,
      secret: await loadCursorSecret(test.database),
      secretBox: () => new AlertContext(test.database, ALERT_SETTINGS).secretBox(),
      allowList: ALERT_SETTINGS.allowList!,
      schedule: [0, 3600],
      disableAfterMs: 86_400_000,
    });

    // the document as the API serves it; the lenient proxy's copy differs in one thing: no
    // security requirement, or Prism would answer a request without a key itself
    document = (await (await api.raw('/openapi.json')).json()) as Json;
    operations = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(
      ([template, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({
          id: String(operation.operationId),
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]*')}$`),
          statuses: Object.keys(operation.responses as Json),
        })),
    );
    scratch = mkdtempSync(join(tmpdir(), 'openapi-conformance-'));
    const { security: _security, ...keyless } = document;
    writeFileSync(join(scratch, 'keyless.json'), JSON.stringify(keyless));
    stubbing = await startStubbingProxy(faults.baseUrl);
    // the strict proxy reads the served document by its URL; the lenient one, which forwards
    // requests the document calls invalid (to see the API's 400s and 401s), validates no request
    [strict, lenient] = await Promise.all([
      startPrismProxy(`${api.baseUrl}/openapi.json`, api.baseUrl),
      startPrismProxy(join(scratch, 'keyless.json'), stubbing.url, ['--validate-request', 'false']),
    ]);
  });

  afterAll(async () => {
    await Promise.all([strict?.close(), lenient?.close()]);
    await stubbing?.close();
    await deliveries?.stop();
    await receiver?.close();
    await faults?.close();
    await limiter?.close();
    await api?.close();
    await rdap?.close();
    await fake?.close();
    await test?.dispose();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  interface Call {
    /** `lenient` for a request the document itself calls invalid, and for the fault instance. */
    via?: 'strict' | 'lenient';
    method?: string;
    path: string;
    body?: unknown;
    /** The key sent as a bearer token; null: no Authorization header. */
    key?: string | null;
    headers?: Record<string, string>;
  }

  /**
   * Sends a request through a proxy and returns the API's answer; fails on any violation Prism
   * reports, and on an answer Prism made itself. Records the operation, status and error code.
   */
  async function call(
    request: Call,
    expectedStatus: number,
    expectedCode?: ErrorCode,
  ): Promise<Json> {
    const method = request.method ?? 'GET';
    const pathname = request.path.split('?')[0]!;
    const operation = operations.find(
      (candidate) => candidate.method === method && candidate.pattern.test(pathname),
    );
    if (operation === undefined)
      throw new Error(`${method} ${pathname} is no operation of the document`);
    const headers = new Headers({ 'accept-encoding': 'identity', ...request.headers });
    const key = request.key === undefined ? keys.account : request.key;
    if (key !== null) headers.set('authorization', `Bearer ${key}`);
    if (request.body !== undefined && !headers.has('content-type'))
      headers.set('content-type', 'application/json');
    const proxy = request.via === 'lenient' ? lenient : strict;
    const response = await fetch(`${proxy.url}${request.path}`, {
      method,
      headers,
      ...(request.body === undefined
        ? {}
        : { body: typeof request.body === 'string' ? request.body : JSON.stringify(request.body) }),
    });
    const text = await response.text();
    const what = `${method} ${request.path} via ${proxy === strict ? 'strict' : 'lenient'}: ${response.status} ${text.slice(0, 600)}`;
    expect(response.headers.get('sl-violations'), what).toBeNull();
    expect(response.headers.get('content-type'), what).not.toMatch(/problem\+json/);
    expect(response.status, what).toBe(expectedStatus);
    // an export's 200 is CSV or JSON lines, checked by Prism against its media types
    const body = (response.headers.get('content-type')?.startsWith('application/json') === false ? {} : JSON.parse(text)) as Json;
    const code = (body.error as { code?: ErrorCode } | undefined)?.code;
    expect(code, what).toBe(expectedCode);
    if (code !== undefined) codes.add(code);
    answered.add(`${operation.id} ${response.status}`);
    return body;
  }

  it('answers 503 and 500 as documented when the database or the rate limiter fails', async () => {
    // first of all requests to the fault instance, while it has no plans cached
    reads.fault = { kind: 'plans', as: 'unavailable' };
    await call({ via: 'lenient', path: '/api/v1/stats' }, 503, 'plan_lookup_unavailable');
    reads.fault = { kind: 'key_lookup', as: 'unavailable' };
    await call({ via: 'lenient', path: '/api/v1/stats' }, 503, 'key_lookup_unavailable');
    reads.fault = { kind: 'events_page', as: 'unavailable' };
    await call({ via: 'lenient', path: '/api/v1/events' }, 503, 'query_failed');
    reads.fault = { kind: 'search_page', as: 'defect' };
    await call({ via: 'lenient', path: '/api/v1/domains' }, 500, 'internal_error');
    reads.fault = undefined;
    limiter.down = true;
    await call(
      { via: 'lenient', path: '/api/v1/domains/brand-new.io' },
      503,
      'rate_limit_unavailable',
    );
    limiter.down = false;
    await call({ via: 'lenient', path: '/api/v1/domains/brand-new.io' }, 200);
  });

  it('searches, pages, looks up and counts, and answers each of their errors', async () => {
    const first = await call(
      { path: '/api/v1/domains?status=all&limit=10&sort=domain_name&order=asc' },
      200,
    );
    const cursor = (first.pagination as { next_cursor: string }).next_cursor;
    expect(cursor).toEqual(expect.any(String));
    const last = await call(
      {
        path: `/api/v1/domains?status=all&limit=100&sort=domain_name&order=asc&cursor=${encodeURIComponent(cursor)}`,
      },
      200,
    );
    expect(last.pagination).toMatchObject({ has_more: false, next_cursor: null });
    await call({ path: '/api/v1/domains' }, 200);
    await call({ path: '/api/v1/domains/brand-new.io' }, 200);
    await call({ path: '/api/v1/stats' }, 200);
    await call({ path: '/api/v1/domains/absent-name.com' }, 404, 'domain_not_found');
    await call({ path: '/api/v1/domains/no_dots' }, 400, 'invalid_domain');
    // Prism takes the path for getDomain with an empty name; the API has no such path
    await call({ via: 'lenient', path: '/api/v1/domains/' }, 404, 'not_found');
    await call({ path: '/api/v1/domains?min_price=10&max_price=5' }, 400, 'invalid_parameter');
    await call({ path: '/api/v1/domains?colour=red' }, 400, 'unknown_parameter');
    await call({ via: 'lenient', path: '/api/v1/domains?min_price=abc' }, 400, 'invalid_parameter');
    await call({ path: `/api/v1/stats?api_key=${keys.leaked}` }, 400, 'api_key_in_query');
    // no key, a header that is not Bearer, a key that is not one
    await call({ via: 'lenient', path: '/api/v1/stats', key: null }, 401, 'missing_api_key');
    await call(
      {
        via: 'lenient',
        path: '/api/v1/stats',
        key: null,
        headers: { authorization: 'Basic YTpi' },
      },
      401,
      'invalid_authorization_header',
    );
    await call({ path: '/api/v1/stats', key: 'dix_test_notakey' }, 401, 'invalid_api_key');
    await call({ path: '/api/v1/stats', key: keys.single }, 200);
    await call({ path: '/api/v1/stats', key: keys.single }, 429, 'rate_limited');
  });

  it("exports CSV and JSON lines, and refuses a bad format and an export over the plan's rows", async () => {
    await call({ path: '/api/v1/exports/domains?format=csv&status=all' }, 200);
    await call({ path: '/api/v1/exports/domains?format=jsonl&status=all&summary=true' }, 200);
    await call({ via: 'lenient', path: '/api/v1/exports/domains?format=xlsx' }, 400, 'invalid_parameter');
    await call({ path: '/api/v1/exports/domains?format=csv&status=all', key: keys.capped }, 403, 'export_too_large');
  });

  it('serves events of every type, pages of them and their errors', async () => {
    const page = (await call(
      { path: '/api/v1/events?limit=200' },
      200,
    )) as unknown as EventListEnvelope;
    for (const event of page.data) eventTypes.add(event.type);
    // the watchlist's own events, seen by its owner only
    const watchlist = (await call({ path: `/api/v1/events?watchlist=${watchlistId}&limit=200` }, 200)) as unknown as EventListEnvelope;
    for (const event of watchlist.data) eventTypes.add(event.type);
    // a new event type fails here until this suite makes one
    expect([...eventTypes].sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const only = (await call(
        { path: `/api/v1/events?type=${type}&limit=1${type.startsWith('name.') ? `&watchlist=${watchlistId}` : ''}` },
        200,
      )) as unknown as EventListEnvelope;
      expect(only.data.map((event) => event.type)).toEqual([type]);
    }
    await call({ path: '/api/v1/events?watchlist=wl_madeup' }, 404, 'watchlist_not_found');
    const newest = (await call(
      { path: '/api/v1/events?after=now' },
      200,
    )) as unknown as EventListEnvelope;
    await call(
      {
        path: `/api/v1/events?after=${encodeURIComponent(newest.pagination.next_cursor)}&source=alpha&status=all`,
      },
      200,
    );
    await call({ path: '/api/v1/events?type=listing.bogus' }, 400, 'invalid_parameter');
    await call({ path: '/api/v1/events?after=made-up' }, 400, 'invalid_parameter');
    await call({ via: 'lenient', path: '/api/v1/events?limit=0' }, 400, 'invalid_parameter');
  });

  it('creates, reads, changes, tests, re-sends, re-keys and deletes alerts, with their deliveries and errors', async () => {
    const deadPort = await freePort();
    const both = await call(
      {
        method: 'POST',
        path: '/api/v1/alerts',
        body: {
          name: 'Both channels',
          query: 'type=listing.added',
          webhook_url: receiver.url,
          email_digest: 'daily',
        },
      },
      201,
    );
    const mailOnly = await call(
      {
        method: 'POST',
        path: '/api/v1/alerts',
        body: { name: 'Mail only', query: 'tld=io', email_digest: 'hourly' },
      },
      201,
    );
    expect(mailOnly).toMatchObject({
      webhook_url: null,
      webhook_secret: null,
      email_digest: 'hourly',
    });
    const unreachable = await call(
      {
        method: 'POST',
        path: '/api/v1/alerts',
        body: {
          name: 'Nobody listens',
          query: 'type=listing.removed',
          webhook_url: `http://127.0.0.1:${deadPort}/hook`,
        },
      },
      201,
    );
    const alert = String(both.id);
    await call(
      {
        method: 'POST',
        path: '/api/v1/alerts',
        body: { name: 'Bad filter', query: 'type=listing.bogus', webhook_url: receiver.url },
      },
      400,
      'invalid_parameter',
    );
    await call(
      {
        via: 'lenient',
        method: 'POST',
        path: '/api/v1/alerts',
        body: { name: 7, query: 'tld=io' },
      },
      400,
      'invalid_parameter',
    );
    await call(
      {
        via: 'lenient',
        method: 'POST',
        path: '/api/v1/alerts',
        body: { name: 'x', query: 'tld=io', email_digest: 'daily', colour: 'red' },
      },
      400,
      'invalid_parameter',
    );
    await call(
      {
        via: 'lenient',
        method: 'POST',
        path: '/api/v1/alerts',
        body: {
          name: 'Too long',
          query: `tld=io&search=${'a'.repeat(17_000)}`,
          email_digest: 'daily',
        },
      },
      400,
      'invalid_parameter',
    );
    await call(
      {
        via: 'lenient',
        method: 'POST',
        path: '/api/v1/alerts',
        body: 'name=x',
        headers: { 'content-type': 'text/plain' },
      },
      400,
      'invalid_parameter',
    );

    // messages: two tests and a batch of matching events to the receiver, a test nobody answers
    await call({ method: 'POST', path: `/api/v1/alerts/${alert}/test` }, 202);
    await call({ method: 'POST', path: `/api/v1/alerts/${unreachable.id as string}/test` }, 202);
    await importBatch({
      database: test.database,
      source: SOURCES[0]!,
      clock,
      input: jsonlFeed([
        ...SECOND,
        { domain_name: 'later.ai', status: 'available', buy_now_price: 90, current_bid: 90 },
      ]),
    });
    await until('the receiver got the test and the events', async () => {
      await deliveries.run();
      return receiver.received.length >= 2;
    });
    const message = String(
      (await call({ method: 'POST', path: `/api/v1/alerts/${alert}/test` }, 202)).id,
    );
    await until('the receiver got the second test', async () => {
      await deliveries.run();
      return receiver.received.length >= 3;
    });
    const attempts = await call({ path: `/api/v1/alerts/${alert}/deliveries?limit=2` }, 200);
    expect((attempts.data as { kind: string }[]).map((attempt) => attempt.kind).sort()).toEqual([
      'events',
      'test',
    ]);
    const older = (attempts.pagination as { next_cursor: string }).next_cursor;
    await call(
      { path: `/api/v1/alerts/${alert}/deliveries?after=${encodeURIComponent(older)}` },
      200,
    );
    const failed = await call(
      { path: `/api/v1/alerts/${unreachable.id as string}/deliveries` },
      200,
    );
    expect(failed.data).toMatchObject([
      { http_status: null, error: expect.any(String) as string, response: null },
    ]);
    await call(
      { method: 'POST', path: `/api/v1/alerts/${alert}/deliveries/${message}/resend` },
      202,
    );

    await call({ path: '/api/v1/alerts' }, 200);
    expect(await call({ path: `/api/v1/alerts/${alert}` }, 200)).toMatchObject({
      last_delivery: { status: expect.any(String) as string },
    });
    expect(await call({ path: `/api/v1/alerts/${mailOnly.id as string}` }, 200)).toMatchObject({
      last_delivery: null,
    });
    await call(
      {
        method: 'PATCH',
        path: `/api/v1/alerts/${alert}`,
        body: { paused: true, email_digest: null },
      },
      200,
    );
    expect(
      await call(
        {
          method: 'PATCH',
          path: `/api/v1/alerts/${mailOnly.id as string}`,
          body: { webhook_url: receiver.url },
        },
        200,
      ),
    ).toMatchObject({ webhook_secret: expect.stringMatching(/^whsec_/) as string });
    await call(
      { method: 'PATCH', path: `/api/v1/alerts/${alert}`, body: { webhook_url: null } },
      400,
      'invalid_parameter',
    );
    await call({ method: 'POST', path: `/api/v1/alerts/${alert}/rotate-secret` }, 200);
    await call({ method: 'DELETE', path: `/api/v1/alerts/${unreachable.id as string}` }, 200);

    // the ones that are not there
    const missing = 'alt_0000000000000000';
    await call({ path: `/api/v1/alerts/${missing}` }, 404, 'alert_not_found');
    await call(
      { method: 'PATCH', path: `/api/v1/alerts/${missing}`, body: { paused: false } },
      404,
      'alert_not_found',
    );
    await call(
      { method: 'DELETE', path: `/api/v1/alerts/${unreachable.id as string}` },
      404,
      'alert_not_found',
    );
    await call({ method: 'POST', path: `/api/v1/alerts/${missing}/test` }, 404, 'alert_not_found');
    await call({ path: `/api/v1/alerts/${missing}/deliveries` }, 404, 'alert_not_found');
    await call(
      { method: 'POST', path: `/api/v1/alerts/${missing}/rotate-secret` },
      404,
      'alert_not_found',
    );
    await call(
      { method: 'POST', path: `/api/v1/alerts/${alert}/deliveries/msg_0000000000000000/resend` },
      404,
      'delivery_not_found',
    );
    await call(
      { path: `/api/v1/alerts/${alert}/deliveries?after=not-a-cursor` },
      400,
      'invalid_parameter',
    );

    // a plan's number of alerts
    for (const name of ['first', 'second'])
      await call(
        {
          method: 'POST',
          path: '/api/v1/alerts',
          key: keys.twoAlerts,
          body: { name, query: 'tld=ai', webhook_url: receiver.url },
        },
        201,
      );
    await call(
      {
        method: 'POST',
        path: '/api/v1/alerts',
        key: keys.twoAlerts,
        body: { name: 'third', query: 'tld=ai', webhook_url: receiver.url },
      },
      403,
      'alert_limit_reached',
    );
  });

  it('reads names, and creates, reads, changes and deletes watchlists and their names, with their errors', async () => {
    await call({ path: '/api/v1/names/price-moves.com' }, 200);
    await call({ path: `/api/v1/names/${encodeURIComponent('café.com')}` }, 400, 'invalid_domain');
    // the plan allows one refresh an hour: the first checks now, the second is refused
    fake.set('fresh-one.org', { statuses: ['active'], expiresAt: new Date(T2.getTime() + 86_400_000 * 300) });
    const refreshed = await call({ path: '/api/v1/names/fresh-one.org?refresh=true' }, 200);
    expect(refreshed).toMatchObject({ data: { refresh: { outcome: 'checked' }, registration: { phase: 'registered' } } });
    await call({ path: '/api/v1/names/fresh-two.org?refresh=true' }, 429, 'refresh_limit_reached');

    // the owner watches 2 names of 3
    const created = await call({ method: 'POST', path: '/api/v1/watchlists', body: { name: 'Second', domains: ['third.com', 'not a name'] } }, 201);
    const id = String(created.id);
    await call({ path: '/api/v1/watchlists' }, 200);
    await call({ path: `/api/v1/watchlists/${id}` }, 200);
    await call({ method: 'PATCH', path: `/api/v1/watchlists/${id}`, body: { name: 'Renamed' } }, 200);
    await call({ method: 'POST', path: `/api/v1/watchlists/${id}/domains`, body: { domains: ['price-moves.com'] } }, 200);
    await call({ method: 'POST', path: `/api/v1/watchlists/${id}/domains`, body: { domains: ['fourth.com'] } }, 403, 'watch_limit_reached');
    await call({ path: `/api/v1/watchlists/${id}/domains?limit=1` }, 200);
    await call({ method: 'DELETE', path: `/api/v1/watchlists/${id}/domains/third.com` }, 200);
    await call({ method: 'DELETE', path: `/api/v1/watchlists/${id}/domains/third.com` }, 404, 'domain_not_found');
    await call({ path: '/api/v1/watchlists/wl_madeup' }, 404, 'watchlist_not_found');
    await call({ via: 'lenient', method: 'POST', path: '/api/v1/watchlists', body: { name: '' } }, 400, 'invalid_parameter');
    // an alert delivers its events: the watchlist stays until the alert goes
    const alert = await call({ method: 'POST', path: '/api/v1/alerts', body: { name: 'On a watchlist', watchlist_id: id, webhook_url: receiver.url } }, 201);
    await call({ method: 'DELETE', path: `/api/v1/watchlists/${id}` }, 409, 'watchlist_in_use');
    await call({ method: 'DELETE', path: `/api/v1/alerts/${String(alert.id)}` }, 200);
    await call({ method: 'DELETE', path: `/api/v1/watchlists/${id}` }, 200);
  });

  it('answers 410 cursor_expired for a cursor older than the events kept', async () => {
    const start = (await call(
      { path: '/api/v1/events?limit=1' },
      200,
    )) as unknown as EventListEnvelope;
    await dropExpiredEventPartitions(test.database, new Date(hours(T2, 24 * 5)), 1, lockEventLog);
    await call(
      { path: `/api/v1/events?after=${encodeURIComponent(start.pagination.next_cursor)}` },
      410,
      'cursor_expired',
    );
  });

  it("is a check that bites: Prism flags an answer that breaks any documented response's schema", async () => {
    // each documented status of each operation, answered by the stub with a body no schema allows
    let flagged = 0;
    for (const operation of operations) {
      const path = operation.template.replace(/\{(\w+)\}/g, 'x');
      for (const status of operation.statuses) {
        const response = await fetch(`${lenient.url}${path}`, {
          method: operation.method,
          headers: { [STUB_HEADER]: status },
        });
        const problem = (await response.json()) as {
          type?: string;
          validation?: { location: string[] }[];
        };
        const what = `${operation.id} ${status}: ${JSON.stringify(problem).slice(0, 300)}`;
        expect(problem, what).not.toEqual(STUB_BODY);
        expect([response.status, problem.type], what).toEqual([
          500,
          'https://stoplight.io/prism/errors#VIOLATIONS',
        ]);
        expect(
          problem.validation?.some(
            (violation) => violation.location[0] === 'response' && violation.location[1] === 'body',
          ),
          what,
        ).toBe(true);
        flagged += 1;
      }
    }
    expect(flagged).toBeGreaterThan(operations.length * 5);
  });

  it('cannot take a method the document does not have to the API: Prism answers it itself', async () => {
    const response = await fetch(`${lenient.url}/api/v1/alerts`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${keys.account}` },
    });
    expect(response.status).toBe(405);
    expect(await response.json()).toMatchObject({
      type: 'https://stoplight.io/prism/errors#NO_METHOD_MATCHED_ERROR',
    });
  });

  it('went through every documented operation with its success status, and answered every error code that belongs to an operation', () => {
    const successes = operations.map(
      (operation) =>
        `${operation.id} ${operation.statuses.find((status) => Number(status) < 400)!}`,
    );
    // a new endpoint fails here until this suite calls it
    expect(successes.filter((entry) => !answered.has(entry))).toEqual([]);
    expect(
      operations
        .map((operation) => operation.id)
        .filter((id) => ![...answered].some((entry) => entry.startsWith(`${id} `))),
    ).toEqual([]);
    // method_not_allowed answers a method that is no operation: Prism routes only documented
    // operations, and answers such a request itself
    expect(ERROR_CODES.filter((code) => !codes.has(code))).toEqual(['method_not_allowed']);
    // every documented status was answered through a proxy (405 is only method_not_allowed's)
    const documented = new Set(operations.flatMap((operation) => operation.statuses));
    const seen = new Set([...answered].map((entry) => entry.split(' ')[1]));
    expect([...documented].filter((status) => !seen.has(status))).toEqual(['405']);
  });
});
