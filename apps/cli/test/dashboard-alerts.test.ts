import { randomBytes } from 'node:crypto';
import { WEBHOOK_URL_CREDENTIALS, WEBHOOK_URL_REFUSED } from '@domain-index/contract';
import { accounts, alerts, digestRecipients, eq, type Database } from '@domain-index/db';
import { testEngines } from '@domain-index/db/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, issueLink } from '@domain-index/accounts/account-store';
import { suppress } from '@domain-index/alerts/digest-recipients';
import { systemClock } from '@domain-index/runtime/clock';
import { parseAllowedHosts, type AllowList } from '@domain-index/webhooks/address-rules';
import { DashboardClient, formTokenOf, listRows, textOf } from '@domain-index/test-support/dashboard-client';
import { confirmDigestAddress } from './support/digest-addresses';
import { until } from '@domain-index/test-support/waiting';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';
import { startWebhookReceiver, type WebhookReceiver } from '@domain-index/test-support/webhook-receiver';
import { suiteDeliveryTask } from './support/delivery-task';

const PASSWORD = 'correct horse battery staple';
const text = (response: Response) => response.text();
const allow = (value: string): AllowList => {
  const parsed = parseAllowedHosts(value);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.allowList;
};

/** The secret a "new secret" page shows once. */
const shownSecret = (page: string) => /id="new-secret" readonly value="(whsec_[A-Za-z0-9+/=]+)"/.exec(page)?.[1];
/** The error shown next to a field of a form (`new` or `edit`). */
const fieldError = (page: string, form: string, field: string) => {
  const match = new RegExp(`<span class="field-error" id="${form}-${field}-error">([^<]*)</span>`).exec(page)?.[1];
  return match === undefined ? undefined : textOf(match);
};
/** A page's text as read: tags dropped, and no space left before punctuation that followed a tag. */
const words = (page: string) => textOf(page).replace(/ ([,.:])/g, '$1');
const alertIdOf = (location: string | null) => /^\/dashboard\/alerts\/(alt_[\w-]{20})/.exec(location ?? '')?.[1];

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`the dashboard's alerts on ${engine}`, () => {
    let api: RunningApi;
    let withMail: RunningApi;
    let database: Database;
    let receiver: WebhookReceiver;
    const loopback = allow('127.0.0.1');
    /** Every secret a page showed: none may be in a log line. */
    const secrets: string[] = [];

    beforeAll(async () => {
      api = await startApi(engine, { dashboard: {}, overrides: { alerts: { allowList: loopback } } });
      database = api.test.database;
      // the same database, an instance that can send email digests (SMTP configured)
      withMail = await startApi(engine, { test: api.test, dashboard: {}, overrides: { alerts: { allowList: loopback, digestsAvailable: true } } });
      receiver = await startWebhookReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
      await withMail?.close();
      await api?.close();
    });

    /** The webhook sender as the worker runs it, with a short retry schedule. */
    const deliveries = () => suiteDeliveryTask(database, api.baseUrl, loopback);

    /** A new account with its password set through its one-time link: a signed-in browser. */
    async function signedUp(plan = 'pro', on: RunningApi = api): Promise<{ browser: DashboardClient; accountId: string }> {
      const email = `alerts-${randomBytes(4).toString('hex')}@example.com`;
      const account = await createAccount(database, { email, planId: plan, at: systemClock.now() });
      const token = await issueLink(database, account.id, systemClock.now());
      const browser = new DashboardClient(on.baseUrl);
      expect((await browser.post(`/dashboard/set-password/${token}`, { password: PASSWORD })).status).toBe(303);
      return { browser, accountId: account.id };
    }

    /** Posts the new-alert form of the alerts page as a browser does. */
    async function postAlert(browser: DashboardClient, form: Record<string, string>, token?: string): Promise<{ posted: Response; token: string }> {
      const formToken = token ?? formTokenOf(await text(await browser.get('/dashboard/alerts')));
      return { posted: await browser.post('/dashboard/alerts', { form_token: formToken, ...form }), token: formToken };
    }

    /** Creates an alert with a webhook and returns its id and the secret its page showed once. */
    async function createdAlert(browser: DashboardClient, name: string, query = 'type=listing.added'): Promise<{ id: string; secret: string }> {
      const { posted } = await postAlert(browser, { name, query, webhook_url: receiver.url });
      expect(posted.status).toBe(303);
      expect(posted.headers.get('location')).toMatch(/^\/dashboard\/alerts\/new\/new_[\w-]+$/);
      const shown = await browser.follow(posted);
      expect(shown.status).toBe(200);
      const page = await text(shown);
      const secret = shownSecret(page)!;
      expect(secret).toMatch(/^whsec_/);
      secrets.push(secret);
      const id = /href="\/dashboard\/alerts\/(alt_[\w-]{20})">Go to the alert/.exec(page)?.[1];
      expect(id).toBeDefined();
      return { id: id!, secret };
    }

    /** Posts a form of an alert's page (its buttons carry a form token where one is needed). */
    async function postOnPage(browser: DashboardClient, alertId: string, action: string, form: Record<string, string> = {}): Promise<Response> {
      const page = await text(await browser.get(`/dashboard/alerts/${alertId}`));
      const token = new RegExp(`action="/dashboard/alerts/${alertId}${action}">\\s*<input type="hidden" name="form_token" value="([\\w-]{43})"`).exec(page)?.[1];
      return browser.post(`/dashboard/alerts/${alertId}${action}`, { ...(token === undefined ? {} : { form_token: token }), ...form });
    }

    it('creates an alert from the form, shows its signing secret once after the redirect, and a second post of the form makes no second alert', async () => {
      const { browser, accountId } = await signedUp();
      const empty = await text(await browser.get('/dashboard/alerts'));
      expect(empty).toContain('No alerts yet');
      expect(empty).toContain('<a href="/dashboard/alerts" aria-current="page">Alerts</a>');
      // without SMTP the digest is not offered, as the API refuses it
      expect(empty).not.toContain('name="email_digest"');
      expect(empty).toContain('Email digests are not offered');
      const { posted, token } = await postAlert(browser, { name: 'Cheap .ai', query: '?type=listing.added&tld=ai&max_price=500', webhook_url: receiver.url });
      expect(posted.status).toBe(303);
      const shown = await browser.follow(posted);
      expect(shown.headers.get('cache-control')).toBe('no-store');
      const page = await text(shown);
      expect(page).toContain('it will not be shown again');
      const secret = shownSecret(page)!;
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      secrets.push(secret);
      // the secret is never in a URL
      expect(posted.headers.get('location')).not.toContain(secret);
      const again = await text(await browser.get(posted.headers.get('location')!));
      expect(shownSecret(again)).toBeUndefined();
      expect(again).toContain('It was shown once, when it was made, and cannot be shown again.');
      // the same form posted again (a double click, a retry) leads to the same page, and makes nothing
      const repeat = await browser.post('/dashboard/alerts', { form_token: token, name: 'Cheap .ai', query: 'type=listing.added', webhook_url: receiver.url });
      expect(repeat.status).toBe(303);
      expect(repeat.headers.get('location')).toBe(posted.headers.get('location'));
      expect(await database.db.$count(alerts, eq(alerts.accountId, accountId))).toBe(1);
      // a form without its token is refused
      expect((await browser.post('/dashboard/alerts', { name: 'x', query: '', webhook_url: receiver.url })).status).toBe(400);

      const rows = listRows(await text(await browser.get('/dashboard/alerts')));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        Alert: 'Cheap .ai max_price=500 tld=ai type=listing.added',
        'Delivers to': `Webhook ${new URL(receiver.url).host}`,
        State: 'active Delivers every match.',
        'Last delivery': 'nothing sent yet',
      });
      // the keys' page of a new key never shows an alert's secret
      const revealId = posted.headers.get('location')!.split('/').at(-1)!;
      expect((await browser.get(`/dashboard/keys/new/${revealId}`)).status).toBe(404);
    });

    it("takes a pasted search URL as the change feed's filter for the same listings", async () => {
      const { browser } = await signedUp();
      const { id } = await createdAlert(browser, 'Pasted search', `${api.baseUrl}/api/v1/domains?tld=ai&no_hyphens=true&sort=current_bid&order=asc&limit=100`);
      const page = await text(await browser.get(`/dashboard/alerts/${id}`));
      expect(page).toContain('<code>no_hyphens=true</code> <code>status=auction</code> <code>tld=ai</code>');
      const { posted } = await postAlert(browser, { name: 'Every status', query: '/api/v1/domains?search=cloud&status=all', webhook_url: receiver.url });
      expect(posted.status).toBe(303);
      const other = listRows(await text(await browser.get('/dashboard/alerts'))).find((row) => row.Alert!.startsWith('Every status'));
      expect(other?.Alert).toBe('Every status search=cloud');
    });

    it("shows what to fix next to the field, in the API's words, keeping what was typed", async () => {
      const { browser } = await signedUp();
      const cases: [Record<string, string>, string, string | RegExp][] = [
        [{ name: '  ', query: '', webhook_url: receiver.url }, 'name', 'name must not be empty'],
        [{ name: 'Bad price', query: 'min_price=abc', webhook_url: receiver.url }, 'query', 'query: min_price must be a number >= 0, written in plain decimal (e.g. 12 or 12.5)'],
        [{ name: 'Position', query: `${api.baseUrl}/api/v1/events?after=now`, webhook_url: receiver.url }, 'query', 'query: after is not a filter: an alert starts at its creation and sends every match'],
        [{ name: 'Private', query: '', webhook_url: 'https://10.1.2.3/hook' }, 'webhook_url', WEBHOOK_URL_REFUSED],
        [{ name: 'Loopback', query: '', webhook_url: 'http://127.0.0.2:9/hook' }, 'webhook_url', WEBHOOK_URL_REFUSED],
        [{ name: 'Nowhere', query: 'tld=ai', webhook_url: '' }, 'webhook_url', 'webhook_url: an alert needs somewhere to deliver: a webhook_url, an email_digest, or both'],
        [{ name: 'Mail', query: '', webhook_url: '', email_digest: 'daily' }, 'email_digest', 'email_digest: this server sends no email (its operator has not configured SMTP); use a webhook'],
      ];
      for (const [form, field, message] of cases) {
        const { posted } = await postAlert(browser, form);
        expect(posted.status, field).toBe(400);
        const page = await text(posted);
        if (typeof message === 'string') expect(fieldError(page, 'new', field), form.name).toBe(message);
        else expect(fieldError(page, 'new', field), form.name).toMatch(message);
        // what was typed is kept
        expect(page).toContain(`value="${form.name}"`);
        if (field !== 'email_digest') expect(page).toContain(`aria-invalid="true" aria-describedby="new-${field}-error"`);
      }
      // nothing was made
      expect(await text(await browser.get('/dashboard/alerts'))).toContain('No alerts yet: create one below.');
    });

    it("holds the plan to its number of alerts, saying the limit", async () => {
      const { browser } = await signedUp('free');
      await createdAlert(browser, 'one');
      const { posted: second } = await postAlert(browser, { name: 'two', query: '', webhook_url: receiver.url });
      expect(second.status).toBe(303);
      const page = await text(await browser.get('/dashboard/alerts'));
      expect(page).toContain('Plan <strong>free</strong>: 2 of 2 alerts.');
      expect(textOf(page)).toContain('Your plan (free) allows 2 alerts and you have 2: delete one to create another, or move to a plan with more.');
      expect(page).not.toContain('Create alert');
      // a form from before the limit was reached is refused with the API's message
      const token = formTokenOf(await text(await browser.get('/dashboard/keys')));
      const third = await browser.post('/dashboard/alerts', { form_token: token, name: 'three', query: '', webhook_url: receiver.url });
      expect(third.status).toBe(403);
      expect(textOf(await text(third))).toContain('Your plan (free) allows 2 alerts and you have 2');
    });

    it('offers the email digest when SMTP is configured; a digest-only alert has no secret and lands on its page', async () => {
      const { browser, accountId } = await signedUp('pro', withMail);
      const form = await text(await browser.get('/dashboard/alerts'));
      expect(form).toContain('<select name="email_digest">');
      const { posted, token } = await postAlert(browser, { name: 'Morning mail', query: 'tld=io', webhook_url: '', email_digest: 'daily' });
      expect(posted.status).toBe(303);
      const id = alertIdOf(posted.headers.get('location'));
      expect(posted.headers.get('location')).toBe(`/dashboard/alerts/${id}?notice=created`);
      const page = await text(await browser.follow(posted));
      expect(page).toContain('The alert was created.');
      expect(page).toContain('Email, daily');
      expect(page).not.toContain('Send test');
      expect(page).not.toContain('Rotate secret');
      const repeat = await browser.post('/dashboard/alerts', { form_token: token, name: 'Morning mail', query: 'tld=io', webhook_url: '', email_digest: 'daily' });
      expect((await browser.follow(repeat)).status).toBe(303);
      expect(await database.db.$count(alerts, eq(alerts.accountId, accountId))).toBe(1);
      expect(listRows(await text(await browser.get('/dashboard/alerts')))[0]).toMatchObject({
        'Delivers to': 'Email, daily waiting for confirmation : nothing is mailed until you click the link sent to your address',
        State: 'waiting Nothing is mailed until your address is confirmed.',
        'Last delivery': 'by email only',
      });
    });

    it("shows a digest waiting for its address's confirmation, or unsubscribed, and sends the confirmation email again on request", async () => {
      const { browser, accountId } = await signedUp('pro', withMail);
      const [{ email } = { email: '' }] = await database.db.select({ email: accounts.email }).from(accounts).where(eq(accounts.id, accountId));
      const { posted } = await postAlert(browser, { name: 'Evening mail', query: 'tld=ai', webhook_url: '', email_digest: 'daily' });
      const id = alertIdOf(posted.headers.get('location'))!;
      const waiting = words(await text(await browser.get(`/dashboard/alerts/${id}`)));
      expect(waiting).toContain('The email digest waits for your address to be confirmed: a confirmation email was sent to it; nothing is mailed until its link is clicked.');
      expect(waiting).toContain('Email, daily waiting for confirmation: nothing is mailed until you click the link sent to your address');

      // mailed already: asking again asks the worker for a new one
      await database.db.update(digestRecipients).set({ confirmRequestedAt: null, confirmSentAt: new Date(Date.now() - 3_600_000) }).where(eq(digestRecipients.address, email));
      const again = await postOnPage(browser, id, '/confirm-email');
      expect(again.headers.get('location')).toBe(`/dashboard/alerts/${id}?notice=confirmation`);
      expect(words(await text(await browser.follow(again)))).toContain('A confirmation email is on its way to your address (at most one every 10 minutes): digests are mailed once its link is clicked.');
      expect((await database.db.select({ asked: digestRecipients.confirmRequestedAt }).from(digestRecipients).where(eq(digestRecipients.address, email)))[0]?.asked).toBeInstanceOf(Date);

      await confirmDigestAddress(database, email);
      const confirmed = await text(await browser.get(`/dashboard/alerts/${id}`));
      expect(confirmed).not.toContain('Send the confirmation email again');
      expect(listRows(await text(await browser.get('/dashboard/alerts'))).find((row) => row.Alert!.startsWith('Evening mail'))).toMatchObject({ 'Delivers to': 'Email, daily', State: 'active Delivers every match.' });

      await suppress(database.db, email, new Date());
      const unsubscribed = words(await text(await browser.get(`/dashboard/alerts/${id}`)));
      expect(unsubscribed).toContain('The email digest is not mailed: your address used the unsubscribe link of a digest, so no digest of any alert goes to it until it is confirmed again.');
      expect(unsubscribed).toContain('Email, daily unsubscribed: your address used an unsubscribe link, so nothing is mailed until it is confirmed again');
      expect(listRows(await text(await browser.get('/dashboard/alerts'))).find((row) => row.Alert!.startsWith('Evening mail'))!.State).toBe('not mailed Your address unsubscribed; confirm it again to resume.');
      expect((await postOnPage(browser, id, '/confirm-email')).headers.get('location')).toBe(`/dashboard/alerts/${id}?notice=confirmation`);
      expect(words(await text(await browser.get(`/dashboard/alerts/${id}`)))).toContain('The email digest waits for your address to be confirmed');
      // an alert without a digest has no address to confirm
      const { id: hooked } = await createdAlert(browser, 'Hook only');
      const refused = await browser.post(`/dashboard/alerts/${hooked}/confirm-email`, {});
      expect(refused.status).toBe(400);
      expect(words(await text(refused))).toContain('the alert has no email digest, so no address to confirm; set email_digest first');
    });

    it('sends a test, logs its attempt with the answer escaped, resends it, pauses, resumes, rotates, edits and deletes, each in the audit log', async () => {
      const { browser } = await signedUp();
      const { id, secret } = await createdAlert(browser, 'Hooked <b>');
      receiver.received.length = 0;
      receiver.answerWith(() => ({ status: 200, body: '<script>alert(1)</script>' }));
      const task = await deliveries();

      const tested = await postOnPage(browser, id, '/test');
      expect(tested.status).toBe(303);
      expect(tested.headers.get('location')).toBe(`/dashboard/alerts/${id}?notice=test`);
      await until('the test arrived', async () => {
        await task.run();
        return receiver.received.length >= 1;
      });
      // signed with the secret the page showed
      const [first] = receiver.received;
      expect((new Webhook(secret).verify(first!.body, first!.headers as Record<string, string>) as { type: string }).type).toBe('test');
      await until('its attempt is recorded', async () => listRows(await text(await browser.get(`/dashboard/alerts/${id}`)))[0]?.Outcome === 'HTTP 200');
      const page = await text(await browser.get(`/dashboard/alerts/${id}`));
      expect(page).toContain('<code class="wrap">&lt;script&gt;alert(1)&lt;/script&gt;</code>');
      expect(page).not.toContain('<script>alert(1)');
      expect(page).toContain('<title>Hooked &lt;b&gt; · Domain Index</title>');
      const [attempt] = listRows(page);
      expect(attempt).toMatchObject({ Message: `test ${String(first!.headers['webhook-id'])}`, Outcome: 'HTTP 200', Response: '<script>alert(1)</script>', Actions: 'Resend' });
      expect(attempt!.Duration).toMatch(/^\d+ ms$/);
      expect(listRows(await text(await browser.get('/dashboard/alerts')))[0]!['Last delivery']!.replace(' ,', ',')).toMatch(/^20\d\d-\d\d-\d\d \d\d:\d\d UTC delivered, 1 attempt$/);

      const resent = await browser.post(`/dashboard/alerts/${id}/deliveries/${String(first!.headers['webhook-id'])}/resend`, {});
      expect(resent.headers.get('location')).toBe(`/dashboard/alerts/${id}?notice=resent`);
      await until('the message came again', async () => {
        await task.run();
        return receiver.received.length >= 2;
      });
      expect(receiver.received[1]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect((await browser.post(`/dashboard/alerts/${id}/deliveries/msg_madeup/resend`, {})).status).toBe(404);

      expect((await postOnPage(browser, id, '/pause')).headers.get('location')).toBe(`/dashboard/alerts/${id}?notice=paused`);
      expect(listRows(await text(await browser.get('/dashboard/alerts')))[0]!.State).toMatch(/^paused /);
      expect((await postOnPage(browser, id, '/resume')).headers.get('location')).toBe(`/dashboard/alerts/${id}?notice=resumed`);
      expect(listRows(await text(await browser.get('/dashboard/alerts')))[0]!.State).toMatch(/^active /);

      const rotated = await postOnPage(browser, id, '/rotate-secret');
      expect(rotated.status).toBe(303);
      const rotatedPage = await text(await browser.follow(rotated));
      const newSecret = shownSecret(rotatedPage)!;
      secrets.push(newSecret);
      expect(newSecret).toMatch(/^whsec_/);
      expect(newSecret).not.toBe(secret);
      expect(rotatedPage).toContain('The old secret also signs deliveries for 24 hours');
      expect(shownSecret(await text(await browser.get(rotated.headers.get('location')!)))).toBeUndefined();

      const edit = formTokenOf(await text(await browser.get(`/dashboard/alerts/${id}`)));
      const saved = await browser.post(`/dashboard/alerts/${id}`, { form_token: edit, name: 'Renamed', query: 'type=listing.added', webhook_url: receiver.url });
      expect(saved.headers.get('location')).toBe(`/dashboard/alerts/${id}?notice=saved`);
      const refused = await browser.post(`/dashboard/alerts/${id}`, { form_token: edit, name: 'Renamed', query: 'tld=', webhook_url: '' });
      expect(refused.status).toBe(400);
      expect(fieldError(await text(refused), 'edit', 'webhook_url')).toBe('webhook_url: an alert needs somewhere to deliver: keep a webhook_url or an email_digest');

      const confirm = await text(await browser.get(`/dashboard/alerts/${id}/delete`));
      expect(confirm).toContain('Delete this alert?');
      const deleted = await browser.post(`/dashboard/alerts/${id}/delete`, {});
      expect(deleted.headers.get('location')).toBe('/dashboard/alerts?notice=deleted');
      expect((await browser.get(`/dashboard/alerts/${id}`)).status).toBe(404);

      const audit = listRows(await text(await browser.get('/dashboard/audit'))).map((row) => `${row.Event}: ${row.Detail}`);
      const named = (event: string, name: string) => audit.filter((entry) => entry.startsWith(`${event}: ${name} (${id})`));
      expect(named('Alert created', 'Hooked <b>')).toHaveLength(1);
      expect(named('Alert test webhook sent', 'Hooked <b>')).toHaveLength(1);
      expect(named('Alert webhook message sent again', 'Hooked <b>')).toHaveLength(1);
      expect(named('Alert changed', 'Hooked <b>').map((entry) => entry.split(': ').at(-1))).toEqual(['name', 'paused', 'paused']);
      expect(named('Alert signing secret rotated', 'Hooked <b>')).toHaveLength(1);
      expect(named('Alert deleted', 'Renamed')).toHaveLength(1);
    });

    it('makes a webhook that was turned off prominent in the list and on its page, and turns it back on', async () => {
      const { browser } = await signedUp();
      const { id } = await createdAlert(browser, 'Gone away');
      receiver.answerWith(() => ({ status: 410 }));
      const task = await deliveries();
      await postOnPage(browser, id, '/test');
      await until('the 410 turned it off', async () => {
        await task.run();
        return (await database.db.select({ at: alerts.webhookDisabledAt }).from(alerts).where(eq(alerts.id, id)))[0]?.at !== null;
      });
      const list = await text(await browser.get('/dashboard/alerts'));
      expect(words(list)).toContain('A webhook is turned off: their matches are no longer sent. Gone away.');
      expect(listRows(list)[0]!.State).toBe('webhook off Turned off: the receiver answered 410 Gone.');
      const page = words(await text(await browser.get(`/dashboard/alerts/${id}`)));
      expect(page).toMatch(/The webhook is turned off since 20\d\d-\d\d-\d\d \d\d:\d\d UTC: the receiver answered 410 Gone\. Matches are no longer sent to it\./);
      expect(page).not.toContain('Send test');
      // the page an owner lands on says so too
      expect(words(await text(await browser.get('/dashboard/keys')))).toContain('A webhook of your alerts is turned off: their matches are no longer sent. See your alerts.');
      receiver.answerWith(() => ({ status: 200 }));
      const on = await browser.post(`/dashboard/alerts/${id}/webhook-on`, {});
      expect(on.headers.get('location')).toBe(`/dashboard/alerts/${id}?notice=webhook-on`);
      expect(listRows(await text(await browser.get('/dashboard/alerts')))[0]!.State).toMatch(/^active /);
      expect(await text(await browser.get('/dashboard/keys'))).not.toContain('turned off');
    });

    it('never shows the credentials of a webhook URL stored with them, keeps them through an edit, and asks for another URL to turn it back on', async () => {
      const { browser } = await signedUp();
      const { id } = await createdAlert(browser, 'Legacy');
      const stored = receiver.url.replace('http://', 'http://legacy:hunter2@');
      const hidden = receiver.url.replace('http://', 'http://***:***@');
      await database.db.update(alerts).set({ webhookUrl: stored }).where(eq(alerts.id, id));
      const list = await text(await browser.get('/dashboard/alerts'));
      const before = await text(await browser.get(`/dashboard/alerts/${id}`));
      for (const shown of [list, before]) expect(shown).not.toMatch(/hunter2|legacy:/);
      expect(before).toContain(`value="${hidden}"`);
      // the edit form sends the URL as shown: unchanged, so the stored one is kept
      const renamed = await browser.post(`/dashboard/alerts/${id}`, { form_token: formTokenOf(before), name: 'Legacy renamed', query: 'type=listing.added', webhook_url: hidden });
      expect(renamed.headers.get('location')).toBe(`/dashboard/alerts/${id}?notice=saved`);
      expect((await database.db.select({ url: alerts.webhookUrl, name: alerts.name }).from(alerts).where(eq(alerts.id, id)))[0]).toEqual({ url: stored, name: 'Legacy renamed' });
      await database.db.update(alerts).set({ webhookDisabledAt: new Date(), webhookDisabledReason: 'the receiver answered 410 Gone' }).where(eq(alerts.id, id));
      const page = await text(await browser.get(`/dashboard/alerts/${id}`));
      // turning it back on sets the stored URL again, which is refused for its credentials
      const on = await postOnPage(browser, id, '/webhook-on');
      expect(on.status).toBe(400);
      expect(words(await text(on))).toContain(WEBHOOK_URL_CREDENTIALS);
      // a new URL without them turns it on
      const edit = formTokenOf(page);
      const saved = await browser.post(`/dashboard/alerts/${id}`, { form_token: edit, name: 'Legacy renamed', query: 'type=listing.added', webhook_url: receiver.url });
      expect(saved.headers.get('location')).toBe(`/dashboard/alerts/${id}?notice=saved`);
      expect((await database.db.select({ url: alerts.webhookUrl, off: alerts.webhookDisabledAt }).from(alerts).where(eq(alerts.id, id)))[0]).toEqual({ url: receiver.url, off: null });
    });

    it('pages a long delivery log with an "older" link, newest first', async () => {
      const { browser } = await signedUp();
      const { id } = await createdAlert(browser, 'Busy');
      receiver.received.length = 0;
      receiver.answerWith(() => ({ status: 200 }));
      const task = await deliveries();
      for (let i = 0; i < 27; i += 1) expect((await browser.post(`/dashboard/alerts/${id}/test`, {})).status).toBe(303);
      await until('27 tests arrived', async () => {
        await task.run();
        return receiver.received.length >= 27;
      }, 60_000);
      await until('their attempts are recorded', async () => /Older attempts/.test(await text(await browser.get(`/dashboard/alerts/${id}`))));
      const first = await text(await browser.get(`/dashboard/alerts/${id}`));
      expect(listRows(first)).toHaveLength(25);
      const older = /href="(\/dashboard\/alerts\/alt_[\w-]{20}\?older=[\w-]+)"/.exec(first)?.[1];
      const second = await text(await browser.get(older!));
      expect(listRows(second)).toHaveLength(2);
      expect(second).toContain('Newest attempts');
      expect(second).not.toContain('Older attempts');
      const ids = [...listRows(first), ...listRows(second)].map((row) => row.Message!.split(' ').at(-1));
      expect(new Set(ids).size).toBe(27);
      expect([...ids].reverse()).toEqual(receiver.received.slice(-27).map((request) => request.headers['webhook-id']));
      expect((await browser.get(`/dashboard/alerts/${id}?older=not-a-cursor`)).status).toBe(404);
    });

    it("answers another account's alert, or a made-up id, with the 404 page, and sends a signed-out visitor to sign in", async () => {
      const { browser: owner } = await signedUp();
      const { id } = await createdAlert(owner, 'Mine');
      const { browser: other } = await signedUp();
      const notFound = (response: Response) => response.status;
      for (const path of [`/dashboard/alerts/${id}`, `/dashboard/alerts/${id}/delete`, '/dashboard/alerts/alt_madeupmadeupmadeup12', '/dashboard/alerts/%E2%9C%93']) {
        const response = await other.get(path);
        expect(notFound(response), path).toBe(404);
        expect(await text(response)).toContain('There is no such page.');
      }
      for (const action of ['/test', '/pause', '/resume', '/rotate-secret', '/delete', '/webhook-on', '', '/deliveries/msg_x/resend']) {
        expect((await other.post(`/dashboard/alerts/${id}${action}`, { form_token: 'x'.repeat(43), name: 'taken', query: '' })).status, action).toBe(404);
      }
      // nothing of it changed
      expect(listRows(await text(await owner.get('/dashboard/alerts')))[0]).toMatchObject({ State: 'active Delivers every match.' });
      const stranger = new DashboardClient(api.baseUrl);
      for (const path of ['/dashboard/alerts', `/dashboard/alerts/${id}`]) {
        const response = await stranger.get(path);
        expect(response.status, path).toBe(303);
        expect(response.headers.get('location')).toBe('/dashboard/sign-in');
      }
      expect((await stranger.post(`/dashboard/alerts/${id}/delete`, {})).headers.get('location')).toBe('/dashboard/sign-in');
    });

    it('writes no signing secret in any log line', () => {
      expect(secrets.length).toBeGreaterThan(5);
      const lines = [...api.logLines, ...withMail.logLines].join('\n');
      for (const secret of secrets) expect(lines).not.toContain(secret);
      for (const secret of secrets) expect(lines).not.toContain(secret.slice(6, 30));
    });
  });
}
