import { startWebhookReceiver, type WebhookReceiver } from '@domain-index/test-support/webhook-receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DomainIndex,
  DomainIndexError,
  InvalidRequestError,
  NotFoundError,
  PermissionDeniedError,
  verifyWebhook,
  type AlertWithSecret,
  type DeliveryAttempt,
  type WebhookPayload,
} from '@domain-index/client';
import { startAlertsApi, type AlertsApi } from './support/alerts-api';

const auction = (domain: string, price: number) => ({ domain_name: domain, status: 'auction', current_bid: price, auction_end_time: '2099-01-01T00:00:00.000Z' });

/** Polls `condition` until it holds; fails after the deadline. */
async function until(condition: () => boolean | Promise<boolean>, what: string, deadlineMs = 15_000): Promise<void> {
  for (const deadline = Date.now() + deadlineMs; !(await condition()); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
  }
}

/** What a call threw (it must throw). */
async function thrown(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => {
      throw new Error('the call did not throw');
    },
    (error: unknown) => error,
  );
}

describe('alerts through the client, against the real API and its delivery worker', () => {
  let api: AlertsApi;
  let receiver: WebhookReceiver;
  let client: DomainIndex;
  /** Every request the client sent: method, path, content type and body. */
  const sent: { method: string; path: string; contentType: string | null; body: string | null }[] = [];

  beforeAll(async () => {
    api = await startAlertsApi();
    receiver = await startWebhookReceiver();
    const recording: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      sent.push({ method: init?.method ?? 'GET', path: new URL(input).pathname, contentType: headers.get('content-type'), body: typeof init?.body === 'string' ? init.body : null });
      return fetch(input, init);
    };
    client = new DomainIndex({ apiKey: await api.keyOn('pro'), baseUrl: api.baseUrl, fetch: recording });
    // the source's first batch is one source.loaded; later ones give an event per listing
    await api.load([auction('first.com', 10)]);
  });
  afterAll(async () => {
    await receiver?.close();
    await api?.close();
  });

  it('creates, lists, reads, changes, tests, re-keys and deletes an alert; the receiver verifies each message', async () => {
    const alert: AlertWithSecret = await client.alerts.create({ name: 'Cheap .ai names', query: '?tld=ai&type=listing.added&max_price=500', webhook_url: receiver.url });
    expect(alert).toMatchObject({ object: 'alert', name: 'Cheap .ai names', query: 'max_price=500&tld=ai&type=listing.added', webhook_url: receiver.url, webhook_state: 'active', paused: false, last_delivery: null });
    expect(alert.webhook_secret).toMatch(/^whsec_/);
    // the body went as JSON, once
    expect(sent.filter((request) => request.method === 'POST' && request.path === '/api/v1/alerts')).toEqual([
      { method: 'POST', path: '/api/v1/alerts', contentType: 'application/json', body: JSON.stringify({ name: 'Cheap .ai names', query: '?tld=ai&type=listing.added&max_price=500', webhook_url: receiver.url }) },
    ]);

    // the secret is shown once: not in a read or a list
    const listed = await client.alerts.list();
    expect(listed.map((entry) => entry.id)).toEqual([alert.id]);
    expect(listed[0]).not.toHaveProperty('webhook_secret');
    expect(await client.alerts.get(alert.id)).toEqual(listed[0]);

    // a matching listing is delivered, signed with the secret of the answer
    await api.load([auction('first.com', 10), auction('cheap.ai', 300), auction('dear.ai', 9_000), auction('cheap.com', 300)]);
    await api.deliver();
    await until(() => receiver.received.length === 1, 'the events message arrived');
    const events: WebhookPayload = verifyWebhook(receiver.received[0]!.body, receiver.received[0]!.headers, alert.webhook_secret!);
    expect(events.type).toBe('events');
    expect(events.alert_id).toBe(alert.id);
    expect(events.events.map((event) => [event.type, event.data.object?.domain_name])).toEqual([['listing.added', 'cheap.ai']]);

    const paused = await client.alerts.update(alert.id, { paused: true, name: 'Paused .ai names' });
    expect(paused).toMatchObject({ id: alert.id, paused: true, name: 'Paused .ai names', webhook_secret: null });
    expect(sent.at(-1)).toMatchObject({ method: 'PATCH', contentType: 'application/json', body: '{"paused":true,"name":"Paused .ai names"}' });

    // a test message (queued even while paused), then sent again with the same webhook-id
    const queued = await client.alerts.test(alert.id);
    expect(queued).toEqual({ object: 'delivery', id: queued.id, alert_id: alert.id, kind: 'test', status: 'pending' });
    // a write without a body sends none
    expect(sent.at(-1)).toMatchObject({ method: 'POST', path: `/api/v1/alerts/${alert.id}/test`, contentType: null, body: null });
    await api.deliver();
    await until(() => receiver.received.length === 2, 'the test message arrived');
    expect(verifyWebhook(receiver.received[1]!.body, receiver.received[1]!.headers, alert.webhook_secret!)).toEqual({ type: 'test', alert_id: alert.id, events: [] });
    expect(receiver.received[1]!.headers['webhook-id']).toBe(queued.id);
    expect(await client.alerts.resend(alert.id, queued.id)).toEqual({ object: 'delivery', id: queued.id, alert_id: alert.id, kind: 'test', status: 'pending' });
    await api.deliver();
    await until(() => receiver.received.length === 3, 'the message arrived again');
    expect(receiver.received[2]!.headers['webhook-id']).toBe(queued.id);

    // a new secret: the next message verifies with it, and with the old one for a day
    const rotated = await client.alerts.rotateSecret(alert.id);
    expect(rotated.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.webhook_secret).not.toBe(alert.webhook_secret);
    await client.alerts.test(alert.id);
    await api.deliver();
    await until(() => receiver.received.length === 4, 'the message after the rotation arrived');
    const [latest] = receiver.received.slice(-1);
    expect(verifyWebhook(latest!.body, latest!.headers, rotated.webhook_secret!).type).toBe('test');
    expect(verifyWebhook(latest!.body, latest!.headers, alert.webhook_secret!).type).toBe('test');

    // the delivery log, newest first: one page awaited, every attempt iterated across pages
    const page = await client.alerts.deliveries(alert.id, { limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
    expect(page.next_cursor).not.toBeNull();
    const attempts: DeliveryAttempt[] = [];
    for await (const attempt of client.alerts.deliveries(alert.id, { limit: 1 })) attempts.push(attempt);
    expect(attempts.map((attempt) => [attempt.kind, attempt.http_status])).toEqual([
      ['test', 200],
      ['test', 200],
      ['test', 200],
      ['events', 200],
    ]);
    expect(attempts[0]).toEqual(page.data[0]);
    expect(attempts.at(-1)!.event_ids).toEqual(events.events.map((event) => event.id));
    const logReads = () => sent.filter((request) => request.path.endsWith('/deliveries')).length;
    // one page each, the last one saying has_more: false
    expect(logReads()).toBe(1 + 4);
    // a bounded walk stops asking
    const bounded: DeliveryAttempt[] = [];
    for await (const attempt of client.alerts.deliveries(alert.id, { limit: 1 }, { maxItems: 2 })) bounded.push(attempt);
    expect(bounded).toEqual(attempts.slice(0, 2));
    expect(logReads()).toBe(5 + 2);

    expect(await client.alerts.delete(alert.id)).toEqual({ object: 'alert', id: alert.id, deleted: true });
    expect(sent.at(-1)).toMatchObject({ method: 'DELETE', contentType: null, body: null });
    expect(await client.alerts.list()).toEqual([]);
  });

  it('throws NotFoundError for an alert or a message that is not yours, with the code that tells which', async () => {
    const missing = await thrown(client.alerts.get('alt_doesNotExist00000'));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'alert_not_found', message: 'no alert alt_doesNotExist00000 of yours' });
    // another account's alert answers exactly the same
    const theirs = new DomainIndex({ apiKey: await api.keyOn('pro'), baseUrl: api.baseUrl });
    const other = await theirs.alerts.create({ name: 'theirs', query: 'tld=io', webhook_url: receiver.url });
    const calls = [
      () => client.alerts.get(other.id),
      () => client.alerts.update(other.id, { paused: true }),
      () => client.alerts.test(other.id),
      async () => client.alerts.deliveries(other.id),
      () => client.alerts.rotateSecret(other.id),
      () => client.alerts.delete(other.id),
    ];
    for (const call of calls) expect(await thrown(call())).toMatchObject({ name: 'NotFoundError', code: 'alert_not_found' });
    expect((await theirs.alerts.get(other.id)).paused).toBe(false);
    const message = await thrown(theirs.alerts.resend(other.id, 'msg_neverSent'));
    expect(message).toBeInstanceOf(NotFoundError);
    expect(message).toMatchObject({ code: 'delivery_not_found' });
    await theirs.alerts.delete(other.id);
  });

  it('throws InvalidRequestError naming the field of a bad body, and TypeError for an empty id without a request', async () => {
    const query = await thrown(client.alerts.create({ name: 'bad', query: 'max_price=cheap', webhook_url: receiver.url }));
    expect(query).toBeInstanceOf(InvalidRequestError);
    expect(query).toMatchObject({ status: 400, code: 'invalid_parameter', param: 'query' });
    const refused = await thrown(client.alerts.create({ name: 'metadata', query: 'tld=ai', webhook_url: 'https://169.254.169.254/latest' }));
    expect(refused).toMatchObject({ name: 'InvalidRequestError', code: 'invalid_parameter', param: 'webhook_url' });
    // one answer for every address the service will not send to, naming none
    expect((refused as Error).message).toContain('webhook_url must be a public https URL that this service may reach');
    expect((refused as Error).message).not.toMatch(/169\.254|link-local/);
    const nowhere = await thrown(client.alerts.create({ name: 'nowhere', query: 'tld=ai' }));
    expect(nowhere).toMatchObject({ code: 'invalid_parameter', param: 'webhook_url' });
    // a JavaScript caller's mistake reaches the API's validation, not a crash
    const unknown = await thrown(client.alerts.update('alt_x', { colour: 'red' } as never));
    expect(unknown).toBeInstanceOf(InvalidRequestError);

    const before = sent.length;
    const calls = [() => client.alerts.get(''), () => client.alerts.delete(''), () => client.alerts.resend('alt_x', ''), async () => client.alerts.deliveries('')];
    for (const call of calls) expect(await thrown(call())).toBeInstanceOf(TypeError);
    expect(sent.length).toBe(before);
  });

  it("throws PermissionDeniedError when the plan's alerts are used up, once, without a retry", async () => {
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const free = new DomainIndex({ apiKey: await api.keyOn('free'), baseUrl: api.baseUrl, fetch: counting, maxRetries: 3 });
    for (const name of ['one', 'two']) await free.alerts.create({ name, query: 'tld=ai', webhook_url: receiver.url });
    requests = 0;
    const error = await thrown(free.alerts.create({ name: 'three', query: 'tld=ai', webhook_url: receiver.url }));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toBeInstanceOf(DomainIndexError);
    expect(error).not.toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ status: 403, code: 'alert_limit_reached', message: 'your plan (free) allows 2 alerts and you have 2: delete one, or move to a plan with more' });
    expect(requests).toBe(1);
    expect((await free.alerts.list()).map((alert) => alert.name)).toEqual(['two', 'one']);
  });
});
