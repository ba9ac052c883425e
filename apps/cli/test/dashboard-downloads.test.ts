import { randomBytes } from 'node:crypto';
import { DOMAIN_FIELDS } from '@domain-index/contract';
import { eq, plans, requestLog } from '@domain-index/db';
import { testEngines } from '@domain-index/db/testing';
import { DEFAULT_SOURCES } from '@domain-index/indexer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, issueLink } from '@domain-index/accounts/account-store';
import { createKey } from '@domain-index/accounts/key-store';
import { parseAllowedHosts } from '@domain-index/webhooks/address-rules';
import { seedIndex } from '@domain-index/worker/indexing/seed-index';
import { DashboardClient, formTokenOf, textOf } from '@domain-index/test-support/dashboard-client';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';
import { csvRecords } from './support/csv-records';

const PASSWORD = 'correct horse battery staple';
const SEEDED_ROWS = 6_000;
/** A clock that stands still: no seeded auction ends between the download and the API's export. */
const STILL = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 60_000);
const words = (page: string) => textOf(page).replace(/ ([,.:])/g, '$1');

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`exports in the dashboard on ${engine}: an alert's "Download CSV", and the request log's rows`, () => {
    let api: RunningApi;
    const allowList = parseAllowedHosts('127.0.0.1');
    if (!allowList.ok) throw new Error(allowList.reason);

    beforeAll(async () => {
      const clock = { now: () => STILL };
      api = await startApi(engine, { clock, dashboard: {}, overrides: { alerts: { allowList: allowList.allowList } } });
      await seedIndex({ database: api.test.database, sources: DEFAULT_SOURCES, rows: SEEDED_ROWS, clock });
    }, 120_000);
    afterAll(async () => {
      await api?.close();
    });

    /** A signed-in browser of a new account on `plan`. */
    async function signedUp(plan: string): Promise<{ browser: DashboardClient; accountId: string }> {
      const email = `downloads-${randomBytes(4).toString('hex')}@example.com`;
      const account = await createAccount(api.test.database, { email, planId: plan, at: STILL });
      const token = await issueLink(api.test.database, account.id, STILL);
      const browser = new DashboardClient(api.baseUrl);
      expect((await browser.post(`/dashboard/set-password/${token}`, { password: PASSWORD })).status).toBe(303);
      return { browser, accountId: account.id };
    }

    /** An alert made with the dashboard's form; its id. */
    async function alertOf(browser: DashboardClient, query: string): Promise<string> {
      const token = formTokenOf(await (await browser.get('/dashboard/alerts')).text());
      const posted = await browser.post('/dashboard/alerts', { form_token: token, name: `filter ${query}`, query, webhook_url: 'http://127.0.0.1:9/hook' });
      expect(posted.status).toBe(303);
      const shown = await (await browser.follow(posted)).text();
      return /href="\/dashboard\/alerts\/(alt_[\w-]{20})">Go to the alert/.exec(shown)![1]!;
    }

    /** The API's own CSV export of `params`, with a key of the suite's unmetered plan. */
    async function apiExport(params: Record<string, string>): Promise<string> {
      await api.test.database.db.insert(plans).values({ id: 'downloads-unmetered', requestsPerWindow: 100_000, windowSeconds: 3600, exportRowsMax: null, description: 'unmetered' }).onConflictDoNothing();
      const { key } = await createKey(api.test.database, { planId: 'downloads-unmetered', name: 'oracle', environment: 'test' });
      const response = await api.get(`/api/v1/exports/domains?${new URLSearchParams({ ...params, format: 'csv' }).toString()}`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      return response.text();
    }

    it("offers the download on the alert's page and streams the listings its filter matches now, byte for byte the API's CSV export", async () => {
      const { browser } = await signedUp('pro');
      const id = await alertOf(browser, 'type=listing.added,listing.updated&tld=com&no_numbers=true');
      const page = await (await browser.get(`/dashboard/alerts/${id}`)).text();
      expect(page).toContain(`<a class="button quiet" href="/dashboard/alerts/${id}/listings.csv" download>Download CSV</a>`);
      const download = await browser.get(`/dashboard/alerts/${id}/listings.csv`);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
      expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="domains-\d{8}T\d{6}Z\.csv"$/);
      expect(download.headers.get('cache-control')).toBe('no-store');
      const body = await download.text();
      const records = csvRecords(body);
      expect(records[0]).toEqual([...DOMAIN_FIELDS]);
      // the feed's filter without a status is every status: the export's status=all
      expect(body).toBe(await apiExport({ status: 'all', tld: 'com', no_numbers: 'true' }));
      expect(records.length - 1).toBe(Number(download.headers.get('x-total-count')));
      expect(records.length - 1).toBeGreaterThan(100);
      const tld = DOMAIN_FIELDS.indexOf('tld');
      expect(records.slice(1).every((record) => record[tld] === 'com')).toBe(true);
      // gzip when the browser takes it, as the API's export
      const gzipped = await browser.get(`/dashboard/alerts/${id}/listings.csv`, { 'accept-encoding': 'gzip' });
      expect(gzipped.headers.get('content-encoding')).toBe('gzip');
      expect(await gzipped.text()).toBe(body);
    });

    it("refuses more rows than the plan allows per export, and more than the hour's allowance, on the alert's page with the numbers, before any row", async () => {
      const db = api.test.database.db;
      const total = csvRecords(await apiExport({ status: 'all' })).length - 1;
      await db.insert(plans).values({ id: 'downloads-capped', requestsPerWindow: 1000, windowSeconds: 3600, exportRowsMax: 1_000, description: 'capped' }).onConflictDoNothing();
      const { browser: capped } = await signedUp('downloads-capped');
      const everything = await alertOf(capped, 'type=listing.added');
      const tooMany = await capped.get(`/dashboard/alerts/${everything}/listings.csv`);
      expect(tooMany.status).toBe(403);
      expect(tooMany.headers.get('content-type')).toMatch(/^text\/html/);
      expect(words(await tooMany.text())).toContain(
        `this download would stream ${total} rows and your plan (downloads-capped) allows 1000 per export: narrow the alert's filter, or move to a plan with more`,
      );

      // an hour's allowance of two such downloads and one request less than a third
      const rows = csvRecords(await apiExport({ status: 'all', no_hyphens: 'true' })).length - 1;
      const cost = Math.ceil(rows / 1000);
      expect(cost).toBeGreaterThan(1);
      await db.insert(plans).values({ id: 'downloads-hourly', requestsPerWindow: 3 * cost - 1, windowSeconds: 3600, exportRowsMax: null, description: 'hourly' }).onConflictDoNothing();
      const { browser } = await signedUp('downloads-hourly');
      const narrower = await alertOf(browser, 'status=all&no_hyphens=true');
      for (let i = 0; i < 2; i += 1) {
        const ok = await browser.get(`/dashboard/alerts/${narrower}/listings.csv`);
        expect(ok.status).toBe(200);
        expect(csvRecords(await ok.text())).toHaveLength(rows + 1);
      }
      const refused = await browser.get(`/dashboard/alerts/${narrower}/listings.csv`);
      expect(refused.status).toBe(429);
      expect(words(await refused.text())).toMatch(
        new RegExp(`this download would stream ${rows} rows, which costs ${cost} requests \\(one per started 1000 rows\\); your account's downloads have ${cost - 1} left in the current window: retry in \\d+ min, or narrow the alert's filter`),
      );
      // a key of the same plan keeps its own hour: the downloads counted against no key
      const { key } = await createKey(api.test.database, { planId: 'downloads-hourly', name: 'own hour', environment: 'test' });
      const search = await api.get('/api/v1/domains?status=all&limit=10', { headers: { authorization: `Bearer ${key}` } });
      expect(search.status).toBe(200);
      expect(search.headers.get('x-ratelimit-remaining')).toBe(String(3 * cost - 2));
    });

    it("shows an export in the key's request log with the rows it streamed", async () => {
      const { id, key } = await createKey(api.test.database, { planId: 'pro', name: 'exporter', environment: 'live' });
      const response = await api.get('/api/v1/exports/domains?format=jsonl&tld=com&status=all', { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      const streamed = (await response.text()).split('\n').filter((line) => line !== '').length;
      expect(streamed).toBeGreaterThan(100);
      expect(streamed).toBe(Number(response.headers.get('x-total-count')));
      await api.requestLog!.flush();
      const logged = await api.test.database.db
        .select({ path: requestLog.path, status: requestLog.status, rows: requestLog.rowsReturned })
        .from(requestLog)
        .where(eq(requestLog.keyId, id));
      expect(logged).toEqual([{ path: '/api/v1/exports/domains?format=jsonl&tld=com&status=all', status: 200, rows: streamed }]);
    });

    it("answers another account's alert, or a made-up id, with the 404 page, and a signed-out visitor is sent to sign in", async () => {
      const { browser: owner } = await signedUp('pro');
      const id = await alertOf(owner, 'tld=io');
      const { browser: other } = await signedUp('pro');
      const foreign = await other.get(`/dashboard/alerts/${id}/listings.csv`);
      expect(foreign.status).toBe(404);
      expect(await foreign.text()).not.toContain('domain_name,');
      expect((await other.get('/dashboard/alerts/alt_AAAAAAAAAAAAAAAAAAAA/listings.csv')).status).toBe(404);
      const signedOut = await new DashboardClient(api.baseUrl).get(`/dashboard/alerts/${id}/listings.csv`);
      expect(signedOut.status).toBe(303);
      expect(signedOut.headers.get('location')).toMatch(/^\/dashboard\/sign-in/);
    });
  });
}
