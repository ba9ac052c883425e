import { WEBHOOK_URL_CREDENTIALS, WEBHOOK_URL_REFUSED, type Alert } from '@domain-index/contract';
import { alerts, eq } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@domain-index/accounts/account-store';
import { createKey } from '@domain-index/accounts/key-store';
import { parseAllowedHosts } from '@domain-index/webhooks/address-rules';
import { startApi, type RunningApi } from './support/start-api';

type AlertWithSecret = Alert & { webhook_secret: string | null };

const allowLoopback = parseAllowedHosts('127.0.0.1');
if (!allowLoopback.ok) throw new Error(allowLoopback.reason);

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`alerts through the API on ${engine}`, () => {
    let test: TestDatabase;
    let api: RunningApi;
    let free: string;
    let other: string;
    let keyOnly: string;
    const send = (key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      api.raw(path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });

    beforeAll(async () => {
      test = await createTestDatabase(engine);
      api = await startApi(engine, { test, overrides: { alerts: { allowList: allowLoopback.allowList } } });
      const at = new Date();
      const mine = await createAccount(test.database, { email: 'owner@example.com', planId: 'free', at });
      const theirs = await createAccount(test.database, { email: 'other@example.com', planId: 'pro', at });
      free = (await createKey(test.database, { planId: 'free', environment: 'live', accountId: mine.id })).key;
      other = (await createKey(test.database, { planId: 'pro', environment: 'live', accountId: theirs.id })).key;
      keyOnly = (await createKey(test.database, { planId: 'pro', environment: 'live' })).key;
    });
    afterAll(async () => {
      await api.close();
      await test.dispose();
    });

    it('creates an alert with its signing secret shown once, normalises its query, lists, reads, changes, rotates and deletes it', async () => {
      const created = await send(free, 'POST', '/api/v1/alerts', {
        name: 'Cheap .ai names',
        query: 'https://api.example.com/api/v1/events?tld=ai&type=listing.added&max_price=500&no_hyphens=true',
        webhook_url: 'http://127.0.0.1:9/hooks',
      });
      expect(created.status).toBe(201);
      const alert = (await created.json()) as AlertWithSecret;
      expect(alert).toMatchObject({
        object: 'alert',
        name: 'Cheap .ai names',
        query: 'max_price=500&no_hyphens=true&tld=ai&type=listing.added',
        webhook_url: 'http://127.0.0.1:9/hooks',
        webhook_state: 'active',
        email_digest: null,
        paused: false,
        last_delivery: null,
      });
      expect(alert.id).toMatch(/^alt_[\w-]{20}$/);
      expect(alert.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      // shown once: never in a read or a list
      const read = (await (await send(free, 'GET', `/api/v1/alerts/${alert.id}`)).json()) as Record<string, unknown>;
      expect(read).not.toHaveProperty('webhook_secret');
      expect(read).toMatchObject({ id: alert.id, query: alert.query });
      const listed = (await (await send(free, 'GET', '/api/v1/alerts')).json()) as { object: string; data: Alert[] };
      expect(listed.data.map((entry) => entry.id)).toEqual([alert.id]);

      const changed = (await (await send(free, 'PATCH', `/api/v1/alerts/${alert.id}`, { name: 'Renamed', paused: true })).json()) as AlertWithSecret;
      expect(changed).toMatchObject({ name: 'Renamed', paused: true, webhook_secret: null });
      const rotated = (await (await send(free, 'POST', `/api/v1/alerts/${alert.id}/rotate-secret`)).json()) as AlertWithSecret;
      expect(rotated.webhook_secret).toMatch(/^whsec_/);
      expect(rotated.webhook_secret).not.toBe(alert.webhook_secret);

      const test202 = await send(free, 'POST', `/api/v1/alerts/${alert.id}/test`);
      expect(test202.status).toBe(202);
      expect(await test202.json()).toMatchObject({ object: 'delivery', alert_id: alert.id, kind: 'test', status: 'pending' });

      expect(await (await send(free, 'DELETE', `/api/v1/alerts/${alert.id}`)).json()).toEqual({ object: 'alert', id: alert.id, deleted: true });
      expect((await send(free, 'GET', `/api/v1/alerts/${alert.id}`)).status).toBe(404);
    });

    it('answers Cache-Control: no-store on every alert answer: the signing secret of a create and a rotation above all, and errors', async () => {
      const created = await send(keyOnly, 'POST', '/api/v1/alerts', { name: 'no cache', query: '', webhook_url: 'http://127.0.0.1:9/hooks/T0ken' });
      const { id } = (await created.clone().json()) as Alert;
      const answers: [string, Response][] = [
        ['create', created],
        ['rotate', await send(keyOnly, 'POST', `/api/v1/alerts/${id}/rotate-secret`)],
        ['refused change', await send(keyOnly, 'PATCH', `/api/v1/alerts/${id}`, { webhook_url: null, email_digest: null })],
        ['read', await send(keyOnly, 'GET', `/api/v1/alerts/${id}`)],
        ['list', await send(keyOnly, 'GET', '/api/v1/alerts')],
        ['deliveries', await send(keyOnly, 'GET', `/api/v1/alerts/${id}/deliveries`)],
        ['test', await send(keyOnly, 'POST', `/api/v1/alerts/${id}/test`)],
        ['another owner', await send(other, 'GET', `/api/v1/alerts/${id}`)],
        ['no key', await api.raw(`/api/v1/alerts/${id}`)],
        ['delete', await send(keyOnly, 'DELETE', `/api/v1/alerts/${id}`)],
      ];
      for (const [what, response] of answers) expect(response.headers.get('cache-control'), `${what} (${response.status})`).toBe('no-store');
      expect(answers.map(([what, response]) => `${what} ${response.status}`)).toEqual([
        'create 201', 'rotate 200', 'refused change 400', 'read 200', 'list 200', 'deliveries 200', 'test 202', 'another owner 404', 'no key 401', 'delete 200',
      ]);
      // the rest of the API is not about secrets: its caching is left as it was
      expect((await send(keyOnly, 'GET', '/api/v1/stats')).headers.get('cache-control')).toBeNull();
    });

    it("takes a pasted search URL as the change feed's filter for the same listings, and refuses what the search would", async () => {
      const cases = [
        ['https://di.example.com/api/v1/domains?tld=ai&max_price=500&sort=current_bid&order=asc&limit=100', 'max_price=500&status=auction&tld=ai'],
        ['/api/v1/domains?search=cloud&status=all', 'search=cloud'],
        ['https://di.example.com/api/v1/domains?status=dropping', 'status=dropping'],
      ] as const;
      for (const [query, stored] of cases) {
        const created = await send(keyOnly, 'POST', '/api/v1/alerts', { name: 'pasted', query, webhook_url: 'http://127.0.0.1:9/hooks' });
        expect(created.status, query).toBe(201);
        const alert = (await created.json()) as AlertWithSecret;
        expect(alert.query, query).toBe(stored);
        const changed = await send(keyOnly, 'PATCH', `/api/v1/alerts/${alert.id}`, { query });
        expect(((await changed.json()) as Alert).query, query).toBe(stored);
        expect((await send(keyOnly, 'DELETE', `/api/v1/alerts/${alert.id}`)).status).toBe(200);
      }
      const refused = await send(keyOnly, 'POST', '/api/v1/alerts', { name: 'pasted', query: 'https://di.example.com/api/v1/domains?status=all&ending_within=6', webhook_url: 'http://127.0.0.1:9/hooks' });
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { error: { code: string; param: string; message: string } };
      expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'query' });
      expect(body.error.message).toMatch(/^query: ending_within/);
    });

    it("answers 404 alert_not_found for another account's alert, to read, change, test, rotate or delete it", async () => {
      const mine = (await (await send(free, 'POST', '/api/v1/alerts', { name: 'mine', query: 'type=listing.added', webhook_url: 'http://127.0.0.1:9/x' })).json()) as Alert;
      for (const [method, path] of [
        ['GET', `/api/v1/alerts/${mine.id}`],
        ['PATCH', `/api/v1/alerts/${mine.id}`],
        ['DELETE', `/api/v1/alerts/${mine.id}`],
        ['POST', `/api/v1/alerts/${mine.id}/test`],
        ['POST', `/api/v1/alerts/${mine.id}/rotate-secret`],
        ['GET', `/api/v1/alerts/${mine.id}/deliveries`],
      ] as const) {
        for (const key of [other, keyOnly]) {
          const response = await send(key, method, path, method === 'PATCH' ? { name: 'taken over' } : undefined);
          expect(response.status, `${method} ${path}`).toBe(404);
          expect(((await response.json()) as { error: { code: string } }).error.code).toBe('alert_not_found');
        }
      }
      expect(((await (await send(other, 'GET', '/api/v1/alerts')).json()) as { data: Alert[] }).data).toEqual([]);
      expect(((await (await send(free, 'GET', `/api/v1/alerts/${mine.id}`)).json()) as Alert).name).toBe('mine');
    });

    it('names the path parameter a path cannot decode, and refuses query parameters on the writes', async () => {
      const mine = (await (await send(free, 'POST', '/api/v1/alerts', { name: 'paths', query: '', webhook_url: 'http://127.0.0.1:9/x' })).json()) as Alert;
      for (const [method, path, param] of [
        ['GET', '/api/v1/alerts/%E0%A4%A', 'id'],
        ['POST', '/api/v1/alerts/%E0%A4%A/test', 'id'],
        ['POST', `/api/v1/alerts/${mine.id}/deliveries/%E0%A4%A/resend`, 'deliveryId'],
      ] as const) {
        const response = await send(free, method, path);
        expect(response.status, path).toBe(400);
        expect(await response.json(), path).toEqual({ error: { code: 'invalid_parameter', message: `${param} in the path is not valid percent-encoded text`, param } });
      }
      for (const [method, path, body] of [
        ['POST', '/api/v1/alerts?name=x', { name: 'x', query: '', webhook_url: 'http://127.0.0.1:9/x' }],
        ['PATCH', `/api/v1/alerts/${mine.id}?paused=true`, { name: 'y' }],
        ['POST', `/api/v1/alerts/${mine.id}/rotate-secret?now=1`, undefined],
        ['DELETE', `/api/v1/alerts/${mine.id}?force=1`, undefined],
      ] as const) {
        const response = await send(free, method, path, body);
        expect(response.status, path).toBe(400);
        expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe('unknown_parameter');
      }
      // nothing was written by the refused requests
      const after = (await (await send(free, 'GET', `/api/v1/alerts/${mine.id}`)).json()) as Alert;
      expect([after.name, after.paused]).toEqual(['paths', false]);
      expect((await send(free, 'DELETE', `/api/v1/alerts/${mine.id}`)).status).toBe(200);
    });

    it('holds a plan to its number of alerts with a clear 403', async () => {
      const count = ((await (await send(free, 'GET', '/api/v1/alerts')).json()) as { data: Alert[] }).data.length;
      for (let i = count; i < 2; i += 1) expect((await send(free, 'POST', '/api/v1/alerts', { name: `a${i}`, query: '', webhook_url: 'http://127.0.0.1:9/x' })).status).toBe(201);
      const refused = await send(free, 'POST', '/api/v1/alerts', { name: 'one too many', query: '', webhook_url: 'http://127.0.0.1:9/x' });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({
        error: { code: 'alert_limit_reached', message: 'your plan (free) allows 2 alerts and you have 2: delete one, or move to a plan with more' },
      });
    });

    it('holds the plan to its number of alerts under 50 creates side by side: exactly the limit made, the other 48 refused with the 403', async () => {
      const racer = await createAccount(test.database, { email: 'racer@example.com', planId: 'free', at: new Date() });
      const key = (await createKey(test.database, { planId: 'free', environment: 'live', accountId: racer.id })).key;
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => send(key, 'POST', '/api/v1/alerts', { name: `race ${i}`, query: '', webhook_url: 'http://127.0.0.1:9/x' })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([...Array<number>(2).fill(201), ...Array<number>(48).fill(403)]);
      const refusals = await Promise.all(answers.filter((answer) => answer.status === 403).map((answer) => answer.json()));
      expect(new Set(refusals.map((body) => JSON.stringify(body)))).toEqual(
        new Set([JSON.stringify({ error: { code: 'alert_limit_reached', message: 'your plan (free) allows 2 alerts and you have 2: delete one, or move to a plan with more' } })]),
      );
      expect(((await (await send(key, 'GET', '/api/v1/alerts')).json()) as { data: Alert[] }).data).toHaveLength(2);
    });

    it('refuses a body that is not JSON, too large or of the wrong shape with 400 naming the field', async () => {
      const cases: [unknown, Record<string, string>, string, string][] = [
        ['{not json', {}, 'body', 'body: not valid JSON'],
        [{ name: 'x', query: 'a='.repeat(9000), webhook_url: null }, {}, 'body', 'body: larger than 16 KB'],
        ['name=x', { 'content-type': 'application/x-www-form-urlencoded' }, 'body', 'body: send the body as JSON, with Content-Type: application/json'],
        [{ name: 5, query: '' }, {}, 'name', 'name must be text'],
        [{ query: '' }, {}, 'name', 'name is required'],
        [{ name: 'x', query: '', webhook_url: 'https://hooks.example.com', colour: 'red' }, {}, 'colour', 'colour is not a field of this body'],
        [{ name: 'x', query: 'min_price=abc', webhook_url: 'http://127.0.0.1:9/x' }, {}, 'query', 'query: min_price must be a number >= 0, written in plain decimal (e.g. 12 or 12.5)'],
        [{ name: 'x', query: 'after=now&type=listing.added', webhook_url: 'http://127.0.0.1:9/x' }, {}, 'query', 'query: after is not a filter: an alert starts at its creation and sends every match'],
        [{ name: 'x', query: 'type=listing.gone', webhook_url: 'http://127.0.0.1:9/x' }, {}, 'query', expect.stringContaining('query: type has an unknown event type "listing.gone"')],
        [{ name: 'x', query: 'type=listing.added' }, {}, 'webhook_url', 'webhook_url: an alert needs somewhere to deliver: a webhook_url, an email_digest, or both'],
        [{ name: 'x', query: '', email_digest: 'daily' }, {}, 'email_digest', 'email_digest: this server sends no email (its operator has not configured SMTP); use a webhook'],
      ];
      for (const [body, headers, param, message] of cases) {
        const response = await send(keyOnly, 'POST', '/api/v1/alerts', body, headers);
        expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(400);
        expect(await response.json(), JSON.stringify(body).slice(0, 60)).toEqual({ error: { code: 'invalid_parameter', message, param } });
      }
    });

    it('refuses a webhook URL with a user name or password, telling to use the signature or a token in the path; a stored one is shown with them hidden and kept as stored', async () => {
      const credentials = { error: { code: 'invalid_parameter', message: WEBHOOK_URL_CREDENTIALS, param: 'webhook_url' } };
      for (const url of ['https://user:hunter2@hooks.example.com/in', 'https://t0ken-in-userinfo@hooks.example.com/in', 'https://:hunter2@hooks.example.com/in', 'http://user:pw@127.0.0.1:9/in']) {
        const response = await send(keyOnly, 'POST', '/api/v1/alerts', { name: 'creds', query: '', webhook_url: url });
        expect(response.status, url).toBe(400);
        expect(await response.json(), url).toEqual(credentials);
      }
      const made = (await (await send(keyOnly, 'POST', '/api/v1/alerts', { name: 'stored before', query: '', webhook_url: 'http://127.0.0.1:9/in' })).json()) as Alert;
      const patched = await send(keyOnly, 'PATCH', `/api/v1/alerts/${made.id}`, { webhook_url: 'http://user:hunter2@127.0.0.1:9/in' });
      expect(await patched.json()).toEqual(credentials);
      // an alert saved before credentials were refused: shown with them hidden, in a read and a list
      await test.database.db.update(alerts).set({ webhookUrl: 'http://user:hunter2@127.0.0.1:9/in/T0k?x=1' }).where(eq(alerts.id, made.id));
      const read = await send(keyOnly, 'GET', `/api/v1/alerts/${made.id}`);
      expect(((await read.json()) as Alert).webhook_url).toBe('http://***:***@127.0.0.1:9/in/T0k?x=1');
      const listed = await (await send(keyOnly, 'GET', '/api/v1/alerts')).text();
      expect(listed).toContain('http://***:***@127.0.0.1:9/in/T0k?x=1');
      expect(listed).not.toMatch(/hunter2|user:/);
      // other changes still apply, and the stored URL (with its credentials) stays as it was
      const renamed = await send(keyOnly, 'PATCH', `/api/v1/alerts/${made.id}`, { name: 'renamed' });
      expect(renamed.status).toBe(200);
      expect(JSON.stringify(await renamed.json())).not.toContain('hunter2');
      const [row] = await test.database.db.select({ url: alerts.webhookUrl }).from(alerts).where(eq(alerts.id, made.id));
      expect(row?.url).toBe('http://user:hunter2@127.0.0.1:9/in/T0k?x=1');
      // sending the shown form back is refused like any URL with credentials
      expect(await (await send(keyOnly, 'PATCH', `/api/v1/alerts/${made.id}`, { webhook_url: 'http://***:***@127.0.0.1:9/in/T0k?x=1' })).json()).toEqual(credentials);
      expect((await send(keyOnly, 'DELETE', `/api/v1/alerts/${made.id}`)).status).toBe(200);
    });

    it('refuses webhook URLs to loopback, private or plain-http hosts with one generic answer naming no address, without connecting', async () => {
      // the same database, an instance without WEBHOOK_ALLOWED_HOSTS; its resolver answers with
      // private addresses for the names below, so nothing is ever looked up or connected to
      const answers: Record<string, string[]> = { 'internal.example.com': ['10.9.8.7'], 'mixed.example.com': ['93.184.215.14', '169.254.169.254'], 'gone.example.com': [] };
      const resolve = (name: string) => Promise.resolve((answers[name] ?? ['93.184.215.14']).map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) })));
      const bare = await startApi(engine, { test, overrides: { alerts: { resolve } } });
      const refusal = { error: { code: 'invalid_parameter', message: WEBHOOK_URL_REFUSED, param: 'webhook_url' } };
      const post = (url: string) =>
        bare.raw('/api/v1/alerts', { method: 'POST', headers: { authorization: `Bearer ${keyOnly}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x', query: '', webhook_url: url }) });
      const refused = [
        'https://127.0.0.2/hook',
        'https://2130706433/hook',
        'https://0x7f.1/hook',
        'https://[::1]/hook',
        'https://[::ffff:127.0.0.1]/hook',
        'https://10.1.2.3/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://internal.example.com/hook',
        'https://mixed.example.com/hook',
        'https://gone.example.com/hook',
        'http://127.0.0.1:9/hook',
        'http://hooks.example.com/hook',
      ];
      for (const url of refused) {
        const response = await post(url);
        expect(response.status, url).toBe(400);
        expect(await response.json(), url).toEqual(refusal);
      }
      // a change to such a URL is refused alike, and the alert keeps its URL
      const made = await post('https://hooks.example.com/hook');
      expect(made.status).toBe(201);
      const { id } = (await made.json()) as Alert;
      const patched = await bare.raw(`/api/v1/alerts/${id}`, { method: 'PATCH', headers: { authorization: `Bearer ${keyOnly}`, 'content-type': 'application/json' }, body: JSON.stringify({ webhook_url: 'https://internal.example.com/hook' }) });
      expect(patched.status).toBe(400);
      expect(await patched.json()).toEqual(refusal);
      expect(((await (await bare.raw(`/api/v1/alerts/${id}`, { headers: { authorization: `Bearer ${keyOnly}` } })).json()) as Alert).webhook_url).toBe('https://hooks.example.com/hook');
      // a URL that is not https at all is told so
      const ftp = await post('ftp://hooks.example.com/');
      expect(await ftp.json()).toEqual({ error: { code: 'invalid_parameter', message: 'webhook_url: the webhook URL must start with https://', param: 'webhook_url' } });
      // the operator's log says what refused each one
      const reasons = bare.logLines.filter((line) => line.includes('a webhook_url was refused')).map((line) => (JSON.parse(line) as { detail: string }).detail);
      expect(reasons).toHaveLength(refused.length + 1);
      expect(reasons).toContain('10.1.2.3 is a private address (10.0.0.0/8): webhooks are not sent there');
      expect(reasons).toContain('internal.example.com resolves to 10.9.8.7, a private address (10.0.0.0/8): webhooks are not sent there');
      expect(reasons).toContain('gone.example.com has no address');
      expect((await send(keyOnly, 'DELETE', `/api/v1/alerts/${id}`)).status).toBe(200);
      await bare.close();
    });
  });
}
