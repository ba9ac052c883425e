import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, issueLink } from '@domain-index/accounts/account-store';
import { systemClock } from '@domain-index/runtime/clock';
import { browserAvailable, launchBrowser } from '@domain-index/test-support/browser';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

/** Where the screenshots go; `SCREENSHOTS_DIR=<the repository>/docs` refreshes them for the docs. */
const screenshots = process.env.SCREENSHOTS_DIR ?? join(tmpdir(), 'di-dashboard-screenshots');
const PASSWORD = 'correct horse battery staple';

describe.skipIf(!browserAvailable())("the dashboard's watchlists in a real browser", () => {
  let api: RunningApi;
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    api = await startApi('pglite', { dashboard: {} });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  /** Sets the account's password through its one-time link, which signs it in on the keys page. */
  async function signIn(page: Page, accountId: string): Promise<void> {
    await page.goto(`${api.baseUrl}/dashboard/set-password/${await issueLink(api.test.database, accountId, systemClock.now())}`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
  }

  it('creates a watchlist by pasting names and lists them, a refused one shown by its line', async () => {
    const account = await createAccount(api.test.database, { email: 'watcher@example.com', planId: 'pro', at: systemClock.now() });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await signIn(page, account.id);
      await page.getByRole('link', { name: 'Watchlists' }).click();
      await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/watchlists`);

      await page.getByLabel('Name', { exact: true }).fill('Short names');
      await page.getByLabel('Names', { exact: true }).fill('alpha.ai\nbeta.ai, gamma.ai\nnot_valid\ndelta.com');
      await page.getByRole('button', { name: 'Create watchlist' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Short names');
      await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('4 names added, 0 already on the list, 1 refused.');
      const refused = page.getByRole('table', { name: 'Refused names', exact: true });
      expect((await refused.getByRole('row').nth(1).getByRole('cell').allTextContents()).map((cell) => cell.trim())).toEqual(['3', 'not_valid', 'not_valid is not a valid domain name']);
      const names = page.getByRole('table', { name: 'Names', exact: true });
      expect((await names.getByRole('row').allTextContents()).slice(1).map((row) => row.trim().split(/\s+/)[0])).toEqual(['alpha.ai', 'beta.ai', 'delta.com', 'gamma.ai']);
      expect(await names.getByRole('button', { name: 'Remove beta.ai' }).count()).toBe(1);
      await page.screenshot({ path: join(screenshots, 'watchlist.png'), fullPage: true });

      await page.getByRole('link', { name: 'All watchlists' }).click();
      const lists = page.getByRole('table', { name: 'Watchlists', exact: true });
      await expect.poll(() => lists.getByRole('link', { name: 'Short names' }).count()).toBe(1);
      expect(await page.getByText('4 of').first().textContent()).toContain('names watched');
      await page.screenshot({ path: join(screenshots, 'watchlists.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  for (const width of [1280, 390] as const) {
    it(`adds the names of an uploaded CSV file at ${width} px, without sideways scrolling`, async () => {
      const account = await createAccount(api.test.database, { email: `uploader-${width}@example.com`, planId: 'pro', at: systemClock.now() });
      const context = await browser.newContext(width === 390 ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      try {
        await signIn(page, account.id);
        await page.goto(`${api.baseUrl}/dashboard/watchlists`);
        await page.getByLabel('Name', { exact: true }).fill('From a file');
        await page.getByLabel('Names', { exact: true }).fill('first.io');
        await page.getByRole('button', { name: 'Create watchlist' }).click();
        await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('From a file');

        // the file a customer has: a CSV export of the API, header row and all
        await page.getByLabel('File of names').setInputFiles({ name: 'export.csv', mimeType: 'text/csv', buffer: Buffer.from('domain_name,tld,status\r\nsecond.io,io,auction\r\nthird.io,io,dropping\r\nbad name,io,auction\r\n') });
        await page.getByRole('button', { name: 'Upload and add' }).click();
        await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('2 names added, 0 already on the list, 1 refused.');
        const names = page.getByRole('table', { name: 'Names', exact: true });
        // a header row and the three names, each with its own Remove (cards on a phone, rows on a desktop)
        expect(await names.getByRole('row').count()).toBe(4);
        for (const name of ['first.io', 'second.io']) expect(await names.getByRole('button', { name: `Remove ${name}` }).count()).toBe(1);
        expect(await names.getByRole('button', { name: 'Remove third.io' }).count()).toBe(1);
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        expect(overflow).toBeLessThanOrEqual(0);
        await page.screenshot({ path: join(screenshots, `dashboard-watchlist-upload-${width}.png`), fullPage: true });
      } finally {
        await context.close();
      }
    });
  }
});
