import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { apiKeys, digestRecipients, eq } from '@domain-index/db';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, issueLink } from '@domain-index/accounts/account-store';
import { createKey } from '@domain-index/accounts/key-store';
import { unsubscribeToken } from '@domain-index/alerts/unsubscribe-token';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { createAccountKey } from '@domain-index/accounts/account-keys';
import { SIGN_IN_LIMITS, SignInLimiter } from '@domain-index/api/dashboard/sign-in-limiter';
import { systemClock } from '@domain-index/runtime/clock';
import { HSTS } from '@domain-index/api/http/security-headers';
import { DashboardClient } from '@domain-index/test-support/dashboard-client';
import { buildFixtureIndex, fixtureClock, FIXTURE_SOURCES } from './support/fixture-index';
import { OwnRedis, testRedisUrl } from '@domain-index/test-support/redis';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

const PASSWORD = 'correct horse battery staple';

/** An answer read whole, for comparing one spelling of a request with another. */
interface Answer {
  status: number;
  type: string | undefined;
  body: string;
}

/** A page with its forms' one-time tokens, new on every page, made the same. */
const withoutFormTokens = (body: string) => body.replace(/name="form_token" value="[\w-]+"/g, 'name="form_token" value="…"');

/**
 * A GET in absolute form (`GET http://host/path HTTP/1.1`), as a client talking to a proxy sends
 * it: fetch cannot send one. HTTP/1.1 servers must accept it (RFC 9112, 3.2.2).
 */
