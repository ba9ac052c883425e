import { createHash, randomBytes } from 'node:crypto';
import { accounts, apiKeys, eq, keyReveals, plans, sql, type Database } from '@domain-index/db';
import { testEngines } from '@domain-index/db/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, disableAccount, issueLink, setAccountPlan } from '@domain-index/accounts/account-store';
import { SIGN_IN_LIMITS, SignInLimiter } from '@domain-index/api/dashboard/sign-in-limiter';
import { RedisRateLimiter } from '@domain-index/api/ratelimit/redis-rate-limiter';
import type { Clock } from '@domain-index/runtime/clock';
import { argon2Passwords, type PasswordHasher } from '@domain-index/accounts/passwords';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '@domain-index/accounts/sessions';
import { listEnvelopeSchema } from '@domain-index/contract';
import { buildFixtureIndex, FIXTURE_NOW, FIXTURE_SOURCES } from './support/fixture-index';
import { DashboardClient, formTokenOf, listRows, postNewKey, postRotation, shownKey } from '@domain-index/test-support/dashboard-client';
import { testRedisUrl } from '@domain-index/test-support/redis';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

/** A clock the test moves, shared by both instances: expiries and overlaps without waiting. */
class TestClock implements Clock {
  // the fixture index's "now", where its listings are current
  at = FIXTURE_NOW;
  now(): Date {
    return this.at;
  }
  advance(ms: number): void {
    this.at = new Date(this.at.getTime() + ms);
  }
}

const PASSWORD = 'correct horse battery staple';
const text = (response: Response) => response.text();

