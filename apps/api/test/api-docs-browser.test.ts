import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser } from '@domain-index/test-support/browser';
import { startApi, type RunningApi } from './support/start-api';

/** PUBLIC_URL of the instance: the address the page's samples name (and the screenshot shows). */
const PUBLIC_URL = 'https://domains.example.org';

type Json = Record<string, unknown>;
/** A heading's accessible name ending in `text`: Redoc puts an anchor labelled with its path before it. */
const headingNamed = (text: string) => new RegExp(`(^|\\s)${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
/** The operations of the served document, in its order. */
async function documentOperations(api: RunningApi): Promise<{ path: string; method: string; summary: string; statuses: string[] }[]> {
  const document = (await (await api.raw('/openapi.json')).json()) as { paths: Record<string, Record<string, Json>> };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, summary: String(operation.summary), statuses: Object.keys(operation.responses as Json) })),
  );
}

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

  it('renders every operation with nothing loaded from another host and no policy violation', async () => {
    const context = await browser.newContext();
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(`${api.baseUrl}/docs`);
    const operations = await documentOperations(api);
    expect(operations).toHaveLength(23);
    for (const { summary } of operations) {
      await expect.poll(() => page.getByRole('heading', { name: headingNamed(summary) }).count(), { timeout: 15_000 }).toBe(1);
    }
    // the groups, alerts and the change feed among them
    for (const tag of ['Domains', 'Events', 'Alerts', 'Statistics']) {
      await expect.poll(() => page.getByRole('heading', { name: headingNamed(tag) }).count(), { timeout: 5_000 }).toBe(1);
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
    const operations = await documentOperations(api);
    // the success responses (200, 201, 202) are expanded (expandResponses): their headers are on the page, as written
    const expanded = operations.filter((operation) => operation.statuses.some((status) => ['200', '201', '202'].includes(status))).length;
    expect(expanded).toBe(23);
    for (const template of ['"hourly";q=<limit>;w=<window>', '"hourly";r=<remaining>;t=<seconds to reset>']) {
      await expect.poll(() => page.getByText(template, { exact: false }).count(), { timeout: 5_000 }).toBe(expanded);
    }
    const body = await page.locator('body').innerText();
    expect(body).not.toMatch(/"hourly";q=;w=/);
    // each response's button: its status, then its one title
    const titles = (await page.getByRole('button', { name: /^\d{3}\b/ }).allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
    expect(titles).toHaveLength(operations.reduce((sum, operation) => sum + operation.statuses.length, 0));
    for (const title of titles) {
      expect(title).toMatch(/^\d{3} \S/);
      expect(title, title).not.toMatch(/^(\d{3}) \1\b/);
      expect(title.match(/\b[1-5]\d{2}\b/g), title).toHaveLength(1);
    }
    expect(titles).toContain('200 A page of matching listings');
    // the writes' JSON bodies, with their fields
    await expect.poll(() => page.getByText('Request Body schema: application/json').count(), { timeout: 5_000 }).toBe(5);
    expect(titles).toContain('201 The alert, with its signing secret (shown once)');
    expect(titles).toContain('202 The test message, queued');
    expect(titles).toContain("403 The key's plan does not allow it: alert_limit_reached");
    expect(titles).toContain('410 The cursor is older than the events kept: cursor_expired');
    await context.close();
  });

  it('shows a curl and a TypeScript client sample for every operation, at 1280 px', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/docs`);
    await expect.poll(() => page.getByRole('heading', { name: 'Search listed domains' }).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    const alert = '/api/v1/alerts/alt_7Qw2mXc9Rk4TbN1y';
    const watchlist = '/api/v1/watchlists/wl_3kQ9vT2mXw8RbN4p';
    const operations = [
      { method: 'GET', path: '/api/v1/domains?search=cloud&status=all&limit=10', call: "client.domains.list({ search: 'cloud', status: 'all', limit: 10 })" },
      { method: 'GET', path: '/api/v1/domains/cloudkitchen.com', call: "client.domains.get('cloudkitchen.com')" },
      { method: 'GET', path: '/api/v1/exports/domains?format=csv&status=all&tld=ai&max_price=500', call: 'client.domains.export(' },
      { method: 'GET', path: '/api/v1/events?type=listing.added&tld=ai&max_price=500&no_hyphens=true', call: 'client.events.pages(' },
      { method: 'POST', path: '/api/v1/alerts', call: 'client.alerts.create({', body: '"name":"Cheap .ai names"' },
      { method: 'GET', path: '/api/v1/alerts', call: 'client.alerts.list()' },
      { method: 'GET', path: alert, call: "client.alerts.get('alt_7Qw2mXc9Rk4TbN1y')" },
      { method: 'PATCH', path: alert, call: "client.alerts.update('alt_7Qw2mXc9Rk4TbN1y', { paused: true })", body: '{"paused":true}' },
      { method: 'DELETE', path: alert, call: "client.alerts.delete('alt_7Qw2mXc9Rk4TbN1y')" },
      { method: 'POST', path: `${alert}/test`, call: "client.alerts.test('alt_7Qw2mXc9Rk4TbN1y')" },
      { method: 'GET', path: `${alert}/deliveries?limit=20`, call: "client.alerts.deliveries('alt_7Qw2mXc9Rk4TbN1y', { limit: 20 })" },
      { method: 'POST', path: `${alert}/deliveries/msg_Zr0sQmA1bC2dE3fG4hI5jK/resend`, call: "client.alerts.resend('alt_7Qw2mXc9Rk4TbN1y', 'msg_Zr0sQmA1bC2dE3fG4hI5jK')" },
      { method: 'POST', path: `${alert}/rotate-secret`, call: "client.alerts.rotateSecret('alt_7Qw2mXc9Rk4TbN1y')" },
      { method: 'GET', path: '/api/v1/names/cloudhosting.com', call: "client.names.get('cloudhosting.com')" },
      { method: 'POST', path: '/api/v1/watchlists', call: 'client.watchlists.create({', body: '"name":"Drops to catch"' },
      { method: 'GET', path: '/api/v1/watchlists', call: 'client.watchlists.list()' },
      { method: 'GET', path: watchlist, call: "client.watchlists.get('wl_3kQ9vT2mXw8RbN4p')" },
      { method: 'PATCH', path: watchlist, call: "client.watchlists.update('wl_3kQ9vT2mXw8RbN4p', { name: 'Drops to catch this week' })", body: '{"name":"Drops to catch this week"}' },
      { method: 'DELETE', path: watchlist, call: "client.watchlists.delete('wl_3kQ9vT2mXw8RbN4p')" },
      { method: 'POST', path: `${watchlist}/domains`, call: "client.watchlists.addDomains('wl_3kQ9vT2mXw8RbN4p',", body: '"domains":["cloudhosting.com","not a name","brandable.io"]' },
      { method: 'GET', path: `${watchlist}/domains`, call: "client.watchlists.domains('wl_3kQ9vT2mXw8RbN4p')" },
      { method: 'DELETE', path: `${watchlist}/domains/cloudhosting.com`, call: "client.watchlists.removeDomain('wl_3kQ9vT2mXw8RbN4p', 'cloudhosting.com')" },
      { method: 'GET', path: '/api/v1/stats', call: 'client.stats()' },
    ];
    const curlTabs = page.getByRole('tab', { name: 'curl', exact: true });
    const clientTabs = page.getByRole('tab', { name: 'TypeScript client', exact: true });
    expect(await curlTabs.count()).toBe(operations.length);
    expect(await clientTabs.count()).toBe(operations.length);
    // each tab shows its own panel when clicked: read every operation's two samples as a reader would
    const shown = async (tab: typeof curlTabs): Promise<string> => {
      await tab.scrollIntoViewIfNeeded();
      await tab.click();
      const panel = page.locator(`[id="${await tab.getAttribute('aria-controls')}"]`);
      await expect.poll(() => panel.isVisible(), { timeout: 5_000 }).toBe(true);
      return panel.innerText();
    };
    const curls: string[] = [];
    const clients: string[] = [];
    for (let index = 0; index < operations.length; index += 1) {
      curls.push(await shown(curlTabs.nth(index)));
      clients.push(await shown(clientTabs.nth(index)));
    }
    for (const operation of operations) {
      // the URL ends the command, with the method named unless it is GET, and the JSON body where there is one
      const url = `"${PUBLIC_URL}${operation.path}"`;
      const matching = curls.filter((curl) => curl.trimEnd().endsWith(url) && (operation.method === 'GET' ? !/-X /.test(curl) : curl.includes(`-X ${operation.method}`)));
      expect(matching, `${operation.method} ${url}`).toHaveLength(1);
      const curl = matching[0]!;
      expect(curl).toContain('Authorization: Bearer $DOMAIN_INDEX_API_KEY');
      if (operation.body === undefined) expect(curl, operation.path).not.toContain('-d ');
      else {
        expect(curl).toContain("-H 'Content-Type: application/json'");
        expect(curl).toContain(operation.body);
      }
      const client = clients.filter((sample) => sample.includes(operation.call));
      expect(client, operation.call).toHaveLength(1);
      expect(client[0]).toContain(`baseUrl: '${PUBLIC_URL}'`);
    }
    // docs/api-reference.png: the first operation, its parameters and its TypeScript sample
    await page.getByRole('heading', { name: 'Search listed domains' }).first().evaluate((heading: { scrollIntoView(): void }) => {
      heading.scrollIntoView();
    });
    await page.screenshot({ path: join(process.env.SCREENSHOTS_DIR ?? tmpdir(), 'api-reference-1280.png') });
    await context.close();
  });
});