function absoluteGet(baseUrl: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method: 'GET', path: `${baseUrl}${path}`, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: withoutFormTokens(Buffer.concat(chunks).toString('utf8')) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The series the app exposes on /metrics, counted as Prometheus would scrape them. */
async function seriesCount(api: RunningApi): Promise<number> {
  const text = await api.metrics.registry.metrics();
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
}

/** Every value of the `route` label of the request histogram. */
async function routeLabels(api: RunningApi): Promise<Set<string>> {
  const text = await api.metrics.registry.metrics();
  return new Set([...text.matchAll(/^http_request_duration_seconds_count\{[^}]*route="([^"]*)"/gm)].map((match) => match[1]!));
}

/** The access-log lines of a request, by its X-Request-Id. */
const accessLines = (api: RunningApi, id: string) =>
  api.logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => (line.req as { id?: unknown } | undefined)?.id === id);

describe('one spelling of every path: case, trailing slash and absolute-form variants', () => {
  let api: RunningApi;
  let browser: DashboardClient;
  let token: string;
  let keyId: string;
  beforeAll(async () => {
    api = await startApi('pglite', { dashboard: {}, sources: FIXTURE_SOURCES, clock: fixtureClock });
    await buildFixtureIndex(api.test.database);
    const account = await createAccount(api.test.database, { email: 'variants@example.com', planId: 'pro', at: systemClock.now() });
    browser = new DashboardClient(api.baseUrl);
    expect((await browser.post(`/dashboard/set-password/${await issueLink(api.test.database, account.id, systemClock.now())}`, { password: PASSWORD })).status).toBe(303);
    keyId = (await createAccountKey(api.test.database, { accountId: account.id, name: 'variants', expiresInDays: null, at: systemClock.now(), ip: null })).id;
    // a link that stays unspent: its page is one of the routes
    const other = await createAccount(api.test.database, { email: 'link@example.com', planId: 'free', at: systemClock.now() });
    token = await issueLink(api.test.database, other.id, systemClock.now());
  });
  afterAll(async () => {
    await api.close();
  });

  /** Every GET route, its label, and the headers it is sent with (a key, a session). */
  const routes = () => {
    const key = { authorization: `Bearer ${api.apiKey}` };
    const session = { cookie: browser.cookieHeader };
    return [
      { path: '/api/v1/domains?limit=1', label: '/api/v1/domains', headers: key },
      { path: '/api/v1/domains/multi.com', label: '/api/v1/domains/:domain', headers: key },
      { path: '/api/v1/stats', label: '/api/v1/stats', headers: key },
      { path: '/docs', label: '/docs', headers: {} },
      { path: '/openapi.json', label: '/openapi.json', headers: {} },
      { path: '/docs/reference.js', label: '/docs/reference.js', headers: {} },
      { path: '/dashboard', label: '/dashboard/', headers: session },
      { path: '/dashboard/sign-in', label: '/dashboard/sign-in', headers: {} },
      { path: `/dashboard/set-password/${token}`, label: '/dashboard/set-password/:token', headers: {} },
      { path: '/dashboard/keys', label: '/dashboard/keys', headers: session },
      { path: `/dashboard/keys/${keyId}/usage`, label: '/dashboard/keys/:id/usage', headers: session },
      { path: `/dashboard/keys/${keyId}/revoke`, label: '/dashboard/keys/:id/revoke', headers: session },
      { path: `/dashboard/keys/${keyId}/requests?status=2xx`, label: '/dashboard/keys/:id/requests', headers: session },
      { path: '/dashboard/forgot-password', label: '/dashboard/forgot-password', headers: {} },
      { path: '/dashboard/audit', label: '/dashboard/audit', headers: session },
      { path: '/dashboard/sessions', label: '/dashboard/sessions', headers: session },
      { path: '/dashboard/password', label: '/dashboard/password', headers: session },
      { path: '/dashboard/assets/dashboard.css', label: '/dashboard/assets/dashboard.css', headers: {} },
    ];
  };

  /** Other spellings of a path: its static segments in other cases, a trailing slash, doubled and encoded slashes and letters. */
  function variants(path: string): string[] {
    const [pathname, query] = path.split('?') as [string, string | undefined];
    const suffix = query === undefined ? '' : `?${query}`;
    const segments = pathname.split('/');
    // the segments that are ours (not a token, a key id or a domain)
    const statics = segments.map((segment, i) => ({ segment, i })).filter(({ segment }) => segment !== '' && segment !== token && segment !== keyId && segment !== 'multi.com');
    const spelled = (i: number, spell: (segment: string) => string) => segments.map((segment, j) => (j === i ? spell(segment) : segment)).join('/') + suffix;
    return [
      ...statics.map(({ i }) => spelled(i, (segment) => segment.toUpperCase())),
      ...statics.map(({ i }) => spelled(i, (segment) => segment[0]!.toUpperCase() + segment.slice(1))),
      ...statics.slice(0, 1).map(({ i }) => spelled(i, (segment) => `%${segment.charCodeAt(0).toString(16)}${segment.slice(1)}`)),
      pathname.toUpperCase() + suffix,
      `${pathname}/${suffix}`,
      `/${pathname}${suffix}`,
      pathname.replace(/\/([^/]*)$/, '//$1') + suffix,
    ];
  }

  const get = async (path: string, headers: Record<string, string>, id: string): Promise<Answer> => {
    const response = await fetch(`${api.baseUrl}${path}`, { redirect: 'manual', headers: { ...headers, 'x-request-id': id } });
    return { status: response.status, type: response.headers.get('content-type') ?? undefined, body: withoutFormTokens(await response.text()) };
  };

  it('answers each variant as its route (same answer, same label) or 404, adds no series over 100 variants, and never logs the token', async () => {
    const canonical = new Map<string, Answer>();
    // warm-up: every route once, and one path that is nothing
    for (const route of routes()) {
      const answer = await get(route.path, route.headers, `canonical-${randomBytes(4).toString('hex')}`);
      expect(answer.status, route.path).toBeLessThan(400);
      canonical.set(route.path, answer);
    }
    expect((await get('/nothing-here', {}, 'warm-up-404')).status).toBe(404);
    const before = await seriesCount(api);
    const labels = new Set([...routes().map((route) => route.label), 'unmatched']);

    let sent = 0;
    const matched: string[] = [];
    for (const route of routes()) {
      const expected = canonical.get(route.path)!;
      for (const variant of variants(route.path)) {
        const answer = await get(variant, route.headers, `variant-${sent}`);
        sent += 1;
        if (answer.status !== 404) {
          expect({ variant, ...answer }).toEqual({ variant, ...expected });
          matched.push(variant);
        }
      }
      // the absolute form is the same request, routed by its path
      const absolute = await absoluteGet(api.baseUrl, route.path, route.headers);
      sent += 1;
      expect({ path: route.path, ...absolute }).toEqual({ path: route.path, ...expected });
    }
    expect(sent).toBeGreaterThanOrEqual(100);
    // Express folds one slash after a mount point into the mount (`/dashboard//keys` is
    // `/dashboard` + `/keys`): those, and only those, are the same request; no case variant is
    expect(matched.length).toBeGreaterThan(0);
    expect(matched.filter((variant) => !/^\/dashboard(\/assets)?\/(\/|$)/.test(variant))).toEqual([]);
    expect(await seriesCount(api)).toBe(before);
    expect([...(await routeLabels(api))].filter((label) => !labels.has(label))).toEqual([]);
    // the link's token is in no log line, whatever the spelling
    expect(api.logLines.join('\n')).not.toContain(token);
    const linkLines = api.logLines.filter((line) => /set-password/i.test(line));
    expect(linkLines.length).toBeGreaterThan(10);
    for (const line of linkLines) expect(line).toMatch(/set-password\/+\[redacted\]/i);
  });
});

describe('keys in URLs', () => {
  let api: RunningApi;
  beforeAll(async () => {
    api = await startApi('pglite', { dashboard: {}, overrides: { trustProxy: ['loopback'] } });
  });
  afterAll(async () => {
    await api.close();
  });

  const revocation = async (id: string) => (await api.test.database.db.select({ revokedAt: apiKeys.revokedAt, reason: apiKeys.revokedReason }).from(apiKeys).where(eq(apiKeys.id, id)))[0]!;

  it('redacts a valid key sent in ?search= in the log, revokes it as leaked, and refuses the request', async () => {
    const account = await createAccount(api.test.database, { email: `leak-${randomBytes(4).toString('hex')}@example.com`, planId: 'pro', at: systemClock.now() });
    const leaked = await createAccountKey(api.test.database, { accountId: account.id, name: 'leaked', expiresInDays: null, at: systemClock.now(), ip: null });
    const response = await api.get(`/api/v1/domains?search=${leaked.key}&limit=2`, { headers: { 'x-request-id': 'key-in-search-1', 'x-forwarded-for': '198.51.100.23' } });
    expect(response.status).toBe(400);
    const body = await response.text();
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'api_key_in_query', param: 'search' } });
    expect(body).not.toContain(leaked.key);
    const revoked = await revocation(leaked.id);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect(revoked.reason).toBe('leaked: sent in the URL query parameter search');
    expect((await api.raw('/api/v1/stats', { headers: { authorization: `Bearer ${leaked.key}` } })).status).toBe(401);
    const [line] = accessLines(api, 'key-in-search-1');
    expect(line).toMatchObject({ req: { url: '/api/v1/domains?search=%5Bredacted%5D&limit=2' }, res: { statusCode: 400 } });
    expect(api.logLines.join('\n')).not.toContain(leaked.key.slice(9));
  });

  it('revokes and redacts a key in any parameter or in the path, on the API, the dashboard and the docs', async () => {
    const places = [
      (key: string) => `/api/v1/domains?status=all&q=${key}`,
      (key: string) => `/api/v1/domains/${key}`,
      (key: string) => `/dashboard/sign-in?next=${key}`,
      (key: string) => `/docs?ref=${encodeURIComponent(`see ${key}`)}`,
      (key: string) => `/nowhere/${key}`,
    ];
    for (const place of places) {
      const { id, key } = await createKey(api.test.database, { planId: 'pro', environment: 'live' });
      const path = place(key);
      const response = await api.raw(path, { headers: { 'x-request-id': `key-in-url-${id}` } });
      expect(await response.text(), path).not.toContain(key);
      expect((await revocation(id)).revokedAt, path).not.toBeNull();
      expect(accessLines(api, `key-in-url-${id}`), path).toHaveLength(1);
    }
    expect(api.logLines.join('\n')).not.toMatch(/dix_(live|test)_[0-9A-Za-z]{10}/);
    // a dix_ value that is no valid key is redacted and refused on the API, and nothing is revoked
    const fake = await api.get('/api/v1/domains?search=dix_live_notakeyatall', { headers: { 'x-request-id': 'fake-key-1' } });
    expect(fake.status).toBe(400);
    expect(accessLines(api, 'fake-key-1')[0]).toMatchObject({ req: { url: '/api/v1/domains?search=%5Bredacted%5D' } });
  });

  it('never echoes or logs a key sent as the X-Request-Id, and keeps a plain id of the client', async () => {
    const { key } = await createKey(api.test.database, { planId: 'pro', environment: 'live' });
    const keyed = await api.raw('/api/v1/stats', { headers: { authorization: `Bearer ${key}`, 'x-request-id': key } });
    expect(keyed.status).toBe(200);
    const given = keyed.headers.get('x-request-id');
    expect(given).toMatch(/^req_[0-9a-f-]{36}$/);
    expect(accessLines(api, given!)).toHaveLength(1);
    expect(api.logLines.join('\n')).not.toContain(key);
    const plain = await api.raw('/api/v1/stats', { headers: { authorization: `Bearer ${key}`, 'x-request-id': 'client-trace-0001' } });
    expect(plain.headers.get('x-request-id')).toBe('client-trace-0001');
  });

  it("logs the client address, the key's id and the process id, never the key", async () => {
    const { id, key } = await createKey(api.test.database, { planId: 'pro', environment: 'live' });
    await api.raw('/api/v1/stats', { headers: { authorization: `Bearer ${key}`, 'x-request-id': 'access-fields-1', 'x-forwarded-for': '203.0.113.77' } });
    await api.raw('/api/v1/stats', { headers: { 'x-request-id': 'access-fields-2' } });
    const keyed = accessLines(api, 'access-fields-1');
    expect(keyed).toHaveLength(1);
    expect(keyed[0]).toMatchObject({ req: { remoteAddress: '203.0.113.77' }, keyId: id, pid: process.pid, res: { statusCode: 200 } });
    const [anonymous] = accessLines(api, 'access-fields-2');
    expect(anonymous).toMatchObject({ req: { remoteAddress: '127.0.0.1' }, pid: process.pid, res: { statusCode: 401 } });
    expect(anonymous).not.toHaveProperty('keyId');
    expect(api.logLines.join('\n')).not.toContain(key);
  });
});

