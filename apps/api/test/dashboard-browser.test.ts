import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, issueLink } from '../src/accounts/account-store';
import { systemClock } from '../src/clock';
import { browserAvailable, launchBrowser } from './support/browser';
import { buildFixtureIndex } from './support/fixture-index';
import { startApi, type RunningApi } from './support/start-api';

/** Where the screenshots go; `SCREENSHOTS_DIR=docs` refreshes the ones the README shows. */
const screenshots = process.env.SCREENSHOTS_DIR ?? join(tmpdir(), 'di-dashboard-screenshots');
const PASSWORD = 'correct horse battery staple';

describe.skipIf(!browserAvailable())('the key dashboard in a real browser', () => {
  let api: RunningApi;
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    api = await startApi('pglite', { dashboard: { signupOpen: true } });
    await buildFixtureIndex(api.test.database);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const call = async (key: string) => (await api.raw('/api/v1/domains?status=all', { headers: { authorization: `Bearer ${key}` } })).status;
  const newKey = (page: Page) => page.getByLabel('Your new key').inputValue();

  it('sets a password, signs out and in, creates, rotates and revokes a key, and shows its usage', async () => {
    const account = await createAccount(api.test.database, { email: 'owner@example.com', planId: 'pro', at: systemClock.now() });
    const link = `${api.baseUrl}/dashboard/set-password/${await issueLink(api.test.database, account.id, systemClock.now())}`;
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    const page = await context.newPage();

    // 1. the one-time link sets the password (and signs in)
    await page.goto(link);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);

    // 2. sign out, then sign in
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/sign-in`);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);

    // 3. create a key: shown once, with a copy button; it works against the API
    await page.getByLabel('Key name').fill('nightly export');
    await page.getByRole('button', { name: 'Create key' }).click();
    const first = await newKey(page);
    expect(first).toMatch(/^dix_live_/);
    await expect.poll(() => page.getByText('it will not be shown again').count()).toBe(1);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1);
    await page.screenshot({ path: join(screenshots, 'dashboard-new-key.png'), fullPage: true });
    for (let i = 0; i < 3; i += 1) expect(await call(first)).toBe(200);

    // 4. the keys page, reloaded, shows the prefix only
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    await page.reload();
    expect(await page.content()).not.toContain(first);
    await expect.poll(() => page.getByText(first.slice(0, 14)).count()).toBe(1);

    // 5. rotate with no overlap: the old key is refused, the new one works
    await page.getByRole('link', { name: 'Rotate' }).click();
    await page.getByLabel('Old key keeps working').selectOption('none');
    await page.getByRole('button', { name: 'Rotate' }).click();
    const second = await newKey(page);
    expect(second).not.toBe(first);
    expect(await call(first)).toBe(401);
    for (let i = 0; i < 4; i += 1) expect(await call(second)).toBe(200);

    // 7 (before 6, which ends the key). the usage chart shows the requests made with it
    await api.usage!.flush();
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    await page.getByRole('row', { name: /nightly export.*active/ }).getByRole('link', { name: 'Usage' }).click();
    const chart = page.getByRole('img', { name: /Requests per hour over the last 24 hours: 4 in all/ });
    await expect.poll(() => chart.count()).toBe(1);
    await page.screenshot({ path: join(screenshots, 'dashboard-usage.png'), fullPage: true });

    // 6. revoke, after the confirmation: the key is refused
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    await page.getByRole('row', { name: /nightly export.*active/ }).getByRole('link', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys?notice=revoked`);
    expect(await call(second)).toBe(401);

    // nothing was loaded from another host
    expect(requests.filter((url) => !url.startsWith(api.baseUrl))).toEqual([]);
    await context.close();
  });

  /** A new account with its password set, and a browser context signed in to it at a width. */
  async function signedIn(email: string, width: 1280 | 390, password = PASSWORD) {
    const context = await browser.newContext(width === 390 ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/dashboard/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
    return { context, page };
  }
  const newAccount = async (email: string) => {
    const account = await createAccount(api.test.database, { email, planId: 'pro', at: systemClock.now() });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/dashboard/set-password/${await issueLink(api.test.database, account.id, systemClock.now())}`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
    await context.close();
  };

  it('changes the password with the current one: the other browser is signed out, this one is not', async () => {
    await newAccount('changer@example.com');
    const desk = await signedIn('changer@example.com', 1280);
    const phone = await signedIn('changer@example.com', 390);
    await desk.page.getByRole('link', { name: 'Password', exact: true }).click();
    await expect.poll(() => desk.page.url()).toBe(`${api.baseUrl}/dashboard/password`);
    await desk.page.screenshot({ path: join(screenshots, 'dashboard-password-1280.png'), fullPage: true });
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
    await phone.page.goto(`${api.baseUrl}/dashboard/password`);
    await phone.page.screenshot({ path: join(screenshots, 'dashboard-password-390.png'), fullPage: true });
    await desk.page.goto(`${api.baseUrl}/dashboard/keys`);
    expect(desk.page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
    await desk.context.close();
    await phone.context.close();
  });

  it('lists the sessions, signs one out, then signs out everywhere', async () => {
    await newAccount('sessions@example.com');
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
    await desk.page.screenshot({ path: join(screenshots, 'dashboard-sessions-1280.png'), fullPage: true });
    await phone.page.getByRole('link', { name: 'Sessions' }).click();
    await phone.page.screenshot({ path: join(screenshots, 'dashboard-sessions-390.png'), fullPage: true });
    expect(await phone.page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);

    // sign one other session out: one of the two buttons
    await desk.page.getByRole('button', { name: /^Sign out Chrome on Linux at / }).first().click();
    await expect.poll(() => desk.page.url()).toBe(`${api.baseUrl}/dashboard/sessions?notice=ended`);
    await expect.poll(() => sessions.count()).toBe(3);
    // then everywhere: every browser, this one too, is signed out
    await desk.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect.poll(() => desk.page.url()).toBe(`${api.baseUrl}/dashboard/sign-in?notice=signed-out-everywhere`);
    await expect.poll(() => desk.page.getByRole('status').textContent()).toContain('You are signed out everywhere');
    await desk.page.screenshot({ path: join(screenshots, 'dashboard-signed-out-everywhere-1280.png'), fullPage: true });
    for (const { page } of [desk, phone, laptop]) {
      await page.goto(`${api.baseUrl}/dashboard/keys`);
      await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/sign-in`);
    }
    for (const { context } of [desk, phone, laptop]) await context.close();
  });

  it('shows every page at 1280 and 390 px, with no sideways scrolling of the page on a phone', async () => {
    await newAccount('pages@example.com');
    const pending = await createAccount(api.test.database, { email: 'pending@example.com', planId: 'free', at: systemClock.now() });
    const link = `/dashboard/set-password/${await issueLink(api.test.database, pending.id, systemClock.now())}`;
    for (const width of [1280, 390] as const) {
      const { context, page } = await signedIn('pages@example.com', width);
      await page.getByLabel('Key name').fill('screenshots');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.goto(`${api.baseUrl}/dashboard/keys`);
      const signedInPages = { keys: '/dashboard/keys', sessions: '/dashboard/sessions', password: '/dashboard/password', audit: '/dashboard/audit', 'not-found': '/dashboard/nope' };
      for (const [name, path] of Object.entries(signedInPages)) {
        await page.goto(`${api.baseUrl}${path}`);
        await page.screenshot({ path: join(screenshots, `dashboard-${name}-${width}.png`), fullPage: true });
        expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth'), `${path} at ${width}`).toBeLessThanOrEqual(0);
      }
      await context.clearCookies();
      for (const [name, path] of Object.entries({ 'sign-in': '/dashboard/sign-in?notice=signed-up', 'sign-up': '/dashboard/sign-up', 'set-password': link })) {
        await page.goto(`${api.baseUrl}${path}`);
        await page.screenshot({ path: join(screenshots, `dashboard-${name}-${width}.png`), fullPage: true });
        expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth'), `${path} at ${width}`).toBeLessThanOrEqual(0);
      }
      await context.close();
    }
  });

  it('reads on a phone without sideways scrolling of the page', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/dashboard/sign-in`);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await context.close();
  });
});
