import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser } from './support/browser';
import { startApi, type RunningApi } from './support/start-api';

/** PUBLIC_URL of the instance: the address the page's samples name (and the screenshot shows). */
const PUBLIC_URL = 'https://domains.example.org';

describe.skipIf(!browserAvailable())('the reference page in a real browser', () => {
  let api: RunningApi;
  let browser: Browser;
  beforeAll(async () => {
    api = await startApi('pglite', { overrides: { publicUrl: PUBLIC_URL } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('renders the three operations with nothing loaded from another host and no policy violation', async () => {
    const context = await browser.newContext();
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(`${api.baseUrl}/docs`);
    for (const summary of ['Search listed domains', 'Look one listed domain up', 'Index statistics']) {
      await expect.poll(() => page.getByRole('heading', { name: summary }).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    }
    await page.screenshot({ path: join(process.env.SCREENSHOTS_DIR ?? tmpdir(), 'api-reference.png') });
    expect(requests.filter((url) => !url.startsWith(api.baseUrl) && !url.startsWith('blob:') && !url.startsWith('data:'))).toEqual([]);
    expect(problems.filter((text) => /Content Security Policy|Refused to/i.test(text))).toEqual([]);
    await context.close();
  });

  it('shows the rate-limit header templates literally and one title per response', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/docs`);
    await expect.poll(() => page.getByRole('heading', { name: 'Search listed domains' }).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    // the 200 responses are expanded (expandResponses): their headers are on the page, as written
    for (const template of ['"hourly";q=<limit>;w=<window>', '"hourly";r=<remaining>;t=<seconds to reset>']) {
      await expect.poll(() => page.getByText(template, { exact: false }).count(), { timeout: 5_000 }).toBe(3);
    }
    const body = await page.locator('body').innerText();
    expect(body).not.toMatch(/"hourly";q=;w=/);
    // each response's button: its status, then its one title
    const titles = (await page.getByRole('button', { name: /^\d{3}\b/ }).allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
    expect(titles).toHaveLength(3 * 8);
    for (const title of titles) {
      expect(title).toMatch(/^\d{3} \S/);
      expect(title, title).not.toMatch(/^(\d{3}) \1\b/);
      expect(title.match(/\b[1-5]\d{2}\b/g), title).toHaveLength(1);
    }
    expect(titles).toContain('200 A page of matching listings');
    await context.close();
  });

  it('shows a curl and a TypeScript client sample for every operation, at 1280 px', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/docs`);
    await expect.poll(() => page.getByRole('heading', { name: 'Search listed domains' }).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    const operations = [
      { path: '/api/v1/domains', call: "client.domains.list({ search: 'cloud', status: 'all', limit: 10 })" },
      { path: '/api/v1/domains/cloudkitchen.com', call: "client.domains.get('cloudkitchen.com')" },
      { path: '/api/v1/stats', call: 'client.stats()' },
    ];
    const curlTabs = page.getByRole('tab', { name: 'curl', exact: true });
    const clientTabs = page.getByRole('tab', { name: 'TypeScript client', exact: true });
    expect(await curlTabs.count()).toBe(operations.length);
    expect(await clientTabs.count()).toBe(operations.length);
    for (const [index, operation] of operations.entries()) {
      // each operation's samples panel: the curl tab is selected first
      const panel = page.getByRole('tabpanel').filter({ hasText: `${PUBLIC_URL}${operation.path}` });
      await curlTabs.nth(index).scrollIntoViewIfNeeded();
      await expect.poll(() => panel.first().isVisible()).toBe(true);
      expect(await panel.first().innerText()).toContain('Authorization: Bearer $DOMAIN_INDEX_API_KEY');
      await clientTabs.nth(index).click();
      const client = page.getByRole('tabpanel').filter({ hasText: operation.call });
      await expect.poll(() => client.first().isVisible()).toBe(true);
      expect(await client.first().innerText()).toContain(`baseUrl: '${PUBLIC_URL}'`);
    }
    // docs/api-reference.png: the first operation, its parameters and its TypeScript sample
    await page.getByRole('heading', { name: 'Search listed domains' }).first().evaluate((heading: { scrollIntoView(): void }) => {
      heading.scrollIntoView();
    });
    await page.screenshot({ path: join(process.env.SCREENSHOTS_DIR ?? tmpdir(), 'api-reference-1280.png') });
    await context.close();
  });
});