let addresses = 0;
/** A client address of its own for each simulated person, so limits and audit entries are theirs alone. */
const nextAddress = () => {
  addresses += 1;
  return `198.18.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
};

/** The rows of an account's audit log page: event, key (name and prefix), IP. */
async function auditEntries(browser: DashboardClient): Promise<{ event: string; key: string; ip: string }[]> {
  return listRows(await text(await browser.get('/dashboard/audit'))).map((row) => ({ event: row.Event!, key: row.Key!, ip: row.IP! }));
}

for (const { engine, skip } of testEngines()) {
  // On PostgreSQL two instances share the database and, through Redis, the sign-in limiter;
  // a browser's requests alternate between them as a balancer would send them.
  const redisUrl = engine === 'postgres' && !skip ? testRedisUrl() : undefined;
  describe.skipIf(skip || (engine === 'postgres' && redisUrl === undefined))(`the key dashboard on ${engine}`, () => {
    const clock = new TestClock();
    let a: RunningApi;
    let b: RunningApi;
    let database: Database;
    const limiters: SignInLimiter[] = [];
    // Argon2id, counted: how often the instances really hash and verify a password.
    const counted = { hashes: 0, verifications: 0 };
    const passwords: PasswordHasher = {
      hash: (password) => {
        counted.hashes += 1;
        return argon2Passwords.hash(password);
      },
      verify: (stored, password) => {
        counted.verifications += 1;
        return argon2Passwords.verify(stored, password);
      },
    };
    // Each instance has its own limiter object; with Redis they count in the same keys.
    const prefix = `di:test:signin:${randomBytes(4).toString('hex')}`;
    const limiter = () => {
      const made = redisUrl === undefined ? SignInLimiter.inMemory() : SignInLimiter.redis(redisUrl, prefix);
      limiters.push(made);
      return made;
    };

    // Both sit behind a proxy on loopback (TRUST_PROXY), as behind a balancer: each simulated
    // person sends its own X-Forwarded-For. `a` names the proxy, `b` counts one hop.
    // The fixture index gives searches rows to return, so usage counts real rows.
    // With two instances, the API's rate limit is counted in Redis, as serve does with REDIS_URL.
    const rateLimiter = redisUrl === undefined ? undefined : new RedisRateLimiter(redisUrl, `di:test:rl:${randomBytes(4).toString('hex')}`);
    const shared = rateLimiter === undefined ? {} : { rateLimiter };
    beforeAll(async () => {
      const sources = FIXTURE_SOURCES;
      a = await startApi(engine, { clock, sources, dashboard: { signInLimiter: limiter(), passwords, signupOpen: true }, overrides: { trustProxy: ['loopback'], ...shared } });
      b = engine === 'postgres' ? await startApi(engine, { clock, sources, test: a.test, dashboard: { signInLimiter: limiter(), passwords, signupOpen: true }, overrides: { trustProxy: 1, ...shared } }) : a;
      database = a.test.database;
      await buildFixtureIndex(database);
      // connected before the first sign-in, as serve does before it listens
      for (const made of limiters) expect(await made.connected(10_000)).toBe(true);
      if (rateLimiter !== undefined) expect(await rateLimiter.connected(10_000)).toBe(true);
    });
    /** A browser of a person with an address of its own. */
    const visitor = (api: RunningApi) => new DashboardClient(api.baseUrl, nextAddress());
    afterAll(async () => {
      if (b !== a) await b.close();
      await a.close();
      await Promise.all(limiters.map((made) => made.close()));
      await rateLimiter?.close();
    });

    /** A new account through the operator's path, and a browser that has set its password. */
    async function signedUpBrowser(plan = 'pro'): Promise<{ browser: DashboardClient; accountId: string; email: string }> {
      const email = `owner-${randomBytes(4).toString('hex')}@example.com`;
      const account = await createAccount(database, { email, planId: plan, at: clock.now() });
      const token = await issueLink(database, account.id, clock.now());
      const browser = visitor(a);
      const form = await browser.get(`/dashboard/set-password/${token}`);
      expect(form.status).toBe(200);
      expect(await text(form)).toContain('Set password');
      const set = await browser.post(`/dashboard/set-password/${token}`, { password: PASSWORD });
      expect(set.status).toBe(303);
      expect(set.headers.get('location')).toBe('/dashboard/keys');
      return { browser, accountId: account.id, email };
    }

    async function createdKey(browser: DashboardClient, name: string, expires = 'never'): Promise<string> {
      const { posted, page: response } = await postNewKey(browser, { name, expires });
      // post, redirect, get: a reload of the page it lands on posts nothing
      expect(posted.status).toBe(303);
      expect(posted.headers.get('location')).toMatch(/^\/dashboard\/keys\/new\/new_[\w-]+$/);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const page = await text(response);
      expect(page).toContain('it will not be shown again');
      expect(page).toMatch(/<button type="button" data-copy="new-key">Copy<\/button>/);
      const key = shownKey(page);
      expect(key).toBeDefined();
      return key!;
    }

    const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
    /** The id of a key, found by its hash as authentication finds it. */
    const keyIdOf = async (key: string) => (await database.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyHash, sha256(key))))[0]!.id;

    const apiStatus = async (api: RunningApi, key: string) => (await api.get('/api/v1/domains', { headers: { authorization: `Bearer ${key}` } })).status;

    it('sets a password through a one-time link that works once, signs in, and ends the session on sign-out', async () => {
      const email = `link-${randomBytes(4).toString('hex')}@example.com`;
      const account = await createAccount(database, { email, planId: 'free', at: clock.now() });
      const token = await issueLink(database, account.id, clock.now());
      const browser = visitor(a);
      const short = await browser.post(`/dashboard/set-password/${token}`, { password: 'short' });
      expect(short.status).toBe(400);
      expect(await text(short)).toContain('at least 12 characters');
      const set = await browser.post(`/dashboard/set-password/${token}`, { password: PASSWORD });
      expect(set.status).toBe(303);
      const cookie = set.headers.getSetCookie().join('\n');
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect((await browser.get(`/dashboard/set-password/${token}`)).status).toBe(410);
      expect((await browser.post(`/dashboard/set-password/${token}`, { password: PASSWORD })).status).toBe(410);
      // the session works on the other instance too, and sign-out ends it on the server
      const keysPage = await browser.on(b.baseUrl).get('/dashboard/keys');
      expect(keysPage.status).toBe(200);
      expect(await text(keysPage)).toContain(email);
      const stolen = browser.cookieHeader;
      expect((await browser.post('/dashboard/sign-out', {})).headers.get('location')).toBe('/dashboard/sign-in');
      const replayed = await fetch(`${b.baseUrl}/dashboard/keys`, { redirect: 'manual', headers: { cookie: stolen } });
      expect(replayed.status).toBe(303);
      expect(replayed.headers.get('location')).toBe('/dashboard/sign-in');
      // signing in issues a new session
      const signIn = await browser.post('/dashboard/sign-in', { email, password: PASSWORD });
      expect(signIn.status).toBe(303);
      expect(browser.cookieHeader).not.toBe(stolen);
      expect((await browser.get('/dashboard/keys')).status).toBe(200);
    });

    it('answers an unknown email and a wrong password identically', async () => {
      const { email } = await signedUpBrowser();
      const stranger = `nobody-${randomBytes(4).toString('hex')}@example.com`;
      const browser = visitor(b);
      const wrong = await browser.post('/dashboard/sign-in', { email, password: 'not the password at all' });
      const unknown = await browser.post('/dashboard/sign-in', { email: stranger, password: 'not the password at all' });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect((await text(wrong)).replace(email, 'EMAIL')).toBe((await text(unknown)).replace(stranger, 'EMAIL'));
      expect(wrong.headers.getSetCookie()).toEqual([]);
    });

    it('limits failed sign-ins per account and address, counted across instances, even with the right password after; another address signs in', async () => {
      const { email } = await signedUpBrowser();
      const address = nextAddress();
      for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress; i += 1) {
        const api = i % 2 === 0 ? a : b;
        expect((await new DashboardClient(api.baseUrl, address).post('/dashboard/sign-in', { email, password: `wrong ${i} password` })).status).toBe(401);
      }
      const limited = await new DashboardClient(a.baseUrl, address).post('/dashboard/sign-in', { email: email.toUpperCase(), password: PASSWORD });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await text(limited)).toContain('Too many failed attempts from your address');
      // the owner, from an address that has not failed, is not refused because of the guesses
      expect((await visitor(b).post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
    });

    it('lets the owner sign in from a sixth address after five wrong passwords from five others', async () => {
      const { email } = await signedUpBrowser();
      for (let i = 0; i < 5; i += 1) {
        expect((await visitor(i % 2 === 0 ? a : b).post('/dashboard/sign-in', { email, password: `wrong guess number ${i}` })).status).toBe(401);
      }
      const owner = visitor(a);
      const signIn = await owner.post('/dashboard/sign-in', { email, password: PASSWORD });
      expect(signIn.status).toBe(303);
      expect(signIn.headers.get('retry-after')).toBeNull();
      expect((await owner.get('/dashboard/keys')).status).toBe(200);
    });

    it('takes the client address from X-Forwarded-For only when TRUST_PROXY names the proxy', async () => {
      const { browser, email } = await signedUpBrowser();
      expect((await browser.post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
      expect((await auditEntries(browser)).find((entry) => entry.event === 'Signed in')?.ip).toBe(browser.address);
      // an instance that trusts no proxy sees the connection's address, whatever the header says
      const direct = await startApi(engine, { clock, test: a.test, dashboard: {} });
      try {
        const forged = new DashboardClient(direct.baseUrl, '203.0.113.50');
        expect((await forged.post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
        const entries = await auditEntries(forged);
        expect(entries.filter((entry) => entry.event === 'Signed in').map((entry) => entry.ip)).toEqual(['127.0.0.1', browser.address]);
        expect(entries.map((entry) => entry.ip)).not.toContain('203.0.113.50');
      } finally {
        await direct.close();
      }
    });

    it('counts a sign-in attempt before checking its password: parallel guesses get no more verifications than the limit', async () => {
      const { email } = await signedUpBrowser();
      const before = counted.verifications;
      // from one address at once, on both instances: the account-and-address limit applies first
      const address = nextAddress();
      const attempts = await Promise.all(
        Array.from({ length: 40 }, (_, i) => new DashboardClient((i % 2 === 0 ? a : b).baseUrl, address).post('/dashboard/sign-in', { email, password: `wrong guess ${i}` })),
      );
      expect(counted.verifications - before).toBe(SIGN_IN_LIMITS.perAccountAndAddress);
      expect(attempts.filter((response) => response.status === 401)).toHaveLength(SIGN_IN_LIMITS.perAccountAndAddress);
      const limited = attempts.filter((response) => response.status === 429);
      expect(limited).toHaveLength(40 - SIGN_IN_LIMITS.perAccountAndAddress);
      for (const response of limited) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('limits sign-in attempts per client address, whatever the emails, the address being the one the trusted proxy reports', async () => {
      const address = nextAddress();
      const stranger = (i: number) => `stranger-${i}-${randomBytes(4).toString('hex')}@example.com`;
      const attempts = await Promise.all(
        Array.from({ length: SIGN_IN_LIMITS.perAddress + 1 }, (_, i) => new DashboardClient((i % 2 === 0 ? a : b).baseUrl, address).post('/dashboard/sign-in', { email: stranger(i), password: 'nobody has this password' })),
      );
      expect(attempts.filter((response) => response.status === 401)).toHaveLength(SIGN_IN_LIMITS.perAddress);
      expect(attempts.filter((response) => response.status === 429)).toHaveLength(1);
      // the address stays refused, even with an account's right password; another address is not
      const { email } = await signedUpBrowser();
      const limited = await new DashboardClient(b.baseUrl, address).post('/dashboard/sign-in', { email, password: PASSWORD });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await visitor(a).post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
    });

    it('without TRUST_PROXY counts every attempt against the connection, whatever X-Forwarded-For says', async () => {
      const direct = await startApi(engine, { clock, test: a.test, dashboard: {} });
      try {
        const statuses = [];
        for (let i = 0; i <= SIGN_IN_LIMITS.perAddress; i += 1) {
          const forged = new DashboardClient(direct.baseUrl, nextAddress());
          statuses.push((await forged.post('/dashboard/sign-in', { email: `forger-${i}@example.com`, password: 'nobody has this password' })).status);
        }
        expect(statuses).toEqual([...Array<number>(SIGN_IN_LIMITS.perAddress).fill(401), 429]);
      } finally {
        await direct.close();
      }
    });

    // PostgreSQL only: it holds a lock from a second connection, which PGlite (one) cannot open
    if (engine === 'postgres') it('answers a wrong password before writing its audit entry, so it takes no longer than an unknown email', async () => {
      const { browser: owner, email } = await signedUpBrowser();
      const driver = database.driver;
      if (driver.kind !== 'postgres') throw new Error('needs PostgreSQL');
      // Another connection holds a lock that makes every audit insert wait until released.
      let locked!: () => void;
      let release!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      const holding = driver.client.begin(async (tx) => {
        await tx`lock table audit_events in share mode`;
        locked();
        await released;
      });
      try {
        await isLocked;
        const answer = visitor(a).post('/dashboard/sign-in', { email, password: 'not the password at all' });
        expect(await Promise.race([answer.then((response) => response.status), sleep(5_000).then(() => 'no answer within 5 s')])).toBe(401);
      } finally {
        release();
        await holding;
      }
      await vi.waitFor(async () => expect((await auditEntries(owner)).map((entry) => entry.event)).toContain('Failed sign-in'), { timeout: 5_000, interval: 50 });
    });

    it('checks a set-password link before hashing anything, and limits set-password posts per client address', async () => {
      const address = nextAddress();
      const from = (api: RunningApi) => new DashboardClient(api.baseUrl, address);
      const before = counted.hashes;
      const unknown = await from(a).post(`/dashboard/set-password/${randomBytes(32).toString('base64url')}`, { password: PASSWORD });
      expect(unknown.status).toBe(410);
      expect(await text(unknown)).toContain('This link no longer works');
      for (let i = 1; i < SIGN_IN_LIMITS.newPasswordsPerAddress; i += 1) {
        expect((await from(i % 2 === 0 ? a : b).post(`/dashboard/set-password/made-up-${i}`, { password: PASSWORD })).status).toBe(410);
      }
      // a real link is refused from this address now, still before anything is hashed
      const account = await createAccount(database, { email: `limited-${randomBytes(4).toString('hex')}@example.com`, planId: 'free', at: clock.now() });
      const token = await issueLink(database, account.id, clock.now());
      const limited = await from(b).post(`/dashboard/set-password/${token}`, { password: PASSWORD });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await text(limited)).toContain('Too many attempts from your address');
      expect(counted.hashes).toBe(before);
      // and the link still works from another address
      expect((await visitor(a).post(`/dashboard/set-password/${token}`, { password: PASSWORD })).status).toBe(303);
      expect(counted.hashes).toBe(before + 1);
    });

    it('signs a person up when the operator opened it (a free account, on every instance), with one answer whether or not the email has an account', async () => {
      const email = `New-${randomBytes(4).toString('hex')}@Example.com`;
      const person = visitor(a);
      expect(await text(await person.get('/dashboard/sign-up'))).toContain('>Create account</button>');
      const made = await person.post('/dashboard/sign-up', { email, password: PASSWORD });
      expect(made.status).toBe(303);
      expect(made.headers.get('location')).toBe('/dashboard/sign-in?notice=signed-up');
      expect(made.headers.getSetCookie()).toEqual([]);
      const told = await text(await person.follow(made));
      expect(told).toContain('If that email had no account, it has one now');
      expect(told).not.toContain(email);
      expect((await person.on(b.baseUrl).post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
      const keys = await text(await person.get('/dashboard/keys'));
      expect(keys).toContain(email.toLowerCase());
      expect(keys).toContain('Plan <strong>free</strong>');
      // the same email again, with another password: the same answer, and nothing changed
      const again = await visitor(b).post('/dashboard/sign-up', { email: email.toLowerCase(), password: 'another long pass phrase' });
      expect(again.status).toBe(made.status);
      expect(again.headers.get('location')).toBe(made.headers.get('location'));
      expect(again.headers.getSetCookie()).toEqual([]);
      expect(await text(again)).toBe(await text(await visitor(a).post('/dashboard/sign-up', { email: `other-${randomBytes(4).toString('hex')}@example.com`, password: PASSWORD })));
      expect((await visitor(a).post('/dashboard/sign-in', { email, password: 'another long pass phrase' })).status).toBe(401);
      expect(await database.db.$count(accounts, eq(accounts.email, email.toLowerCase()))).toBe(1);
      // the owner's audit log says someone tried
      await vi.waitFor(async () => expect((await auditEntries(person)).map((entry) => entry.event)).toContain('Sign-up tried with this email'), { timeout: 5_000, interval: 20 });
      // a common password is refused before anything is hashed
      const beforeCommon = counted.hashes;
      const common = await visitor(a).post('/dashboard/sign-up', { email: `common-${randomBytes(4).toString('hex')}@example.com`, password: 'password1234' });
      expect(common.status).toBe(400);
      expect(await text(common)).toContain('too common or too easy to guess');
      expect(counted.hashes).toBe(beforeCommon);
      // posts from one address count, whatever they hold; past the limit nothing is hashed or made
      const address = nextAddress();
      const before = counted.hashes;
      const refused = await Promise.all(
        Array.from({ length: SIGN_IN_LIMITS.newPasswordsPerAddress }, (_, i) => new DashboardClient((i % 2 === 0 ? a : b).baseUrl, address).post('/dashboard/sign-up', { email: `short-${i}@example.com`, password: 'short' })),
      );
      expect(refused.map((response) => response.status)).toEqual(Array<number>(SIGN_IN_LIMITS.newPasswordsPerAddress).fill(400));
      const late = `late-${randomBytes(4).toString('hex')}@example.com`;
      const limited = await new DashboardClient(b.baseUrl, address).post('/dashboard/sign-up', { email: late, password: PASSWORD });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(counted.hashes).toBe(before);
      expect(await database.db.$count(accounts, eq(accounts.email, late))).toBe(0);
    });

    it('refuses a form sent from another site', async () => {
      const { browser } = await signedUpBrowser();
      const foreign = await browser.post('/dashboard/keys', { name: 'forged', expires: 'never' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
      expect(foreign.status).toBe(403);
      const crossSite = await browser.post('/dashboard/keys', { name: 'forged', expires: 'never' }, { origin: a.baseUrl, 'sec-fetch-site': 'cross-site' });
      expect(crossSite.status).toBe(403);
      // either header alone is enough to refuse (an older browser sends only Origin)
      const originAlone = await browser.on(b.baseUrl).post('/dashboard/keys', { name: 'forged', expires: 'never' }, { origin: 'https://evil.example', 'sec-fetch-site': undefined });
      expect(originAlone.status).toBe(403);
      expect(await text(originAlone)).toContain('sent from another site');
      const siteAlone = await browser.post('/dashboard/keys', { name: 'forged', expires: 'never' }, { origin: undefined, 'sec-fetch-site': 'cross-site' });
      expect(siteAlone.status).toBe(403);
      expect(await text(await browser.get('/dashboard/keys'))).not.toContain('forged');
      // a page on another name for this server (DNS rebinding) sends its own Host and Origin, which agree
      const rebound = a.baseUrl.replace('127.0.0.1', 'localhost');
      const rebinding = await fetch(`${rebound}/dashboard/keys`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: browser.cookieHeader, origin: rebound, 'sec-fetch-site': 'same-origin' },
        body: 'name=rebound&expires=never',
      });
      expect(rebinding.status).toBe(403);
      // and PUBLIC_URL's origin alone is let through
      const token = formTokenOf(await text(await browser.get('/dashboard/keys')));
      expect((await browser.post('/dashboard/keys', { form_token: token, name: 'own origin', expires: 'never' }, { 'sec-fetch-site': undefined })).status).toBe(303);
    });

    it('makes the session cookie Secure and __Host- when PUBLIC_URL is https, and reads only that one there', async () => {
      const secure = await startApi(engine, { clock, test: a.test, dashboard: { publicUrl: 'https://dash.example.com' } });
      try {
        const account = await createAccount(database, { email: `secure-${randomBytes(4).toString('hex')}@example.com`, planId: 'free', at: clock.now() });
        const browser = new DashboardClient(secure.baseUrl, undefined, 'https://dash.example.com');
        const set = await browser.post(`/dashboard/set-password/${await issueLink(database, account.id, clock.now())}`, { password: PASSWORD });
        expect(set.status).toBe(303);
        const cookies = set.headers.getSetCookie();
        expect(cookies).toHaveLength(1);
        expect(cookies[0]).toMatch(/^__Host-di_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
        expect((await browser.get('/dashboard/keys')).status).toBe(200);
        // the same session under the plain name is not read on an https service
        const value = /^__Host-di_session=([^;]+)/.exec(cookies[0]!)![1]!;
        expect((await fetch(`${secure.baseUrl}/dashboard/keys`, { redirect: 'manual', headers: { cookie: `di_session=${value}` } })).status).toBe(303);
        const out = await browser.post('/dashboard/sign-out', {});
        expect(out.headers.getSetCookie()).toEqual(['__Host-di_session=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax']);
      } finally {
        await secure.close();
      }
      // over http: no Secure, no prefix, the dashboard's path only
      const plain = await visitor(a).post(`/dashboard/set-password/${await issueLink(database, (await signedUpBrowser()).accountId, clock.now())}`, { password: PASSWORD });
      expect(plain.headers.getSetCookie()[0]).toMatch(/^di_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/dashboard; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
    });

    it('ends a session after 30 minutes without a request, while use keeps it alive', async () => {
      const { browser } = await signedUpBrowser();
      // 87 minutes of use, a request every 29 minutes, on either instance
      for (let i = 0; i < 3; i += 1) {
        clock.advance(SESSION_IDLE_MS - 60_000);
        expect((await browser.on(i % 2 === 0 ? a.baseUrl : b.baseUrl).get('/dashboard/keys')).status).toBe(200);
      }
      clock.advance(SESSION_IDLE_MS);
      const idle = await browser.on(b.baseUrl).get('/dashboard/keys');
      expect(idle.status).toBe(303);
      expect(idle.headers.get('location')).toBe('/dashboard/sign-in');
    });

    it('ends a session 12 hours after sign-in, however busy', async () => {
      const { browser } = await signedUpBrowser();
      const step = 20 * 60_000;
      let elapsed = 0;
      for (; elapsed + step < SESSION_ABSOLUTE_MS; elapsed += step) {
        clock.advance(step);
        expect((await browser.get('/dashboard/keys')).status).toBe(200);
      }
      clock.advance(SESSION_ABSOLUTE_MS - elapsed);
      expect((await browser.on(b.baseUrl).get('/dashboard/keys')).headers.get('location')).toBe('/dashboard/sign-in');
    });

    it('expires keys made for 30 and 90 days at exactly that time', async () => {
      const { browser } = await signedUpBrowser();
      const day = 86_400_000;
      const made = clock.now().getTime();
      const month = await createdKey(browser, 'a month', '30');
      const quarter = await createdKey(browser, 'a quarter', '90');
      const expiry = async (key: string) => (await database.db.select({ expiresAt: apiKeys.expiresAt }).from(apiKeys).where(eq(apiKeys.keyHash, sha256(key))))[0]!.expiresAt;
      expect(await expiry(month)).toEqual(new Date(made + 30 * day));
      expect(await expiry(quarter)).toEqual(new Date(made + 90 * day));
      const list = await text(await browser.get('/dashboard/keys'));
      const until = (days: number) => `Expires on ${new Date(made + days * day).toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
      expect(list).toContain(until(30));
      expect(list).toContain(until(90));
      clock.advance(30 * day - 1_000);
      expect(await apiStatus(a, month)).toBe(200);
      clock.advance(1_000);
      expect(await apiStatus(b, month)).toBe(401);
      expect(await apiStatus(b, quarter)).toBe(200);
      clock.advance(60 * day - 1_000);
      expect(await apiStatus(a, quarter)).toBe(200);
      clock.advance(1_000);
      expect(await apiStatus(a, quarter)).toBe(401);
    });

    it('shows a new key once: no later page has it, and the database has only its SHA-256', async () => {
      const { browser } = await signedUpBrowser();
      const key = await createdKey(browser, 'nightly export');
      const id = await keyIdOf(key);
      expect(await apiStatus(a, key)).toBe(200);
      expect(await apiStatus(b, key)).toBe(200);
      // the key, and the secret part after the prefix the list shows
      const secrets = (shown: string) => [shown, shown.slice(14)];
      const everyPage = (keyId: string, active: boolean) => [
        '/dashboard/keys',
        `/dashboard/keys/${keyId}/usage`,
        `/dashboard/keys/${keyId}/requests`,
        `/dashboard/keys/${keyId}/revoke`,
        ...(active ? [`/dashboard/keys/${keyId}/rotate`] : []),
        '/dashboard/audit',
      ];
      const expectNowhere = async (shown: string[], keyIds: { id: string; active: boolean }[], also: string[] = []) => {
        for (const api of [a, b]) {
          for (const path of [...keyIds.flatMap(({ id, active }) => everyPage(id, active)), ...also]) {
            const response = await browser.on(api.baseUrl).get(path);
            expect(response.status, path).toBe(200);
            const page = await text(response);
            for (const secret of shown.flatMap(secrets)) expect(page, path).not.toContain(secret);
          }
        }
      };
      const list = await text(await browser.on(b.baseUrl).get('/dashboard/keys'));
      expect(list).toContain('nightly export');
      expect(list).toContain(`<code class="detail">${key.slice(0, 14)}…</code>`);
      expect(await apiStatus(a, key)).toBe(200);
      // the page that showed it, reloaded, shows it no more (nor makes another key)
      const [created] = await database.db.select({ id: keyReveals.id }).from(keyReveals).where(eq(keyReveals.keyId, id));
      await expectNowhere([key], [{ id, active: true }], [`/dashboard/keys/new/${created!.id}`]);

      // rotated: the successor is shown once, and then nowhere either
      const rotated = await postRotation(browser, id, '24h');
      const successor = shownKey(await text(rotated.page))!;
      const successorId = await keyIdOf(successor);
      await expectNowhere(
        [key, successor],
        [
          { id, active: false },
          { id: successorId, active: true },
        ],
        [rotated.posted.headers.get('location')!],
      );

      // in the database: the hash of each, and neither key in any text column of any table
      for (const [shown, keyId] of [
        [key, id],
        [successor, successorId],
      ] as const) {
        const [row] = await database.db.select({ keyHash: apiKeys.keyHash, displayPrefix: apiKeys.displayPrefix }).from(apiKeys).where(eq(apiKeys.id, keyId));
        expect(row).toEqual({ keyHash: sha256(shown), displayPrefix: shown.slice(0, 14) });
      }
      const columns = await database.rows<{ table_name: string; column_name: string }>(
        sql`select table_name, column_name from information_schema.columns where table_schema = current_schema() and data_type in ('text', 'character varying', 'jsonb', 'json')`,
      );
      expect(columns).toEqual(expect.arrayContaining([expect.objectContaining({ table_name: 'api_keys' }), expect.objectContaining({ table_name: 'audit_events' })]));
      const anySecret = (column: string) => sql.join([key, successor].flatMap(secrets).map((secret) => sql`strpos(${sql.identifier(column)}::text, ${secret}) > 0`), sql` or `);
      for (const { table_name: table, column_name: column } of columns) {
        const found = await database.rows<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(table)} where ${anySecret(column)}`);
        expect(found[0]!.n, `${table}.${column}`).toBe(0);
      }
    });

    it('makes one key for one form, however often and on whichever instances it is posted, at once or after', async () => {
      const { browser, accountId } = await signedUpBrowser();
      const keysOf = async () => (await database.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.accountId, accountId))).map((row) => row.id);
      const token = formTokenOf(await text(await browser.get('/dashboard/keys')));
      const form = { form_token: token, name: 'posted five times', expires: 'never' };
      // five posts of one form at once, on both instances: one key, and every answer leads to its page
      const posts = await Promise.all([a, b, a, b, a].map((api) => browser.on(api.baseUrl).post('/dashboard/keys', form)));
      expect(posts.map((response) => response.status)).toEqual([303, 303, 303, 303, 303]);
      expect(new Set(posts.map((response) => response.headers.get('location'))).size).toBe(1);
      expect(await keysOf()).toHaveLength(1);
      // that page shows the key once; a later post of the same form leads there again and makes none
      const shown = shownKey(await text(await browser.follow(posts[0]!)));
      expect(shown).toMatch(/^dix_live_/);
      const again = await browser.on(b.baseUrl).post('/dashboard/keys', form);
      expect(again.headers.get('location')).toBe(posts[0]!.headers.get('location'));
      expect(shownKey(await text(await browser.follow(again)))).toBeUndefined();
      expect(await keysOf()).toHaveLength(1);
      // the same for a rotation: one successor
      const [id] = await keysOf();
      const rotateToken = formTokenOf(await text(await browser.get(`/dashboard/keys/${id!}/rotate`)));
      const rotations = await Promise.all([a, b, b, a].map((api) => browser.on(api.baseUrl).post(`/dashboard/keys/${id!}/rotate`, { form_token: rotateToken, overlap: '1h' })));
      expect(rotations.map((response) => response.status)).toEqual([303, 303, 303, 303]);
      expect(new Set(rotations.map((response) => response.headers.get('location'))).size).toBe(1);
      expect(await keysOf()).toHaveLength(2);
      // a post without a token (a page from before, or made by hand) makes nothing
      const tokenless = await browser.post('/dashboard/keys', { name: 'no token', expires: 'never' });
      expect(tokenless.status).toBe(400);
      expect(await text(tokenless)).toContain('This form has expired');
      expect(await keysOf()).toHaveLength(2);
    });

    it('shows a new key only to the session that made it, and for 10 minutes', async () => {
      const { browser, email } = await signedUpBrowser();
      const token = formTokenOf(await text(await browser.get('/dashboard/keys')));
      const posted = await browser.post('/dashboard/keys', { form_token: token, name: 'elsewhere', expires: 'never' });
      const page = posted.headers.get('location')!;
      // the same account in another browser: not shown there, and still shown to its own session
      const other = visitor(a);
      expect((await other.post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
      const elsewhere = await text(await other.get(page));
      expect(elsewhere).toContain('It was made in another browser session, and is shown only there.');
      expect(shownKey(elsewhere)).toBeUndefined();
      expect(shownKey(await text(await browser.get(page)))).toMatch(/^dix_live_/);
      // another account cannot open it at all
      const stranger = await signedUpBrowser();
      expect((await stranger.browser.get(page)).status).toBe(404);
      // a key never opened is not shown after 10 minutes
      const late = await browser.post('/dashboard/keys', { form_token: formTokenOf(await text(await browser.get('/dashboard/keys'))), name: 'late', expires: 'never' });
      clock.advance(10 * 60_000);
      const expired = await text(await browser.get(late.headers.get('location')!));
      expect(expired).toContain('It was not opened within 10 minutes of being made, so it can no longer be shown.');
      expect(shownKey(expired)).toBeUndefined();
    });

    it('revokes after a confirmation, refused from the next request on both instances', async () => {
      const { browser } = await signedUpBrowser();
      const key = await createdKey(browser, 'to revoke');
      const id = (await database.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyHash, createHash('sha256').update(key).digest('hex'))))[0]!.id;
      const confirm = await text(await browser.get(`/dashboard/keys/${id}/revoke`));
      expect(confirm).toMatch(/<button type="submit" class="danger">Revoke<\/button>/);
      const revoked = await browser.post(`/dashboard/keys/${id}/revoke`, {});
      expect(revoked.status).toBe(303);
      expect(await apiStatus(a, key)).toBe(401);
      expect(await apiStatus(b, key)).toBe(401);
      expect(await text(await browser.follow(revoked))).toMatch(/status-revoked">revoked/);
    });

    it('refuses an expired key, and a rotated key after its overlap, with the same 401', async () => {
      const { browser, email } = await signedUpBrowser();
      const expiring = await createdKey(browser, 'a week', '7');
      const rotating = await createdKey(browser, 'rotated');
      const idOf = async (key: string) =>
        (await database.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyHash, createHash('sha256').update(key).digest('hex'))))[0]!.id;
      const rotatingId = await idOf(rotating);
      const rotated = await postRotation(browser, rotatingId, '1h');
      expect(rotated.posted.status).toBe(303);
      expect(rotated.page.status).toBe(200);
      expect(rotated.page.headers.get('cache-control')).toBe('no-store');
      const successor = shownKey(await text(rotated.page))!;
      expect(await apiStatus(b, rotating)).toBe(200);
      expect(await apiStatus(b, successor)).toBe(200);
      clock.advance(61 * 60_000);
      expect(await apiStatus(a, rotating)).toBe(401);
      expect(await apiStatus(a, successor)).toBe(200);
      expect(await apiStatus(a, expiring)).toBe(200);
      clock.advance(7 * 86_400_000);
      const refused = await a.get('/api/v1/domains', { headers: { authorization: `Bearer ${expiring}` } });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: { code: 'invalid_api_key', message: 'the API key is not valid' } });
      // a week on, the session has expired too: the owner signs in again
      expect((await browser.get('/dashboard/keys')).status).toBe(303);
      expect((await browser.post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
      const page = await text(await browser.get('/dashboard/keys'));
      expect(page).toMatch(/status-expired">expired/);
      expect(await text(await browser.get('/dashboard/audit'))).toContain('Key expired');
    });

    it('rotates with no overlap: the old key stops at once, the new one works', async () => {
      const { browser } = await signedUpBrowser();
      const old = await createdKey(browser, 'no overlap');
      const id = (await database.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyHash, createHash('sha256').update(old).digest('hex'))))[0]!.id;
      const successor = shownKey(await text((await postRotation(browser, id, 'none')).page))!;
      expect(await apiStatus(b, old)).toBe(401);
      expect(await apiStatus(b, successor)).toBe(200);
    });

    it('rotates in one transaction: when a step fails, no new key is left behind and the old key is untouched', async () => {
      const { browser, accountId } = await signedUpBrowser();
      const old = await createdKey(browser, 'atomic');
      const id = await keyIdOf(old);
      // the last step of a rotation, its audit entry, fails for this account
      await database.rows(sql.raw(`create function refuse_rotation() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`));
      await database.rows(sql.raw(`create trigger refuse_rotation before insert on audit_events for each row when (new.kind = 'key_rotated' and new.account_id = '${accountId}') execute function refuse_rotation()`));
      try {
        const { posted: failed } = await postRotation(browser, id, 'none');
        expect(failed.status).toBe(500);
        expect(shownKey(await text(failed))).toBeUndefined();
      } finally {
        await database.rows(sql.raw('drop trigger refuse_rotation on audit_events'));
        await database.rows(sql.raw('drop function refuse_rotation()'));
      }
      expect(await database.db.select({ id: apiKeys.id, expiresAt: apiKeys.expiresAt }).from(apiKeys).where(eq(apiKeys.accountId, accountId))).toEqual([{ id, expiresAt: null }]);
      expect(await apiStatus(b, old)).toBe(200);
    });

    it("applies a plan change to the account's keys from the next request, and a disabled account's keys and sessions stop", async () => {
      const { browser, accountId } = await signedUpBrowser('free');
      const key = await createdKey(browser, 'plan');
      const limitOf = async () => (await a.get('/api/v1/stats', { headers: { authorization: `Bearer ${key}` } })).headers.get('x-ratelimit-limit');
      expect(await limitOf()).toBe('60');
      await setAccountPlan(database, accountId, 'pro');
      expect(await limitOf()).toBe('1000');
      await disableAccount(database, accountId, clock.now());
      expect(await apiStatus(a, key)).toBe(401);
      expect(await apiStatus(b, key)).toBe(401);
      expect((await browser.get('/dashboard/keys')).status).toBe(303);
      expect((await browser.post('/dashboard/sign-in', { email: 'x', password: PASSWORD })).status).toBe(401);
    });

    it('counts requests and rows returned per key and hour by outcome, equal to what was made and returned across both instances', async () => {
      // a plan of 6 requests an hour, so that some are refused with 429
      await database.db.insert(plans).values({ id: 'six', requestsPerWindow: 6, windowSeconds: 3600, description: 'tests' }).onConflictDoNothing();
      const { browser } = await signedUpBrowser('six');
      const key = await createdKey(browser, 'usage');
      const id = await keyIdOf(key);
      const auth = { headers: { authorization: `Bearer ${key}` } };
      let rows = 0;
      const searchOn = async (api: RunningApi, query: string) => {
        const response = await api.get(`/api/v1/domains?${query}`, auth);
        expect(response.status).toBe(200);
        rows += listEnvelopeSchema.parse(await response.json()).data.length;
      };
      for (let i = 0; i < 2; i += 1) await searchOn(a, 'status=all&limit=7');
      await searchOn(b, 'status=all&limit=200');
      expect((await b.get('/api/v1/domains/multi.com', auth)).status).toBe(200);
      rows += 1;
      expect((await b.get('/api/v1/domains/absent-name.com', auth)).status).toBe(404);
      expect((await a.get('/api/v1/domains?limit=none', auth)).status).toBe(400);
      // the limit of 6 is used up: these two are refused
      expect((await a.get('/api/v1/stats', auth)).status).toBe(429);
      expect((await b.get('/api/v1/stats', auth)).status).toBe(429);
      expect(rows).toBeGreaterThan(6);
      await Promise.all([a.usage!.flush(), b.usage!.flush()]);
      const usage = (await text(await browser.get(`/dashboard/keys/${id}/usage`))).replace(/>\s+</g, '><');
      const hour = `${clock.now().toISOString().slice(5, 13).replace('T', ' ')}:00`;
      // the hour's row: 2xx, 4xx, 429, 5xx, rows
      expect(usage).toContain(`<tr><td class="time">${hour}</td><td class="num">4</td><td class="num">2</td><td class="num">2</td><td class="num">0</td><td class="num">${rows}</td></tr>`);
      expect(usage).toMatch(/<svg class="chart" role="img" aria-label="Requests per hour over the last 24 hours: 8 in all \(4 2xx, 2 4xx, 2 429, 0 5xx\); at most 8 in one bar; limit 6 per hour">/);
      expect(usage).toContain(`: 8 requests (4 2xx, 2 4xx, 2 429), ${rows} rows</title>`);
      // "this hour" is what the limit counts: the 6 it let through, not the 2 it refused
      expect(usage.replace(/\s+/g, ' ')).toContain('This hour (UTC): <strong>6 of 6</strong> requests used.');
      expect(usage.replace(/\s+/g, ' ')).toContain('Refused with 429 this hour: <strong>2</strong>.');
      const [row] = listRows(await text(await browser.get('/dashboard/keys')));
      expect(row!['This hour']).toBe('6 / 6 +2 refused (429)');
      // the same by day and by 6 hours
      for (const range of ['7d', '30d']) {
        const page = (await text(await browser.get(`/dashboard/keys/${id}/usage?range=${range}`))).replace(/\s+/g, ' ');
        expect(page).toMatch(/aria-label="Requests per (6 hours|day) over the last (7|30) days: 8 in all \(4 2xx, 2 4xx, 2 429, 0 5xx\)/);
      }
    });

    it('records every action in the audit log with the address that caused it, a leaked key included, and "—" for an expiry', async () => {
      const { browser, email } = await signedUpBrowser();
      const you = browser.address!;
      expect((await browser.post('/dashboard/sign-in', { email, password: 'a wrong password here' })).status).toBe(401);
      // written after the answer, so it may arrive a moment later
      await vi.waitFor(async () => expect((await auditEntries(browser)).map((entry) => entry.event)).toContain('Failed sign-in'), { timeout: 5_000, interval: 20 });
      expect((await browser.post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
      const revokedKey = await createdKey(browser, 'revoked');
      const revoked = await keyIdOf(revokedKey);
      expect((await browser.post(`/dashboard/keys/${revoked}/revoke`, {})).status).toBe(303);
      const rotatedKey = await createdKey(browser, 'rotated');
      const rotated = await keyIdOf(rotatedKey);
      const successor = shownKey(await text((await postRotation(browser, rotated, '1h')).page))!;
      const leaky = await createdKey(browser, 'leaky');
      const leaker = nextAddress();
      expect((await a.raw(`/api/v1/domains?api_key=${leaky}`, { headers: { 'x-forwarded-for': leaker } })).status).toBe(400);
      expect(await apiStatus(b, leaky)).toBe(401);
      const short = await createdKey(browser, 'a week', '7');
      expect((await browser.post('/dashboard/sign-out', {})).status).toBe(303);
      clock.advance(7 * 86_400_000 + 60_000);
      expect((await browser.post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
      const keys = listRows(await text(await browser.get('/dashboard/keys')));
      const named = (shown: string) => `${shown.slice(0, 14)}…`;
      // each key's state says why
      const stateOf = (name: string) => keys.find((row) => row.Key!.startsWith(`${name} `))!.Status;
      expect(stateOf('revoked')).toMatch(new RegExp(`^revoked Revoked by ${email} from ${you} on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\.$`));
      expect(stateOf('leaky')).toMatch(new RegExp(`^revoked Revoked as leaked: it was sent in the URL \\(query parameter api_key\\) from ${leaker} on .* UTC\\.$`));
      expect(keys.filter((row) => row.Key!.startsWith('rotated ')).map((row) => row.Status)).toEqual([
        expect.stringMatching(/^active Never expires\.$/),
        expect.stringMatching(new RegExp(`^rotated Rotated: replaced by ${named(successor)}; stopped working on .* UTC\\.$`)),
      ]);
      expect(stateOf('a week')).toMatch(/^expired Expired on .* UTC\.$/);

      const entries = await auditEntries(browser);
      const ipsOf = (event: string) => entries.filter((entry) => entry.event === event).map((entry) => entry.ip);
      expect(ipsOf('Password set')).toEqual([you]);
      expect(ipsOf('Failed sign-in')).toEqual([you]);
      expect(ipsOf('Signed in')).toEqual([you, you]);
      expect(ipsOf('Signed out')).toEqual([you]);
      expect(ipsOf('Key created')).toEqual([you, you, you, you]);
      expect(ipsOf('Key revoked')).toEqual([you]);
      expect(ipsOf('Key rotated')).toEqual([you]);
      // keys are named as the keys page names them: name and prefix, never an internal id
      expect(entries.filter((entry) => entry.event === 'Key revoked as leaked (sent in a URL)')).toEqual([
        { event: 'Key revoked as leaked (sent in a URL)', key: `leaky ${named(leaky)}`, ip: leaker },
      ]);
      expect(entries.filter((entry) => entry.event === 'Key revoked')).toEqual([{ event: 'Key revoked', key: `revoked ${named(revokedKey)}`, ip: you }]);
      // the week-long key and the rotated one expired: no request did that
      expect(entries.filter((entry) => entry.event === 'Key expired')).toEqual(
        expect.arrayContaining([
          { event: 'Key expired', key: `a week ${named(short)}`, ip: '—' },
          { event: 'Key expired', key: `rotated ${named(rotatedKey)}`, ip: '—' },
        ]),
      );
      expect(entries.map((entry) => entry.key).join(' ')).not.toMatch(/key_\w{16}/);
      expect(entries.map((entry) => entry.ip)).not.toContain('(operator)');
    });

    it('treats a session cookie that is not valid percent-encoding as no session, not a failure', async () => {
      const cookie = 'di_session=%E0%A4%A';
      const keys = await fetch(`${a.baseUrl}/dashboard/keys`, { redirect: 'manual', headers: { cookie } });
      expect(keys.status).toBe(303);
      expect(keys.headers.get('location')).toBe('/dashboard/sign-in');
      expect((await fetch(`${b.baseUrl}/dashboard/sign-in`, { headers: { cookie } })).status).toBe(200);
    });

    it('answers a request it cannot read with the 4xx that says what to fix, and logs no failure', async () => {
      const { browser } = await signedUpBrowser();
      const failuresBefore = [...a.logLines, ...b.logLines].filter((line) => line.includes('dashboard page failed')).length;
      const tooLarge = await browser.post('/dashboard/keys', { name: 'x'.repeat(17 * 1024), expires: 'never' });
      expect(tooLarge.status).toBe(413);
      expect(await text(tooLarge)).toContain('A form may send at most 16 kB.');
      const tooMany = await browser.on(b.baseUrl).post('/dashboard/keys', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`field${i}`, 'x'])));
      expect(tooMany.status).toBe(400);
      expect(await text(tooMany)).toContain('A form may send at most 20 fields.');
      const latin1 = await browser.post('/dashboard/keys', { name: 'latin', expires: 'never' }, { 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' });
      expect(latin1.status).toBe(415);
      expect(await text(latin1)).toContain('in UTF-8');
      const badPath = await browser.get('/dashboard/keys/%E0%A4%A/usage');
      expect(badPath.status).toBe(400);
      expect(await text(badPath)).toContain('The request could not be read');
      expect(await text(await browser.get('/dashboard/keys'))).toContain('No keys yet');
      expect([...a.logLines, ...b.logLines].filter((line) => line.includes('dashboard page failed'))).toHaveLength(failuresBefore);
    });

    it("never writes a one-time link's token to the log, even when its page fails", async () => {
      const account = await createAccount(database, { email: `logged-${randomBytes(4).toString('hex')}@example.com`, planId: 'free', at: clock.now() });
      const token = await issueLink(database, account.id, clock.now());
      // spending this account's link fails
      await database.rows(sql.raw(`create function refuse_link() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`));
      await database.rows(sql.raw(`create trigger refuse_link before update on account_links for each row when (old.account_id = '${account.id}') execute function refuse_link()`));
      try {
        expect((await visitor(b).post(`/dashboard/set-password/${token}`, { password: PASSWORD })).status).toBe(500);
      } finally {
        await database.rows(sql.raw('drop trigger refuse_link on account_links'));
        await database.rows(sql.raw('drop function refuse_link()'));
      }
      const failures = b.logLines.filter((line) => line.includes('dashboard page failed') && line.includes('set-password'));
      expect(failures).toHaveLength(1);
      expect(failures[0]).toContain('"url":"/dashboard/set-password/[redacted]"');
      const log = [...a.logLines, ...b.logLines].join('\n');
      expect(log).not.toContain(token);
      expect(log).not.toMatch(/set-password\/[A-Za-z0-9_-]{20,}/);
    });

    it('sends the pages with a policy that loads nothing from another host, and works for a signed-out visitor', async () => {
      const guest = visitor(a);
      const start = await guest.get('/dashboard');
      expect(start.status).toBe(303);
      const signIn = await guest.follow(start);
      expect(signIn.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
      expect(signIn.headers.get('access-control-allow-origin')).toBeNull();
      const page = await text(signIn);
      expect(page).toContain('<label>Email');
      expect(page).toContain('<label>Password');
      expect(page).toContain('>Sign in</button>');
      expect(page).not.toMatch(/(src|href)="https?:/);
      expect((await guest.get('/dashboard/keys')).headers.get('location')).toBe('/dashboard/sign-in');
      expect((await guest.get('/dashboard/assets/dashboard.css')).headers.get('content-type')).toMatch(/^text\/css/);
    });

    const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
    const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
    /** The handles of the sessions a sessions page offers to end, in its order. */
    const endable = (page: string) => [...page.matchAll(/action="\/dashboard\/sessions\/([A-Za-z0-9_-]+)\/end"/g)].map((match) => match[1]!);

    it('changes the password only with the current one, and ends every other session but this one', async () => {
      const { browser, email } = await signedUpBrowser();
      const elsewhere = visitor(b);
      expect((await elsewhere.post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
      const form = await browser.get('/dashboard/password');
      expect(form.status).toBe(200);
      expect(await text(form)).toContain('<label>Current password <input type="password" name="current" autocomplete="current-password" required>');
      const before = counted.hashes;
      const wrong = await browser.post('/dashboard/password', { current: 'not my password at all', password: 'a brand new pass phrase' });
      expect(wrong.status).toBe(401);
      expect(await text(wrong)).toContain('The current password is not right.');
      const common = await browser.on(b.baseUrl).post('/dashboard/password', { current: PASSWORD, password: 'password1234' });
      expect(common.status).toBe(400);
      expect(await text(common)).toContain('too common or too easy to guess');
      expect(counted.hashes).toBe(before);
      const changed = await browser.on(b.baseUrl).post('/dashboard/password', { current: PASSWORD, password: 'a brand new pass phrase' });
      expect(changed.status).toBe(303);
      expect(changed.headers.get('location')).toBe('/dashboard/sessions?notice=password-changed');
      expect(await text(await browser.follow(changed))).toContain('Your password has changed. Every other session has ended; this one goes on.');
      // the other browser is signed out, this one is not; only the new password signs in
      expect((await elsewhere.get('/dashboard/keys')).headers.get('location')).toBe('/dashboard/sign-in');
      expect((await browser.on(a.baseUrl).get('/dashboard/keys')).status).toBe(200);
      expect((await visitor(a).post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(401);
      expect((await visitor(b).post('/dashboard/sign-in', { email, password: 'a brand new pass phrase' })).status).toBe(303);
      await vi.waitFor(async () => expect((await auditEntries(browser)).map((entry) => entry.event)).toContain('Failed password change (wrong current password)'), { timeout: 5_000, interval: 20 });
      const audit = await text(await browser.get('/dashboard/audit'));
      expect(audit).toContain('changed in the dashboard; 1 other session ended');
    });

    it('counts wrong current passwords like failed sign-ins', async () => {
      const { browser } = await signedUpBrowser();
      for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress; i += 1) {
        expect((await browser.post('/dashboard/password', { current: `wrong guess ${i} here`, password: 'a brand new pass phrase' })).status).toBe(401);
      }
      const limited = await browser.post('/dashboard/password', { current: PASSWORD, password: 'a brand new pass phrase' });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('lists the sessions with device, address and last seen, ends one, and signs out everywhere', async () => {
      const { browser, email } = await signedUpBrowser();
      // the browser of the link signs in again from a Firefox; a phone signs in on the other instance
      expect((await browser.post('/dashboard/sign-in', { email, password: PASSWORD }, { 'user-agent': FIREFOX })).status).toBe(303);
      const phone = visitor(b);
      clock.advance(2 * 60_000);
      expect((await phone.post('/dashboard/sign-in', { email, password: PASSWORD }, { 'user-agent': IPHONE })).status).toBe(303);
      const listed = await text(await browser.get('/dashboard/sessions'));
      const seen = (at: Date) => at.toISOString().slice(0, 16).replace('T', ' ');
      const row = (device: string, address: string, lastSeen: Date) => new RegExp(`<strong>${device}</strong>\\s*<span class="detail">IP ${address.replaceAll('.', '\\.')} · last seen ${seen(lastSeen)} · signed in [^<]+</span>`);
      expect(listed).toMatch(row('Firefox on Windows', browser.address!, clock.now()));
      expect(listed).toMatch(row('Safari on iPhone', phone.address!, clock.now()));
      expect(listed).toContain('<strong>This session</strong>');
      expect(listed).not.toMatch(/[0-9a-f]{64}/);
      // the set-password session, the phone's: each can be ended; this one is not offered
      const handles = endable(listed);
      expect(handles).toHaveLength(2);
      // another account cannot end them
      const { browser: stranger } = await signedUpBrowser();
      for (const handle of handles) expect((await stranger.post(`/dashboard/sessions/${handle}/end`, {})).status).toBe(404);
      // ending the phone's session signs the phone out
      const phoneHandle = handles[0]!;
      const ended = await browser.on(b.baseUrl).post(`/dashboard/sessions/${phoneHandle}/end`, {});
      expect(ended.status).toBe(303);
      expect(ended.headers.get('location')).toBe('/dashboard/sessions?notice=ended');
      expect((await phone.get('/dashboard/keys')).headers.get('location')).toBe('/dashboard/sign-in');
      expect((await browser.post(`/dashboard/sessions/${phoneHandle}/end`, {})).status).toBe(404);
      // a forged "sign out everywhere" is refused
      expect((await browser.post('/dashboard/sessions/end-all', {}, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      // sign out everywhere: this session too
      const phoneAgain = visitor(a);
      expect((await phoneAgain.post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
      const everywhere = await browser.post('/dashboard/sessions/end-all', {});
      expect(everywhere.status).toBe(303);
      expect(everywhere.headers.get('location')).toBe('/dashboard/sign-in?notice=signed-out-everywhere');
      expect(await text(await browser.follow(everywhere))).toContain('You are signed out everywhere');
      for (const person of [browser, phoneAgain]) expect((await person.get('/dashboard/keys')).headers.get('location')).toBe('/dashboard/sign-in');
      expect((await browser.post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(303);
      await vi.waitFor(async () => expect((await auditEntries(browser)).map((entry) => entry.event)).toEqual(expect.arrayContaining(['Signed out everywhere', 'Signed out a session'])), { timeout: 5_000, interval: 20 });
    });

    it('shows no notice for a code it does not know, Object internals included', async () => {
      const { browser } = await signedUpBrowser();
      for (const path of ['/dashboard/keys', '/dashboard/sessions', '/dashboard/sign-in']) {
        for (const code of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'nonsense']) {
          const response = await browser.get(`${path}?notice=${code}`);
          expect(response.status).toBe(200);
          const page = await text(response);
          expect(page).not.toMatch(/function|native code|\[object/);
          expect(page).not.toContain('class="notice');
        }
      }
    });
  });
}

describe('self-service sign-up', () => {
  it('is closed by default: no page, no account', async () => {
    const closed = await startApi('pglite', { dashboard: {} });
    try {
      const visitor = new DashboardClient(closed.baseUrl);
      expect((await visitor.get('/dashboard/sign-up')).status).toBe(404);
      expect((await visitor.post('/dashboard/sign-up', { email: 'new@example.com', password: PASSWORD })).status).toBe(404);
      expect((await visitor.get('/dashboard/keys')).headers.get('location')).toBe('/dashboard/sign-in');
      expect(await closed.test.database.db.$count(accounts)).toBe(0);
    } finally {
      await closed.close();
    }
  });
});
