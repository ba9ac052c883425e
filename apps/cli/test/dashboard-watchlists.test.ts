import { randomBytes } from 'node:crypto';
import { alerts, type Database } from '@domain-index/db';
import { testEngines } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, issueLink } from '@domain-index/accounts/account-store';
import { updatePlan } from '@domain-index/accounts/plan-store';
import { systemClock } from '@domain-index/runtime/clock';
import { DashboardClient, formTokenOf, textOf } from '@domain-index/test-support/dashboard-client';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

const PASSWORD = 'correct horse battery staple';
const text = (response: Response) => response.text();
const watchlistIdOf = (location: string | null) => /^\/dashboard\/watchlists\/(wl_[\w-]+)/.exec(location ?? '')?.[1];

/** The rows of the table a page labels `label`: each cell's text by its column. */
function tableRows(page: string, label: string): Record<string, string>[] {
  const table = new RegExp(`<table class="cards" role="table" aria-label="${label}">([\\s\\S]*?)</table>`).exec(page)?.[1] ?? '';
  const body = /<tbody role="rowgroup">([\s\S]*?)<\/tbody>/.exec(table)?.[1] ?? '';
  return [...body.matchAll(/<tr role="row">([\s\S]*?)<\/tr>/g)]
    .map((row) => Object.fromEntries([...row[1]!.matchAll(/<td role="cell" data-label="([^"]*)"[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => [cell[1]!, textOf(cell[2]!)])))
    .filter((row) => Object.keys(row).length > 0);
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`the dashboard's watchlists on ${engine}`, () => {
    let api: RunningApi;
    let database: Database;

    beforeAll(async () => {
      api = await startApi(engine, { dashboard: {} });
      database = api.test.database;
      // a plan of 5 names, so its limit is reached in a form or two
      await updatePlan(database, 'free', { watchLimit: 5 });
    });
    afterAll(async () => {
      await api?.close();
    });

    async function signedUp(plan = 'pro'): Promise<{ browser: DashboardClient; accountId: string }> {
      const email = `watch-${randomBytes(4).toString('hex')}@example.com`;
      const account = await createAccount(database, { email, planId: plan, at: systemClock.now() });
      const token = await issueLink(database, account.id, systemClock.now());
      const browser = new DashboardClient(api.baseUrl);
      expect((await browser.post(`/dashboard/set-password/${token}`, { password: PASSWORD })).status).toBe(303);
      return { browser, accountId: account.id };
    }

    /** Posts the create form of the watchlists page as a browser does. */
    async function postWatchlist(browser: DashboardClient, name: string, domains: string): Promise<Response> {
      const token = formTokenOf(await text(await browser.get('/dashboard/watchlists')));
      return browser.post('/dashboard/watchlists', { form_token: token, name, domains });
    }

    /** Posts a form of a watchlist's page, with its form token. */
    async function postOnPage(browser: DashboardClient, id: string, action: string, form: Record<string, string>): Promise<Response> {
      const page = await text(await browser.get(`/dashboard/watchlists/${id}`));
      const token = new RegExp(`action="/dashboard/watchlists/${id}${action}"[^>]*>\\s*<input type="hidden" name="form_token" value="([\\w-]{43})"`).exec(page)?.[1];
      return browser.post(`/dashboard/watchlists/${id}${action}`, { ...(token === undefined ? {} : { form_token: token }), ...form });
    }

    async function createdWatchlist(browser: DashboardClient, name: string, domains: string): Promise<string> {
      const posted = await postWatchlist(browser, name, domains);
      expect(posted.status).toBe(303);
      const id = watchlistIdOf(posted.headers.get('location'));
      expect(id).toBeDefined();
      return id!;
    }

    it('creates a watchlist from a pasted list and shows each refused name by its line', async () => {
      const { browser } = await signedUp();
      const posted = await postWatchlist(browser, 'Short .ai names', 'alpha.ai\nbeta.ai, gamma.ai\nnot a name!\n\nexample..com\nALPHA.ai');
      expect(posted.status).toBe(200);
      const page = await text(posted);
      expect(textOf(page)).toContain('3 names added, 1 already on the list, 4 refused.');
      const refused = tableRows(page, 'Refused names');
      expect(refused.map((row) => [row.Line, row.Name])).toEqual([
        ['3', 'not'],
        ['3', 'a'],
        ['3', 'name!'],
        ['5', 'example..com'],
      ]);
      expect(refused[3]?.Why).toBe('example..com is not a valid domain name');
      const names = tableRows(page, 'Names');
      expect(names.map((row) => row.Name)).toEqual(['alpha.ai', 'beta.ai', 'gamma.ai']);
      expect(names[0]).toMatchObject({ Phase: 'not checked yet', 'Listings now': '0', 'Lowest price': 'none listed' });

      const list = await text(await browser.get('/dashboard/watchlists'));
      expect(tableRows(list, 'Watchlists')).toEqual([expect.objectContaining({ Watchlist: 'Short .ai names', Names: '3' })]);
      expect(list).toContain('Plan <strong>pro</strong>: 3 of');
      expect(list).toContain('href="/dashboard/watchlists" aria-current="page">Watchlists</a>');
    });

    it('adds and removes names, renames and deletes a watchlist, each with a plain notice', async () => {
      const { browser } = await signedUp();
      const id = await createdWatchlist(browser, 'Mine', 'one.com two.com');
      expect(textOf(await text(await browser.get(`/dashboard/watchlists/${id}?notice=created`)))).toContain('The watchlist was created.');

      const added = await postOnPage(browser, id, '/add', { domains: 'three.com\ntwo.com\nbad_name' });
      expect(added.status).toBe(200);
      const addedPage = await text(added);
      expect(textOf(addedPage)).toContain('1 name added, 1 already on the list, 1 refused.');
      expect(tableRows(addedPage, 'Refused names').map((row) => [row.Line, row.Name])).toEqual([['3', 'bad_name']]);
      expect(tableRows(addedPage, 'Names').map((row) => row.Name)).toEqual(['one.com', 'three.com', 'two.com']);

      const removed = await postOnPage(browser, id, '/remove', { domain: 'two.com' });
      expect(removed.status).toBe(303);
      expect(removed.headers.get('location')).toBe(`/dashboard/watchlists/${id}?notice=removed`);
      const afterRemove = await text(await browser.follow(removed));
      expect(textOf(afterRemove)).toContain('The name was removed from this watchlist.');
      expect(tableRows(afterRemove, 'Names').map((row) => row.Name)).toEqual(['one.com', 'three.com']);

      const renamed = await postOnPage(browser, id, '/rename', { name: 'Renamed <list>' });
      expect(renamed.status).toBe(303);
      const renamedPage = await text(await browser.follow(renamed));
      expect(renamedPage).toContain('<h1>Renamed &lt;list&gt;</h1>');
      expect(textOf(renamedPage)).toContain('The watchlist was renamed.');
      expect((await postOnPage(browser, id, '/rename', { name: '   ' })).status).toBe(400);

      const confirm = await text(await browser.get(`/dashboard/watchlists/${id}/delete`));
      expect(textOf(confirm)).toContain('Renamed <list> and its 2 names are deleted');
      const deleted = await browser.post(`/dashboard/watchlists/${id}/delete`, { form_token: formTokenOf(confirm) });
      expect(deleted.status).toBe(303);
      expect(deleted.headers.get('location')).toBe('/dashboard/watchlists?notice=deleted');
      expect(textOf(await text(await browser.follow(deleted)))).toContain('The watchlist was deleted with its names.');
      expect((await browser.get(`/dashboard/watchlists/${id}`)).status).toBe(404);
    });

    it('pages the names 50 at a time by cursor', async () => {
      const { browser } = await signedUp();
      const names = Array.from({ length: 60 }, (_, i) => `name${String(i).padStart(2, '0')}.com`);
      const id = await createdWatchlist(browser, 'Many', names.join('\n'));
      const first = await text(await browser.get(`/dashboard/watchlists/${id}`));
      expect(tableRows(first, 'Names')).toHaveLength(50);
      const next = /href="(\/dashboard\/watchlists\/wl_[\w-]+\?after=[\w-]+)">Next names/.exec(first)?.[1];
      expect(next).toBeDefined();
      const second = await text(await browser.get(next!));
      expect(tableRows(second, 'Names').map((row) => row.Name)).toEqual(names.slice(50));
      expect(second).not.toContain('Next names');
      expect((await browser.get(`/dashboard/watchlists/${id}?after=not%20a%20cursor`)).status).toBe(404);
    });

    it('refuses a delete while an alert uses the watchlist, saying so plainly', async () => {
      const { browser, accountId } = await signedUp();
      const id = await createdWatchlist(browser, 'Used', 'used.com');
      await database.db.insert(alerts).values({ id: `alt_${randomBytes(10).toString('hex')}`, accountId, name: 'on it', query: {}, queryString: '', watchlistId: id, webhookPosition: 0, digestPosition: 0 });
      const confirm = await text(await browser.get(`/dashboard/watchlists/${id}/delete`));
      const refused = await browser.post(`/dashboard/watchlists/${id}/delete`, { form_token: formTokenOf(confirm) });
      expect(refused.status).toBe(409);
      expect(textOf(await text(refused))).toMatch(new RegExp(`watchlist ${id} is used by the alert alt_\\w+: delete the alert or point it elsewhere first`));
      expect((await browser.get(`/dashboard/watchlists/${id}`)).status).toBe(200);
    });

    it("holds the plan to its number of watched names, saying the limit", async () => {
      const { browser } = await signedUp('free');
      const id = await createdWatchlist(browser, 'Small', 'a1.com a2.com a3.com');
      expect(await text(await browser.get('/dashboard/watchlists'))).toContain('Plan <strong>free</strong>: 3 of 5 names watched.');
      const over = await postOnPage(browser, id, '/add', { domains: 'a4.com a5.com a6.com' });
      expect(over.status).toBe(403);
      const page = await text(over);
      expect(textOf(page)).toContain('your plan (free) allows 5 watched names and you watch 3: 3 more would be 6; remove some, or move to a plan with more');
      // the list sent is kept in the form to fix
      expect(page).toContain('a4.com a5.com a6.com</textarea>');
      const create = await postWatchlist(browser, 'Another', 'b1.com b2.com b3.com');
      expect(create.status).toBe(403);
      expect(textOf(await text(create))).toContain('your plan (free) allows 5 watched names');
    });

    it('refuses more than 1,000 names in one form, adding none', async () => {
      const { browser } = await signedUp();
      const names = Array.from({ length: 1001 }, (_, i) => `n${i}.com`).join('\n');
      const posted = await postWatchlist(browser, 'Too many', names);
      expect(posted.status).toBe(400);
      expect(textOf(await text(posted))).toContain('At most 1,000 names can be sent at a time');
      expect(tableRows(await text(await browser.get('/dashboard/watchlists')), 'Watchlists')).toEqual([]);
    });

    it("answers another account's watchlist, or a made-up id, with the 404 page", async () => {
      const { browser } = await signedUp();
      const id = await createdWatchlist(browser, 'Private', 'secret.com');
      const { browser: other } = await signedUp();
      for (const path of [`/dashboard/watchlists/${id}`, `/dashboard/watchlists/${id}/delete`, '/dashboard/watchlists/wl_madeup']) {
        const response = await other.get(path);
        expect(response.status, path).toBe(404);
        expect(await text(response)).toContain('There is no such page.');
      }
      const token = formTokenOf(await text(await other.get('/dashboard/watchlists')));
      for (const action of ['/add', '/remove', '/rename', '/delete']) {
        const response = await other.post(`/dashboard/watchlists/${id}${action}`, { form_token: token, domains: 'x.com', domain: 'secret.com', name: 'taken' });
        expect(response.status, action).toBe(404);
      }
      expect(tableRows(await text(await browser.get(`/dashboard/watchlists/${id}`)), 'Names').map((row) => row.Name)).toEqual(['secret.com']);
    });

    /** Uploads a file with the upload form of a watchlist's page. */
    async function uploadOnPage(browser: DashboardClient, id: string, content: string | Uint8Array, name = 'names.csv'): Promise<Response> {
      const page = await text(await browser.get(`/dashboard/watchlists/${id}`));
      const token = new RegExp(`action="/dashboard/watchlists/${id}/upload"[^>]*>\\s*<input type="hidden" name="form_token" value="([\\w-]{43})"`).exec(page)?.[1];
      expect(token).toBeDefined();
      return browser.upload(`/dashboard/watchlists/${id}/upload`, { form_token: token! }, { field: 'file', name, type: 'text/csv', content });
    }

    it("adds the names of an uploaded file: a text file a name a line, or a CSV's first column (an export of the API as it is), each refused name by its line", async () => {
      const { browser } = await signedUp();
      const id = await createdWatchlist(browser, 'From files', 'kept.io');
      // a CSV as the API exports it: a header row, then the names in the first column, quoted or not, other columns ignored
      const csv = '\uFEFFdomain_name,tld,status\r\ncloud-one.com,com,auction\r\n"cloud-two.com",com,"dropping"\r\n\r\nnot a name,com,auction\r\nkept.io,io,available\r\n';
      const uploaded = await uploadOnPage(browser, id, csv);
      expect(uploaded.status).toBe(200);
      const page = await text(uploaded);
      expect(textOf(page)).toContain('2 names added, 1 already on the list, 1 refused.');
      expect(tableRows(page, 'Refused names').map((row) => [row.Line, row.Name])).toEqual([['5', 'not a name']]);
      expect(tableRows(page, 'Names').map((row) => row.Name)).toEqual(['cloud-one.com', 'cloud-two.com', 'kept.io']);
      // a plain text file, one name a line
      const plain = await uploadOnPage(browser, id, 'third.net\nfourth.org\n', 'names.txt');
      expect(textOf(await text(plain))).toContain('2 names added, 0 already on the list, 0 refused.');
    });

    it('refuses an upload that is too large, not UTF-8, empty, over 1,000 names or without its token, adding none', async () => {
      const { browser } = await signedUp();
      const id = await createdWatchlist(browser, 'Refusals', 'kept.io');
      const refusal = async (response: Response, status: number, message: string) => {
        expect(response.status).toBe(status);
        expect(textOf(await text(response))).toContain(message);
      };
      await refusal(await uploadOnPage(browser, id, `${'a'.repeat(300 * 1024)}.com\n`), 413, 'The file is larger than 256 kB: split it, at most 1,000 names a file.');
      await refusal(await uploadOnPage(browser, id, new Uint8Array([0x63, 0xe9, 0x2e, 0x63, 0x6f, 0x6d, 0x0a])), 400, 'The file is not UTF-8 text');
      await refusal(await uploadOnPage(browser, id, '\n\n'), 400, 'The file holds no names');
      await refusal(await uploadOnPage(browser, id, ''), 400, 'Choose a file of names to upload.');
      await refusal(await uploadOnPage(browser, id, Array.from({ length: 1_001 }, (_, i) => `name${i}.com`).join('\n')), 400, 'At most 1,000 names can be sent at a time');
      const noToken = await browser.upload(`/dashboard/watchlists/${id}/upload`, {}, { field: 'file', name: 'names.txt', type: 'text/plain', content: 'sneaky.com\n' });
      await refusal(noToken, 400, 'Open the page again and send its form from there.');
      const crossSite = await browser.upload(`/dashboard/watchlists/${id}/upload`, {}, { field: 'file', name: 'names.txt', type: 'text/plain', content: 'sneaky.com\n' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
      expect(crossSite.status).toBe(403);
      expect(tableRows(await text(await browser.get(`/dashboard/watchlists/${id}`)), 'Names').map((row) => row.Name)).toEqual(['kept.io']);
    });

    it('refuses a form without its token, and one sent from another site', async () => {
      const { browser } = await signedUp();
      const missing = await browser.post('/dashboard/watchlists', { name: 'No token', domains: 'x.com' });
      expect(missing.status).toBe(400);
      expect(textOf(await text(missing))).toContain('Open the page again and send its form from there. Back to your watchlists');
      const id = await createdWatchlist(browser, 'Kept', 'kept.com');
      for (const action of ['/add', '/remove', '/rename', '/delete']) {
        expect((await browser.post(`/dashboard/watchlists/${id}${action}`, { domains: 'y.com', name: 'y' })).status, action).toBe(400);
      }
      const token = formTokenOf(await text(await browser.get('/dashboard/watchlists')));
      const crossSite = await browser.post('/dashboard/watchlists', { form_token: token, name: 'Forged', domains: 'x.com' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
      expect(crossSite.status).toBe(403);
      const list = tableRows(await text(await browser.get('/dashboard/watchlists')), 'Watchlists');
      expect(list.map((row) => row.Watchlist)).toEqual(['Kept']);
    });

    it('sends a signed-out visitor to sign in', async () => {
      const response = await new DashboardClient(api.baseUrl).get('/dashboard/watchlists');
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/dashboard/sign-in');
    });
  });
}
