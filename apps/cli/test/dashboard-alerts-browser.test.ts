import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { CSV_HEADER } from '@domain-index/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, issueLink } from '@domain-index/accounts/account-store';
import { AlertContext } from '@domain-index/alerts/alert-deps';
import { deliveryTask } from '@domain-index/worker/alerts/delivery-worker';
import { systemClock } from '@domain-index/runtime/clock';
import { createLogger } from '@domain-index/runtime/logger';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { parseAllowedHosts, type AllowList } from '@domain-index/webhooks/address-rules';
import { browserAvailable, launchBrowser } from '@domain-index/test-support/browser';
import { until } from '@domain-index/test-support/waiting';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';
import { startWebhookReceiver, type WebhookReceiver } from '@domain-index/test-support/webhook-receiver';

/** Where the screenshots go; `SCREENSHOTS_DIR=<the repository>/docs` refreshes the ones docs/dashboard.md shows. */
const screenshots = process.env.SCREENSHOTS_DIR ?? join(tmpdir(), 'di-dashboard-screenshots');
const PASSWORD = 'correct horse battery staple';
const WIDTHS = [1280, 390] as const;
type Width = (typeof WIDTHS)[number];
const allow = (value: string): AllowList => {
  const parsed = parseAllowedHosts(value);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.allowList;
};

