import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser } from './support/browser';
import { startApi, type RunningApi } from './support/start-api';

describe.skipIf(!browserAvailable())('the reference page in a real browser', () => {
  let api: RunningApi;
  let browser: Browser;
  beforeAll(async () => {
    api = await startApi('pglite');
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
});
