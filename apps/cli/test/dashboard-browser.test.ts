import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeys, eq, plans } from '@domain-index/db';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, issueLink } from '@domain-index/accounts/account-store';
import { systemClock } from '@domain-index/runtime/clock';
import { Mailer } from '@domain-index/mail/mailer';
import { browserAvailable, launchBrowser } from '@domain-index/test-support/browser';
import { buildFixtureIndex } from './support/fixture-index';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

/** Where the screenshots go; `SCREENSHOTS_DIR=<the repository>/docs` refreshes the ones docs/dashboard.md shows. */
const screenshots = process.env.SCREENSHOTS_DIR ?? join(tmpdir(), 'di-dashboard-screenshots');
const PASSWORD = 'correct horse battery staple';
const WIDTHS = [1280, 390] as const;
type Width = (typeof WIDTHS)[number];

describe.skipIf(!browserAvailable())('the key dashboard in a real browser', () => {
  let api: RunningApi;
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    api = await startApi('pglite', { dashboard: { signupOpen: true } });
    await buildFixtureIndex(api.test.database);
    // a plan of 3 requests an hour, so that a test can be refused with 429 at once
    await api.test.database.db.insert(plans).values({ id: 'three', requestsPerWindow: 3, windowSeconds: 3600, description: 'tests' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const call = async (key: string, path = '/api/v1/domains?status=all') => (await api.raw(path, { headers: { authorization: `Bearer ${key}` } })).status;
  const newKey = (page: Page) => page.getByLabel('Your new key').inputValue();
  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  const noSidewaysScroll = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  /** The account's keys in the database: how many there are is what a double submit must not change. */
  const keysOf = async (accountId: string) => api.test.database.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.accountId, accountId));

  /** A browser context at a width, as a desktop or a phone. */
  const contextAt = (width: Width) =>
    browser.newContext(width === 390 ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } });

  /** A new account with its password set through its one-time link, signed in, at a width. */
  async function newAccount(email: string, width: Width = 1280, plan = 'pro'): Promise<{ context: BrowserContext; page: Page; accountId: string }> {
    const account = await createAccount(api.test.database, { email, planId: plan, at: systemClock.now() });
    const context = await contextAt(width);
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/dashboard/set-password/${await issueLink(api.test.database, account.id, systemClock.now())}`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
    return { context, page, accountId: account.id };
  }

  /** Signs in to an existing account in a new context at a width. */
  async function signedIn(email: string, width: Width, password = PASSWORD) {
    const context = await contextAt(width);
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/dashboard/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
    return { context, page };
  }

  /**
   * Sends a form twice, as a person does who clicks again while a slow page loads: the first post
   * goes to the server, and its answer is held back from the browser until the page has sent the
   * form a second time (300 ms later). The browser then drops the first answer and follows the
   * second. Returns how many posts reached the server.
   */
  async function doubleSubmit(page: Page, button: string, action: RegExp): Promise<number> {
    let reached = 0;
    let secondSent!: () => void;
    const second = new Promise<void>((resolve) => (secondSent = resolve));
    await page.route(action, async (route) => {
      if (route.request().method() !== 'POST') {
        await route.continue();
        return;
      }
      reached += 1;
      if (reached === 1) {
        const response = await route.fetch({ maxRedirects: 0 });
        await second;
        // the browser has dropped this request for the second one by now: fulfilling it may be refused
        await route.fulfill({ response }).catch(() => undefined);
        return;
      }
      secondSent();
      await route.continue();
    });
    // the page itself sends the form again: Playwright's click and evaluate wait for a pending navigation
    await page.evaluate(`(() => {
      const button = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === ${JSON.stringify(button)});
      button.form.addEventListener('submit', () => setTimeout(() => button.click(), 300), { once: true });
    })()`);
    await page.getByRole('button', { name: button }).click({ noWaitAfter: true });
    await expect.poll(() => page.url()).toMatch(/\/dashboard\/keys\/new\/new_/);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    return reached;
  }

  async function createKey(page: Page, name: string): Promise<string> {
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    await page.getByLabel('Key name').fill(name);
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.url()).toMatch(/\/dashboard\/keys\/new\/new_/);
    return newKey(page);
  }

  it('sets a password, signs out and in, creates, rotates and revokes a key, and shows its usage', async () => {
    const { context, page } = await newAccount('owner@example.com');
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));

    // sign out, then sign in
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/sign-in`);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);

    // create a key: shown once, with a copy button; it works against the API
    const first = await createKey(page, 'nightly export');
    expect(first).toMatch(/^dix_live_/);
    await expect.poll(() => page.getByText('it will not be shown again').count()).toBe(1);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1);
    for (let i = 0; i < 3; i += 1) expect(await call(first)).toBe(200);

    // the keys page, reloaded, shows the prefix only
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    await page.reload();
    expect(await page.content()).not.toContain(first);
    await expect.poll(() => page.getByText(first.slice(0, 14)).count()).toBe(1);

    // rotate with no overlap: the old key is refused, the new one works
    await page.getByRole('link', { name: 'Rotate' }).click();
    await page.getByLabel('Old key keeps working').selectOption('none');
    await page.getByRole('button', { name: 'Rotate' }).click();
    const second = await newKey(page);
    expect(second).not.toBe(first);
    expect(await call(first)).toBe(401);
    for (let i = 0; i < 4; i += 1) expect(await call(second)).toBe(200);

    // the usage chart shows the requests made with it
    await api.usage!.flush();
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    await page.getByRole('row', { name: /nightly export.*active/ }).getByRole('link', { name: 'Usage' }).click();
    await expect.poll(() => page.getByRole('img', { name: /^Requests per hour over the last 24 hours: 4 in all \(4 2xx, 0 4xx, 0 429, 0 5xx\)/ }).count()).toBe(1);

    // revoke, after the confirmation: the key is refused
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    await page.getByRole('row', { name: /nightly export.*active/ }).getByRole('link', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys?notice=revoked`);
    expect(await call(second)).toBe(401);
    await expect.poll(() => page.getByRole('row', { name: /nightly export.*revoked.*Revoked by owner@example\.com from 127\.0\.0\.1 on/ }).count()).toBe(1);
    await expect.poll(() => page.getByRole('row', { name: /nightly export.*rotated.*Rotated: replaced by dix_live_\w{5}…; stopped working on/ }).count()).toBe(1);

    // nothing was loaded from another host
    expect(requests.filter((url) => !url.startsWith(api.baseUrl))).toEqual([]);
    await context.close();
  });

  it('makes one key however often the create form is reloaded or sent twice', async () => {
    const { context, page, accountId } = await newAccount('twice@example.com');
    // the form sent twice at once, as by a double click: the browser drops the first answer
    await page.getByLabel('Key name').fill('sent twice');
    const token = await page.locator('form[action="/dashboard/keys"] input[name="form_token"]').inputValue();
    expect(await doubleSubmit(page, 'Create key', /\/dashboard\/keys$/)).toBe(2);
    const shown = await newKey(page);
    expect(await call(shown)).toBe(200);
    expect(await keysOf(accountId)).toHaveLength(1);
    // the page it landed on, reloaded: no second key, and the key is not shown again
    await page.reload();
    await expect.poll(() => page.getByText('It was shown once, when it was made, and cannot be shown again').count()).toBe(1);
    expect(await page.content()).not.toContain(shown);
    await shot(page, 'dashboard-new-key-reloaded-1280');
    // back to the form's own answer and forward again: still one key
    await page.goBack();
    await page.goForward();
    expect(await keysOf(accountId)).toHaveLength(1);
    // the very same form posted once more (a copy of the page in another tab): the same key's page, no new key
    const again = await context.request.post(`${api.baseUrl}/dashboard/keys`, {
      form: { form_token: token, name: 'sent twice', expires: 'never' },
      headers: { origin: api.baseUrl },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(303);
    expect(again.headers().location).toBe(new URL(page.url()).pathname);
    expect(await keysOf(accountId)).toHaveLength(1);
    await context.close();
  });

  it('makes one new key however often the rotate form is reloaded or sent twice', async () => {
    const { context, page, accountId } = await newAccount('rotate-twice@example.com');
    const old = await createKey(page, 'rotated twice');
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    await page.getByRole('link', { name: 'Rotate' }).click();
    await page.getByLabel('Old key keeps working').selectOption('1h');
    expect(await doubleSubmit(page, 'Rotate', /\/dashboard\/keys\/key_\w+\/rotate$/)).toBe(2);
    const successor = await newKey(page);
    expect(await keysOf(accountId)).toHaveLength(2);
    await page.reload();
    await page.reload();
    expect(await page.content()).not.toContain(successor);
    expect(await keysOf(accountId)).toHaveLength(2);
    // both work during the overlap, and the old one says why it is on its way out
    expect(await call(old)).toBe(200);
    expect(await call(successor)).toBe(200);
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    await expect
      .poll(() => page.getByRole('row', { name: new RegExp(`rotated twice.*rotated.*Rotated: replaced by ${successor.slice(0, 14)}…; this key still works until`) }).count())
      .toBe(1);
    await context.close();
  });

  it('keeps every action of every key visible and clickable at 1280 and 390 px', async () => {
    for (const width of WIDTHS) {
      const email = `actions-${width}@example.com`;
      const { context, page } = await newAccount(email, width);
      // keys in every state that has actions: active (with a long name), rotated within its overlap, revoked
      await createKey(page, 'a key with a rather long name for a phone screen');
      await createKey(page, 'rotated one');
      await page.goto(`${api.baseUrl}/dashboard/keys`);
      await page.getByRole('row', { name: /rotated one/ }).getByRole('link', { name: 'Rotate' }).click();
      await page.getByLabel('Old key keeps working').selectOption('24h');
      await page.getByRole('button', { name: 'Rotate' }).click();
      await createKey(page, 'revoked one');
      await page.goto(`${api.baseUrl}/dashboard/keys`);
      await page.getByRole('row', { name: /revoked one.*active/ }).getByRole('link', { name: 'Revoke' }).click();
      await page.getByRole('button', { name: 'Revoke' }).click();
      await page.goto(`${api.baseUrl}/dashboard/keys`);
      await shot(page, `dashboard-key-states-${width}`);
      expect(await noSidewaysScroll(page), `keys page at ${width}`).toBeLessThanOrEqual(0);

      const rows = page.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ has: page.getByRole('link') });
      expect(await rows.count()).toBe(4);
      let clicked = 0;
      for (let i = 0; i < 4; i += 1) {
        const links = rows.nth(i).getByRole('link');
        const names = await links.allTextContents();
        expect(names.slice(0, 2)).toEqual(['Usage', 'Requests']);
        for (const name of names) {
          const link = rows.nth(i).getByRole('link', { name, exact: true });
          // on the page and within the width of the screen, nothing off to the side
          const box = await link.boundingBox();
          expect(box, `${name} of row ${i} at ${width}`).not.toBeNull();
          expect(box!.x).toBeGreaterThanOrEqual(0);
          expect(box!.x + box!.width).toBeLessThanOrEqual(width);
          await link.click();
          await expect.poll(() => page.url()).toMatch(/\/dashboard\/keys\/key_\w+\/(usage|requests|rotate|revoke)$/);
          await expect.poll(() => page.getByRole('heading', { level: 1 }).count()).toBe(1);
          clicked += 1;
          await page.goto(`${api.baseUrl}/dashboard/keys`);
        }
      }
      // 2 for each key, rotate for the two active ones, revoke for those that still work (two active, one rotated)
      expect(clicked).toBe(4 * 2 + 2 + 3);
      await context.close();
    }
  });

  it("shows a request made with a key in that key's request log, found by its request id, within 10 s", async () => {
    const { context, page } = await newAccount('requests@example.com');
    const key = await createKey(page, 'logged');
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    const response = await api.raw('/api/v1/domains?search=co&status=all&limit=20', { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    expect(await call(key, '/api/v1/domains/absent-name.com')).toBe(404);
    const started = Date.now();
    await page.getByRole('row', { name: /logged/ }).getByRole('link', { name: 'Requests' }).click();
    await page.getByLabel('Request id').fill(requestId);
    await page.getByRole('button', { name: 'Filter' }).click();
    const row = page.getByRole('row', { name: new RegExp(requestId) });
    // the log is written in batches: the page is opened again until the request is there
    await expect
      .poll(
        async () => {
          if ((await row.count()) === 0) await page.reload();
          return row.count();
        },
        { timeout: 10_000, interval: 250 },
      )
      .toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await row.textContent()).toMatch(/GET \/api\/v1\/domains\?search=co&status=all&limit=20\s*200/);
    // the status filter
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    await page.getByRole('row', { name: /logged/ }).getByRole('link', { name: 'Requests' }).click();
    await expect.poll(() => page.getByRole('row', { name: /absent-name\.com.*404.*not_found/ }).count(), { timeout: 10_000 }).toBe(1);
    await page.getByLabel('Status').selectOption('4xx');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Requests' }).getByRole('row').filter({ hasText: 'GET' }).count()).toBe(1);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      await page.getByLabel('Status').selectOption('');
      await page.getByRole('button', { name: 'Filter' }).click();
      await shot(page, `dashboard-requests-${width}`);
      expect(await noSidewaysScroll(page), `requests page at ${width}`).toBeLessThanOrEqual(0);
    }
    await context.close();
  });

  it('splits usage by outcome, with the plan limit and what "this hour" counts', async () => {
    const { context, page } = await newAccount('outcomes@example.com', 1280, 'three');
    const key = await createKey(page, 'split');
    expect(await call(key)).toBe(200);
    expect(await call(key, '/api/v1/domains/multi.com')).toBe(200);
    expect(await call(key, '/api/v1/domains?limit=none')).toBe(400);
    expect(await call(key)).toBe(429);
    expect(await call(key)).toBe(429);
    await api.usage!.flush();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${api.baseUrl}/dashboard/keys`);
      await page.getByRole('row', { name: /split/ }).getByRole('link', { name: 'Usage' }).click();
      await expect.poll(() => page.getByRole('img', { name: /: 5 in all \(2 2xx, 1 4xx, 2 429, 0 5xx\); at most 5 in one bar; limit 3 per hour$/ }).count()).toBe(1);
      expect(await page.getByRole('list', { name: /Totals/ }).textContent()).toMatch(/Requests\s*5\s*2xx\s*2\s*4xx\s*1\s*429\s*2\s*5xx\s*0/);
      expect(await page.getByText('This hour (UTC):').textContent()).toMatch(/3 of 3\s+requests used\.\s+That is\s+what the\s+rate limit counts/);
      await shot(page, `dashboard-usage-${width}`);
      expect(await noSidewaysScroll(page), `usage page at ${width}`).toBeLessThanOrEqual(0);
      // the chart's labels keep their size: legible on a phone
      const fontSize = await page.evaluate<number>(
        `(() => { const text = document.querySelector('svg.chart text'); return parseFloat(getComputedStyle(text).fontSize) * (text.getScreenCTM()?.a ?? 1); })()`,
      );
      expect(fontSize).toBeGreaterThanOrEqual(11);
      for (const range of ['7d', '30d']) {
        await page.getByRole('link', { name: range === '7d' ? 'last 7 days' : 'last 30 days' }).click();
        await expect.poll(() => page.getByRole('img', { name: /: 5 in all \(2 2xx, 1 4xx, 2 429, 0 5xx\)/ }).count()).toBe(1);
        await shot(page, `dashboard-usage-${range}-${width}`);
        expect(await noSidewaysScroll(page), `usage ${range} at ${width}`).toBeLessThanOrEqual(0);
      }
    }
    await context.close();
  });

  it('changes the password with the current one: the other browser is signed out, this one is not', async () => {
    await newAccount('changer@example.com').then(({ context }) => context.close());
    const desk = await signedIn('changer@example.com', 1280);
    const phone = await signedIn('changer@example.com', 390);
    await desk.page.getByRole('link', { name: 'Password', exact: true }).click();
    await expect.poll(() => desk.page.url()).toBe(`${api.baseUrl}/dashboard/password`);
    // a wrong current password is refused, and says so
    await desk.page.getByLabel('Current password').fill('not the password at all');
    await desk.page.getByLabel('New password').fill('a brand new pass phrase');
    await desk.page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => desk.page.getByRole('alert').textContent()).toBe('The current password is not right.');
    await desk.page.getByLabel('Current password').fill(PASSWORD);
    await desk.page.getByLabel('New password').fill('a brand new pass phrase');
    await desk.page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => desk.page.url()).toBe(`${api.baseUrl}/dashboard/sessions?notice=password-changed`);
    await expect.poll(() => desk.page.getByRole('status').textContent()).toContain('Your password has changed.');
    // only this session is left
    await expect.poll(() => desk.page.getByRole('listitem').count()).toBe(1);
    // the phone is signed out; the desk goes on
    await phone.page.goto(`${api.baseUrl}/dashboard/keys`);
    await expect.poll(() => phone.page.url()).toBe(`${api.baseUrl}/dashboard/sign-in`);
    await phone.page.getByLabel('Email').fill('changer@example.com');
    await phone.page.getByLabel('Password').fill('a brand new pass phrase');
    await phone.page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => phone.page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
    await desk.page.goto(`${api.baseUrl}/dashboard/keys`);
    expect(desk.page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
    await desk.context.close();
    await phone.context.close();
  });

  it('lists the sessions, signs one out, then signs out everywhere', async () => {
    await newAccount('sessions@example.com').then(({ context }) => context.close());
    const desk = await signedIn('sessions@example.com', 1280);
    const phone = await signedIn('sessions@example.com', 390);
    const laptop = await signedIn('sessions@example.com', 1280);
    await desk.page.getByRole('link', { name: 'Sessions' }).click();
    await expect.poll(() => desk.page.url()).toBe(`${api.baseUrl}/dashboard/sessions`);
    // four sessions (the link's, the desk's, the phone's, the laptop's): this one, and three
    // with a button to sign them out
    const sessions = desk.page.getByRole('list', { name: 'Sessions' }).getByRole('listitem');
    await expect.poll(() => sessions.count()).toBe(4);
    await expect.poll(() => desk.page.getByRole('button', { name: /^Sign out Chrome on Linux at / }).count()).toBe(3);
    await expect.poll(() => desk.page.getByText('This session').count()).toBe(1);
    expect(await sessions.first().textContent()).toMatch(/Chrome on Linux\s+IP 127\.0\.0\.1 · last seen/);
    // sign one other session out: one of the two buttons
    await desk.page.getByRole('button', { name: /^Sign out Chrome on Linux at / }).first().click();
    await expect.poll(() => desk.page.url()).toBe(`${api.baseUrl}/dashboard/sessions?notice=ended`);
    await expect.poll(() => sessions.count()).toBe(3);
    // then everywhere: every browser, this one too, is signed out
    await desk.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect.poll(() => desk.page.url()).toBe(`${api.baseUrl}/dashboard/sign-in?notice=signed-out-everywhere`);
    await expect.poll(() => desk.page.getByRole('status').textContent()).toContain('You are signed out everywhere');
    for (const { page } of [desk, phone, laptop]) {
      await page.goto(`${api.baseUrl}/dashboard/keys`);
      await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/sign-in`);
    }
    for (const { context } of [desk, phone, laptop]) await context.close();
  });

  it('shows every page at 1280 and 390 px, with no sideways scrolling of the page on a phone', async () => {
    await newAccount('pages@example.com').then(({ context }) => context.close());
    const pending = await createAccount(api.test.database, { email: 'pending@example.com', planId: 'free', at: systemClock.now() });
    const link = `/dashboard/set-password/${await issueLink(api.test.database, pending.id, systemClock.now())}`;
    // an instance that sends mail, for its "forgot password" form (nothing is sent here)
    const mailing = await startApi('pglite', { test: api.test, dashboard: { mailer: new Mailer({ smtp: { host: '127.0.0.1', port: 9, secure: false, user: undefined, password: undefined }, from: 'dashboard@example.com' }) } });
    try {
      for (const width of WIDTHS) {
        const { context, page } = await signedIn('pages@example.com', width);
        const key = await createKey(page, 'screenshots');
        await shot(page, `dashboard-new-key-${width}`);
        expect(await noSidewaysScroll(page), `new key at ${width}`).toBeLessThanOrEqual(0);
        expect(await call(key)).toBe(200);
        await page.goto(`${api.baseUrl}/dashboard/keys`);
        const keyPath = new URL((await page.getByRole('row', { name: /screenshots/ }).first().getByRole('link', { name: 'Usage' }).getAttribute('href'))!, api.baseUrl).pathname.replace(/\/usage$/, '');
        const signedInPages = {
          keys: '/dashboard/keys',
          rotate: `${keyPath}/rotate`,
          revoke: `${keyPath}/revoke`,
          sessions: '/dashboard/sessions',
          password: '/dashboard/password',
          audit: '/dashboard/audit',
          'not-found': '/dashboard/nope',
        };
        for (const [name, path] of Object.entries(signedInPages)) {
          await page.goto(`${api.baseUrl}${path}`);
          await shot(page, `dashboard-${name}-${width}`);
          expect(await noSidewaysScroll(page), `${path} at ${width}`).toBeLessThanOrEqual(0);
        }
        await context.clearCookies();
        const signedOutPages = {
          'sign-in': `${api.baseUrl}/dashboard/sign-in?notice=signed-up`,
          'sign-up': `${api.baseUrl}/dashboard/sign-up`,
          'set-password': `${api.baseUrl}${link}`,
          'link-gone': `${api.baseUrl}/dashboard/set-password/${'x'.repeat(43)}`,
          'forgot-password-no-mail': `${api.baseUrl}/dashboard/forgot-password`,
          'forgot-password': `${mailing.baseUrl}/dashboard/forgot-password`,
          'reset-sent': `${api.baseUrl}/dashboard/sign-in?notice=reset-sent`,
        };
        for (const [name, url] of Object.entries(signedOutPages)) {
          await page.goto(url);
          await shot(page, `dashboard-${name}-${width}`);
          expect(await noSidewaysScroll(page), `${url} at ${width}`).toBeLessThanOrEqual(0);
        }
        await context.close();
      }
    } finally {
      await mailing.close();
    }
  });

  it('offers the sign-in page and a new link when a set-password link was used already', async () => {
    const account = await createAccount(api.test.database, { email: 'used-link@example.com', planId: 'free', at: systemClock.now() });
    const link = `${api.baseUrl}/dashboard/set-password/${await issueLink(api.test.database, account.id, systemClock.now())}`;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(link);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    // the same link a second time: no dead end
    await page.goto(link);
    await expect.poll(() => page.getByRole('heading', { name: 'This link no longer works' }).count()).toBe(1);
    expect(await page.content()).not.toContain('accounts reset-link');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Email').fill('used-link@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
    await context.close();
  });
});
