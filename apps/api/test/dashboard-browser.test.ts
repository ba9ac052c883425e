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
    api = await startApi('pglite', { dashboard: {} });
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