describe('headers on every response', () => {
  let plain: RunningApi;
  let secure: RunningApi;
  let failing: RunningApi;
  beforeAll(async () => {
    plain = await startApi('pglite', { dashboard: {} });
    secure = await startApi('pglite', { test: plain.test, dashboard: { publicUrl: 'https://dash.example.com' } });
    // a clock that throws stands for any unexpected failure: the 500s
    const broken = { now: (): Date => { throw new Error('boom'); } };
    failing = await startApi('pglite', { test: plain.test, clock: broken, dashboard: {} });
  });
  afterAll(async () => {
    await failing.close();
    await secure.close();
    await plain.close();
  });

  /** One request of each class of answer, against an instance. */
  const everyClass = (api: RunningApi) => {
    const key = { authorization: `Bearer ${api.apiKey}` };
    // the dashboard's pages are fetched directly: start-api's leak check is for the API's JSON errors
    const page = (path: string, init?: RequestInit) => fetch(`${api.baseUrl}${path}`, init);
    const form = (body: string, origin = api.baseUrl) => ({ method: 'POST', redirect: 'manual' as const, headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body });
    return [
      { what: 'API 200', dashboard: false, send: () => api.raw('/api/v1/stats', { headers: key }) },
      { what: 'API 400', dashboard: false, send: () => api.raw('/api/v1/domains?limit=abc', { headers: key }) },
      { what: 'API 401', dashboard: false, send: () => api.raw('/api/v1/stats') },
      { what: 'API 404', dashboard: false, send: () => api.raw('/api/v1/nope', { headers: key }) },
      { what: 'API 405', dashboard: false, send: () => api.raw('/api/v1/stats', { method: 'POST', headers: key }) },
      { what: 'docs page', dashboard: false, send: () => api.raw('/docs') },
      { what: 'OpenAPI document', dashboard: false, send: () => api.raw('/openapi.json') },
      { what: 'liveness probe', dashboard: false, send: () => api.raw('/livez') },
      { what: 'readiness probe', dashboard: false, send: () => api.raw('/readyz') },
      { what: 'dashboard 200', dashboard: true, send: () => page('/dashboard/sign-in') },
      { what: 'dashboard 303', dashboard: true, send: () => page('/dashboard/keys', { redirect: 'manual' }) },
      { what: 'dashboard 404', dashboard: true, send: () => page('/dashboard/nope') },
      { what: 'dashboard 401', dashboard: true, send: () => page('/dashboard/sign-in', form(`email=nobody%40example.com&password=x`, new URL(api === secure ? 'https://dash.example.com' : api.baseUrl).origin)) },
      { what: 'dashboard 403', dashboard: true, send: () => page('/dashboard/sign-in', form('email=a&password=b', 'https://evil.example')) },
      { what: 'dashboard 413', dashboard: true, send: () => page('/dashboard/sign-in', form(`email=${'x'.repeat(17 * 1024)}`)) },
      { what: 'dashboard stylesheet', dashboard: true, send: () => page('/dashboard/assets/dashboard.css') },
    ];
  };

  it('sends nosniff on every class of answer, no-store on every dashboard answer, and HSTS only when PUBLIC_URL is https', async () => {
    for (const api of [plain, secure]) {
      for (const { what, dashboard, send } of everyClass(api)) {
        const response = await send();
        await response.arrayBuffer();
        expect(response.headers.get('x-content-type-options'), what).toBe('nosniff');
        expect(response.headers.get('strict-transport-security'), what).toBe(api === secure ? HSTS : null);
        if (dashboard) expect(response.headers.get('cache-control'), what).toBe('no-store');
      }
    }
  });

  it('sends the page headers on every HTML page: the dashboard, its password-reset pages, the unsubscribe and confirmation pages and the docs', async () => {
    const account = await createAccount(plain.test.database, { email: `pages-${randomBytes(4).toString('hex')}@example.com`, planId: 'pro', at: new Date() });
    const resetToken = await issueLink(plain.test.database, account.id, new Date());
    const secret = await loadCursorSecret(plain.test.database);
    const unsubscribe = (issued: Date) => `/alerts/unsubscribe/alt_nopage/${unsubscribeToken(secret, 'alt_nopage', issued)}`;
    // confirmation links as the digest worker mails them: the token's hash stored, with when it was sent
    const [confirmToken, expiredToken] = [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')];
    const hashed = (token: string) => createHash('sha256').update(token).digest('hex');
    await plain.test.database.db.insert(digestRecipients).values([
      { address: `fresh-${randomBytes(4).toString('hex')}@example.com`, confirmTokenHash: hashed(confirmToken), confirmSentAt: new Date() },
      { address: `old-${randomBytes(4).toString('hex')}@example.com`, confirmTokenHash: hashed(expiredToken), confirmSentAt: new Date(Date.now() - 8 * 86_400_000) },
    ]);
    const form = { method: 'POST', redirect: 'manual' as const, headers: { 'content-type': 'application/x-www-form-urlencoded', origin: plain.baseUrl }, body: 'password=short' };
    const pages: { what: string; path: string; init?: RequestInit; status: number; referrer: string }[] = [
      { what: 'sign-in', path: '/dashboard/sign-in', status: 200, referrer: 'same-origin' },
      { what: 'forgot password', path: '/dashboard/forgot-password', status: 200, referrer: 'same-origin' },
      { what: 'set password', path: `/dashboard/set-password/${resetToken}`, status: 200, referrer: 'same-origin' },
      { what: 'set password refused', path: `/dashboard/set-password/${resetToken}`, init: form, status: 400, referrer: 'same-origin' },
      { what: 'set password, spent link', path: `/dashboard/set-password/${'x'.repeat(43)}`, status: 410, referrer: 'same-origin' },
      { what: 'unsubscribe prompt', path: unsubscribe(new Date()), status: 200, referrer: 'no-referrer' },
      { what: 'unsubscribe done', path: unsubscribe(new Date()), init: { method: 'POST' }, status: 200, referrer: 'no-referrer' },
      { what: 'unsubscribe expired', path: unsubscribe(new Date(Date.now() - 91 * 86_400_000)), status: 410, referrer: 'no-referrer' },
      { what: 'unsubscribe not valid', path: '/alerts/unsubscribe/alt_nopage/1.forged', status: 404, referrer: 'no-referrer' },
      { what: 'confirmation prompt', path: `/alerts/confirm-email/${confirmToken}`, status: 200, referrer: 'no-referrer' },
      { what: 'confirmation done', path: `/alerts/confirm-email/${confirmToken}`, init: { method: 'POST' }, status: 200, referrer: 'no-referrer' },
      { what: 'confirmation used', path: `/alerts/confirm-email/${confirmToken}`, status: 404, referrer: 'no-referrer' },
      { what: 'confirmation expired', path: `/alerts/confirm-email/${expiredToken}`, status: 410, referrer: 'no-referrer' },
    ];
    for (const { what, path, init, status, referrer } of pages) {
      const response = await fetch(`${plain.baseUrl}${path}`, init);
      expect(response.status, what).toBe(status);
      expect(response.headers.get('content-type'), what).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy'), what).toBe("default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'");
      expect(response.headers.get('x-frame-options'), what).toBe('DENY');
      expect(response.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), what).toBe(referrer);
      expect(response.headers.get('cache-control'), what).toBe('no-store');
      await response.arrayBuffer();
    }
    const docs = await fetch(`${plain.baseUrl}/docs`);
    expect(docs.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect([docs.headers.get('x-frame-options'), docs.headers.get('x-content-type-options'), docs.headers.get('referrer-policy')]).toEqual(['DENY', 'nosniff', 'no-referrer']);
    await docs.arrayBuffer();
  });

  it("writes a mailed link's token nowhere in the lines of a failure on its page", async () => {
    const token = `${Math.floor(Date.now() / 1000).toString(36)}.Zm9yZ2VkLXRva2VuLXRoYXQtZmFpbHM`;
    const confirm = randomBytes(32).toString('base64url');
    for (const path of [`/alerts/unsubscribe/alt_failing/${token}`, `/alerts/confirm-email/${confirm}`]) {
      const response = await fetch(`${failing.baseUrl}${path}`);
      expect(response.status, path).toBe(500);
      await response.arrayBuffer();
    }
    const lines = failing.logLines.filter((line) => line.includes('/alerts/'));
    expect(lines.some((line) => line.includes('"path":"/alerts/unsubscribe/alt_failing/[redacted]"'))).toBe(true);
    expect(lines.some((line) => line.includes('"path":"/alerts/confirm-email/[redacted]"'))).toBe(true);
    expect(failing.logLines.join('\n')).not.toContain(token.split('.')[1]);
    expect(failing.logLines.join('\n')).not.toContain(confirm);
  });

  it('sends them on a 500 too', async () => {
    for (const path of ['/api/v1/stats', '/dashboard/sign-in']) {
      const response = await (path.startsWith('/api') ? failing.get(path) : fetch(`${failing.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: failing.baseUrl }, body: 'email=a%40example.com&password=x' }));
      expect(response.status, path).toBe(500);
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      await response.arrayBuffer();
    }
  });
});

describe.skipIf(testRedisUrl() === undefined)('the sign-in limiter in Redis', () => {
  let redis: OwnRedis;
  let client: Redis;
  let limiter: SignInLimiter;
  let api: RunningApi;
  beforeAll(async () => {
    // a Redis of this test's own: its memory is this test's alone
    redis = await OwnRedis.start();
    client = new Redis(redis.url);
    limiter = SignInLimiter.redis(redis.url, 'di:signin');
    expect(await limiter.connected(10_000)).toBe(true);
    api = await startApi('pglite', { dashboard: { signInLimiter: limiter }, overrides: { trustProxy: ['loopback'] } });
  });
  afterAll(async () => {
    await api?.close();
    await limiter?.close();
    client?.disconnect();
    await redis?.stop();
  });

  // The memory the stored keys hold, by MEMORY USAGE of each: INFO's used_memory also counts the
  // connections' query and output buffers, which grow and shrink with traffic (used_memory 19 KB
  // apart once on a loaded runner, mem_clients_normal 21 KB up over one run) and hold nothing a
  // refused sign-in could leave behind.
  const storedBytes = async () => {
    let bytes = 0;
    for (const name of await client.keys('*')) bytes += Number(await client.memory('USAGE', name)) || 0;
    return bytes;
  };
  const signIn = (address: string, email: string, password = 'not the password at all') =>
    new DashboardClient(api.baseUrl, address).post('/dashboard/sign-in', { email, password });

  it('refuses 200 sign-ins with 16 KB emails with 400 before any counter: Redis memory stays within a few KB', async () => {
    const before = { keys: await client.dbsize(), memory: await storedBytes() };
    for (let batch = 0; batch < 10; batch += 1) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => signIn(`198.18.50.${i + 1}`, `${randomBytes(8).toString('hex')}${'a'.repeat(16_000)}@example.com`)),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(400);
        expect(await answer.text()).toContain('An email address has at most 254 characters.');
      }
    }
    expect(await client.dbsize()).toBe(before.keys);
    expect(Math.abs((await storedBytes()) - before.memory)).toBeLessThan(8 * 1024);
  });

  it('keeps no email in Redis, only fixed-size hashes, and creates no per-account state for a refused address', async () => {
    const address = '198.18.60.1';
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i += 1) expect((await signIn(address, `guess-${i}@example.com`)).status).toBe(401);
    const keys = await client.keys('*');
    expect(keys.some((name) => name.includes('@') || name.includes('example'))).toBe(false);
    for (const name of keys) expect(name.length).toBeLessThanOrEqual('di:signin:account-address:'.length + 43);
    const before = { keys: await client.dbsize(), memory: await storedBytes() };
    for (let i = 0; i < 200; i += 1) {
      const refused = await signIn(address, `refused-${i}-${randomBytes(8).toString('hex')}@example.com`);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(await client.dbsize()).toBe(before.keys);
    expect(Math.abs((await storedBytes()) - before.memory)).toBeLessThan(8 * 1024);
  });

  it("does not let anyone's failures lock the owner out, and refuses one address over its limit while another is not", async () => {
    const account = await createAccount(api.test.database, { email: 'owner@example.com', planId: 'free', at: systemClock.now() });
    expect((await new DashboardClient(api.baseUrl, '198.18.70.1').post(`/dashboard/set-password/${await issueLink(api.test.database, account.id, systemClock.now())}`, { password: PASSWORD })).status).toBe(303);
    for (let i = 0; i < 5; i += 1) expect((await signIn(`198.18.71.${i + 1}`, 'owner@example.com')).status).toBe(401);
    expect((await signIn('198.18.71.6', 'owner@example.com', PASSWORD)).status).toBe(303);
    // one address fails until it is refused, the right password too; the owner elsewhere is not
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress; i += 1) expect((await signIn('198.18.72.1', 'owner@example.com')).status).toBe(401);
    const refused = await signIn('198.18.72.1', 'owner@example.com', PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(SIGN_IN_LIMITS.windowSeconds - 60);
    expect((await signIn('198.18.72.2', 'owner@example.com', PASSWORD)).status).toBe(303);
  });
});