describe.skipIf(!browserAvailable())("the dashboard's alerts in a real browser", () => {
  let api: RunningApi;
  let browser: Browser;
  let receiver: WebhookReceiver;
  const loopback = allow('127.0.0.1');
  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    // an instance that can send digests (SMTP configured), so the form offers every channel
    api = await startApi('pglite', { dashboard: {}, overrides: { alerts: { allowList: loopback, digestsAvailable: true } } });
    receiver = await startWebhookReceiver();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await api?.close();
  });

  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  /**
   * How far anything sticks out sideways: the page past the window, and each table past the
   * box it sits in (a table wider than its container scrolls, or is cut, on a phone).
   */
  const overflow = (page: Page) =>
    page.evaluate<number>(`Math.max(
      document.documentElement.scrollWidth - document.documentElement.clientWidth,
      document.querySelector('main').scrollWidth - document.querySelector('main').clientWidth,
      ...[...document.querySelectorAll('table')].map((table) => table.scrollWidth - table.parentElement.clientWidth)
    )`);

  /** The webhook sender as the worker runs it. */
  async function deliveries() {
    const context = new AlertContext(api.test.database, { allowList: loopback });
    return deliveryTask({
      database: api.test.database,
      clock: systemClock,
      logger: createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() })),
      publicUrl: api.baseUrl,
      secret: await loadCursorSecret(api.test.database),
      secretBox: () => context.secretBox(),
      allowList: loopback,
      schedule: [0, 1, 1],
      disableAfterMs: 3_600_000,
    });
  }

  /** A new account, signed in at a width, on its alerts page. */
  async function signedInAt(width: Width): Promise<{ page: Page; close: () => Promise<void> }> {
    const account = await createAccount(api.test.database, { email: `alerts-${width}@example.com`, planId: 'pro', at: systemClock.now() });
    const context = await browser.newContext(width === 390 ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${api.baseUrl}/dashboard/set-password/${await issueLink(api.test.database, account.id, systemClock.now())}`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/keys`);
    await page.getByRole('link', { name: 'Alerts' }).click();
    await expect.poll(() => page.url()).toBe(`${api.baseUrl}/dashboard/alerts`);
    return { page, close: () => context.close() };
  }

  /** Fills and sends the new-alert form; `digest` is the select's label. */
  async function createAlert(page: Page, form: { name: string; filter: string; webhook?: string; digest?: string }): Promise<void> {
    await page.getByLabel('Name').fill(form.name);
    await page.getByLabel('Filter').fill(form.filter);
    await page.getByLabel('Webhook URL').fill(form.webhook ?? '');
    await page.getByLabel('Email digest').selectOption(form.digest ?? 'none');
    await page.getByRole('button', { name: 'Create alert' }).click();
  }

  for (const width of WIDTHS) {
    it(`creates alerts in the form at ${width} px, shows the secret once, lists them, and shows an alert's delivery log, without sideways scrolling`, async () => {
      const { page, close } = await signedInAt(width);
      try {
        // a refusal is shown next to its field, what was typed kept
        await createAlert(page, { name: 'Too cheap', filter: 'min_price=abc', webhook: receiver.url });
        await expect.poll(() => page.getByText('query: min_price must be a number >= 0').count()).toBe(1);
        expect(await page.getByLabel('Name').inputValue()).toBe('Too cheap');

        await createAlert(page, { name: 'Short .ai names under $500', filter: 'type=listing.added&tld=ai&max_price=500&max_length=6&no_hyphens=true', webhook: receiver.url });
        await expect.poll(() => page.url()).toMatch(/\/dashboard\/alerts\/new\/new_[\w-]+$/);
        expect(await page.getByLabel('Signing secret').inputValue()).toMatch(/^whsec_/);
        expect(await overflow(page), `the new secret at ${width}`).toBeLessThanOrEqual(0);
        await page.getByRole('link', { name: 'Go to the alert' }).click();
        await expect.poll(() => page.url()).toMatch(/\/dashboard\/alerts\/alt_[\w-]{20}$/);
        const alertUrl = page.url();
        const alertId = alertUrl.split('/').at(-1)!;

        await page.getByRole('link', { name: 'All alerts' }).click();
        await createAlert(page, { name: 'Dropping brandables (pasted search)', filter: `${api.baseUrl}/api/v1/domains?status=dropping&max_length=8&no_numbers=true&sort=length`, digest: 'daily' });
        await expect.poll(() => page.getByText('The alert was created.').count()).toBe(1);
        // its address is not confirmed yet: the page says so, with the step that fixes it
        await page.getByRole('button', { name: 'Send the confirmation email again' }).click();
        await expect.poll(() => page.getByText('A confirmation email is on its way to your address').count()).toBe(1);
        expect(await page.getByText('The email digest waits for your address to be confirmed').count()).toBe(1);
        expect(await overflow(page), `the digest waiting at ${width}`).toBeLessThanOrEqual(0);
        await shot(page, `dashboard-alert-digest-waiting-${width}`);

        // one whose receiver has gone (410), so the list shows a webhook turned off
        await page.getByRole('link', { name: 'All alerts' }).click();
        await createAlert(page, { name: 'Old receiver', filter: 'type=listing.ending_soon&min_score=60', webhook: `${receiver.url}?gone=1` });
        await page.getByRole('link', { name: 'Go to the alert' }).click();
        const goneUrl = page.url();

        // deliveries: three tests, the third answered 500 with a body then 200 on its retry, and the gone receiver's 410
        const goneId = goneUrl.split('/').at(-1)!;
        let answered = 0;
        receiver.answerWith((_index, request) => {
          if (request.body.includes(goneId)) return { status: 410, body: 'gone' };
          answered += 1;
          return answered === 3 ? { status: 500, body: '{"error":"database <timeout>"}' } : { status: 200, body: '{"ok":true}' };
        });
        const before = receiver.received.length;
        await page.getByRole('button', { name: 'Send test' }).click();
        await page.goto(alertUrl);
        for (let i = 0; i < 3; i += 1) {
          await page.getByRole('button', { name: 'Send test' }).click();
          await expect.poll(() => page.getByText('A test message is queued').count()).toBe(1);
        }
        const task = await deliveries();
        await until('the tests were answered, the failed one again', async () => {
          await task.run();
          return receiver.received.length >= before + 5;
        });

        await page.getByRole('link', { name: 'All alerts' }).click();
        await expect.poll(() => page.getByText('A webhook is turned off').count()).toBe(1);
        expect(await page.getByRole('row', { name: /Old receiver/ }).getByText('webhook off').count()).toBe(1);
        expect(await overflow(page), `the alerts list at ${width}`).toBeLessThanOrEqual(0);
        await shot(page, `dashboard-alerts-${width}`);

        await page.goto(alertUrl);
        await expect.poll(() => page.getByRole('row', { name: /HTTP 500/ }).count()).toBeGreaterThan(0);
        expect(await page.getByRole('button', { name: 'Resend' }).count()).toBeGreaterThan(3);
        expect(await overflow(page), `the alert's page at ${width}`).toBeLessThanOrEqual(0);
        await shot(page, `dashboard-alert-${width}`);

        // Download CSV saves a file, not a page: the listings the filter matches (none in this suite's index: the header row alone)
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
        expect(download.suggestedFilename()).toMatch(/^domains-\d{8}T\d{6}Z\.csv$/);
        expect(readFileSync(await download.path(), 'utf8')).toBe(CSV_HEADER);
        expect(page.url()).toBe(alertUrl);

        await page.goto(goneUrl);
        await expect.poll(() => page.getByText('The webhook is turned off').count()).toBe(1);
        expect(await overflow(page), `a turned-off webhook at ${width}`).toBeLessThanOrEqual(0);
        await shot(page, `dashboard-alert-disabled-${width}`);

        // delete asks first
        await page.getByRole('link', { name: 'Delete' }).click();
        await page.getByRole('button', { name: 'Delete' }).click();
        await expect.poll(() => page.getByText('The alert was deleted').count()).toBe(1);
        expect(await page.getByRole('row', { name: /Old receiver/ }).count()).toBe(0);
        expect(alertId).toMatch(/^alt_/);
      } finally {
        await close();
      }
    });
  }
});
