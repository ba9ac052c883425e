import { afterEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  ConnectionError,
  DomainIndex,
  DomainIndexError,
  InternalServerError,
  InvalidRequestError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
} from '../src';
import { emptyPage, startFakeApi, type Answer } from './support/fake-api';

const KEY = 'dix_test_00000000000000000000000000000000AAAAAA';
const servers: { close(): Promise<void> }[] = [];
async function fake(...answers: Answer[]) {
  const server = await startFakeApi(answers);
  servers.push(server);
  return server;
}
const errorBody = (code: string, message = 'm') => ({ error: { code, message } });

describe('retries and error families (against a scripted server)', () => {
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('waits the Retry-After of a 429 and then succeeds', async () => {
    const server = await fake({ status: 429, body: errorBody('rate_limited'), headers: { 'retry-after': '1' } }, { status: 200, body: emptyPage });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl });
    const page = await client.domains.list();
    expect(page.data).toEqual([]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('asks for a gzipped body', async () => {
    const server = await fake({ status: 200, body: emptyPage });
    await new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl }).domains.list();
    expect(server.requests[0]!.acceptEncoding).toBe('gzip');
  });

  it('retries 503s with backoff, up to maxRetries, then succeeds', async () => {
    const server = await fake({ status: 503, body: errorBody('query_failed') }, { status: 503, body: errorBody('query_failed') }, { status: 200, body: emptyPage });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl, maxRetries: 2 });
    await client.domains.list();
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries with a ServiceUnavailableError', async () => {
    const server = await fake({ status: 503, body: errorBody('query_failed', 'the query could not complete'), headers: { 'retry-after': '0' } });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl, maxRetries: 3 });
    const error = await client.stats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, code: 'query_failed', message: 'the query could not complete', requestId: 'req_fake_4' });
    expect(server.requests).toHaveLength(4);
  });

  it('retries a 500 internal_error like any 5xx, then raises an InternalServerError that is a ServiceUnavailableError', async () => {
    const server = await fake({ status: 500, body: errorBody('internal_error', 'an unexpected error occurred'), headers: { 'retry-after': '0' } });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl, maxRetries: 2 });
    const error = await client.domains.list({ min_score: 40.5 }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ name: 'InternalServerError', status: 500, code: 'internal_error' });
    expect(server.requests).toHaveLength(3);
  });

  it('does not wait out a Retry-After beyond maxRetryAfter: the RateLimitError comes at once', async () => {
    const server = await fake({ status: 429, body: errorBody('rate_limited'), headers: { 'retry-after': '1504' } });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl });
    const error = await client.stats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(1504);
    expect(server.requests).toHaveLength(1);
  });

  it('never retries a 4xx other than 429', async () => {
    const server = await fake({ status: 400, body: { error: { code: 'unknown_parameter', message: 'offset is not a parameter', param: 'offset' } } });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl, maxRetries: 5 });
    const error = await client.stats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ code: 'unknown_parameter', param: 'offset' });
    expect(server.requests).toHaveLength(1);
  });

  it('turns a code this version does not know into the base class', async () => {
    const server = await fake({ status: 418, body: errorBody('teapot_required', 'short and stout') });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl });
    const error = await client.stats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainIndexError);
    expect((error as DomainIndexError).constructor).toBe(DomainIndexError);
    // code is typed by the codes this version knows; the text as sent is kept in rawCode
    expect(error).toMatchObject({ status: 418, code: undefined, rawCode: 'teapot_required', message: 'short and stout' });
  });

  it('times out a slow answer with a TimeoutError', async () => {
    const server = await fake({ status: 200, body: emptyPage, delayMs: 2_000 });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl, timeout: 200, maxRetries: 0 });
    const error = await client.stats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it('throws its own AbortError for a call aborted in flight, with the signal\'s reason as cause, and sends nothing more', async () => {
    const server = await fake({ status: 200, body: emptyPage, delayMs: 5_000 });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl, maxRetries: 3 });
    const controller = new AbortController();
    const call = client.stats({ signal: controller.signal }).catch((e: unknown) => e);
    await expect.poll(() => server.requests.length, { timeout: 5_000 }).toBe(1);
    const reason = new Error('the user closed the page');
    controller.abort(reason);
    const error = await call;
    expect(error).toBeInstanceOf(AbortError);
    expect(error).toBeInstanceOf(DomainIndexError);
    expect(error).not.toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ name: 'AbortError', code: undefined, status: undefined, cause: reason });
    expect(server.requests).toHaveLength(1);
    // a signal aborted before the call: no request at all
    const before = await client.stats({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(before).toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(1);
  });

  it('throws its own TimeoutError when an AbortSignal.timeout() fires, and does not retry it', async () => {
    const server = await fake({ status: 200, body: emptyPage, delayMs: 5_000 });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl, maxRetries: 3 });
    const error = await client.stats({ signal: AbortSignal.timeout(200) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(DomainIndexError);
    expect((error as TimeoutError).cause).toMatchObject({ name: 'TimeoutError' });
    expect(server.requests).toHaveLength(1);
  });

  it('throws a TimeoutError when the body stops half-way, not an empty success', async () => {
    const server = await fake({ status: 200, body: emptyPage, bodyDelayMs: 5_000 });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl, timeout: 300, maxRetries: 0 });
    const error = await client.stats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it('sends the key in the Authorization header and never in the URL', async () => {
    const server = await fake({ status: 200, body: emptyPage });
    const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl });
    await client.domains.list({ search: 'cloud', min_price: 12.5, no_numbers: true });
    expect(server.requests[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]!.url).toBe('/api/v1/domains?search=cloud&min_price=12.5&no_numbers=true');
    expect(server.requests[0]!.url).not.toContain(KEY);
  });

  describe('writes, which the API takes without an idempotency key', () => {
    const created = { object: 'delivery', id: 'msg_1', alert_id: 'alt_1', kind: 'test', status: 'pending' };

    it('sends the body as JSON with its Content-Type, and a body-less write with none', async () => {
      const server = await fake({ status: 201, body: created });
      const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl });
      await client.alerts.create({ name: 'n', query: 'tld=ai', webhook_url: 'https://hooks.example.com/x', email_digest: null });
      await client.alerts.update('alt_1', { paused: false });
      await client.alerts.test('alt/1');
      await client.alerts.delete('alt_1');
      expect(server.requests.map(({ method, url, contentType, body }) => ({ method, url, contentType, body }))).toEqual([
        { method: 'POST', url: '/api/v1/alerts', contentType: 'application/json', body: '{"name":"n","query":"tld=ai","webhook_url":"https://hooks.example.com/x","email_digest":null}' },
        { method: 'PATCH', url: '/api/v1/alerts/alt_1', contentType: 'application/json', body: '{"paused":false}' },
        // ids are path segments, encoded
        { method: 'POST', url: '/api/v1/alerts/alt%2F1/test', contentType: undefined, body: '' },
        { method: 'DELETE', url: '/api/v1/alerts/alt_1', contentType: undefined, body: '' },
      ]);
      expect(server.requests.every((request) => request.authorization === `Bearer ${KEY}`)).toBe(true);
    });

    it('does not send a write again after a 5xx it may have acted on, where a GET is retried', async () => {
      for (const code of ['query_failed', 'internal_error', 'proxy_error']) {
        const status = code === 'internal_error' ? 500 : code === 'proxy_error' ? 502 : 503;
        const server = await fake({ status, body: errorBody(code), headers: { 'retry-after': '0' } });
        const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl, maxRetries: 3 });
        for (const write of [() => client.alerts.create({ name: 'n', query: 'tld=ai', webhook_url: 'https://hooks.example.com/x' }), () => client.alerts.update('alt_1', { paused: true }), () => client.alerts.delete('alt_1'), () => client.alerts.test('alt_1'), () => client.alerts.resend('alt_1', 'msg_1'), () => client.alerts.rotateSecret('alt_1')]) {
          const before = server.requests.length;
          const error = await write().then(() => undefined, (e: unknown) => e);
          expect(error, code).toBeInstanceOf(DomainIndexError);
          expect(error, code).toMatchObject({ status, rawCode: code });
          // once: whether to send it again is the caller's decision (e.g. after listing the alerts)
          expect(server.requests.length - before, code).toBe(1);
        }
      }
      // the same answer to a GET is retried
      const server = await fake({ status: 503, body: errorBody('query_failed'), headers: { 'retry-after': '0' } }, { status: 200, body: { object: 'list', data: [] } });
      expect(await new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl }).alerts.list()).toEqual([]);
      expect(server.requests.map((request) => request.method)).toEqual(['GET', 'GET']);
    });

    it('sends a write again after a 429 or a 503 refused before its endpoint, with the same body', async () => {
      for (const [status, code] of [
        [429, 'rate_limited'],
        [503, 'rate_limit_unavailable'],
        [503, 'key_lookup_unavailable'],
        [503, 'plan_lookup_unavailable'],
      ] as const) {
        const server = await fake({ status, body: errorBody(code), headers: { 'retry-after': '0' } }, { status: 201, body: created });
        const client = new DomainIndex({ apiKey: KEY, baseUrl: server.baseUrl });
        expect(await client.alerts.create({ name: 'n', query: 'tld=ai', webhook_url: 'https://hooks.example.com/x' }), code).toEqual(created);
        expect(server.requests.map((request) => request.method), code).toEqual(['POST', 'POST']);
        expect(server.requests[1]!.body, code).toBe(server.requests[0]!.body);
      }
    });

    it('does not send a write again after a timeout or a connection lost mid-request, where a GET is retried', async () => {
      // a timeout long enough for each request to reach the fake on a loaded machine, and an
      // answer later still
      const slow = await fake({ status: 200, body: created, delayMs: 5_000 });
      const timed = new DomainIndex({ apiKey: KEY, baseUrl: slow.baseUrl, timeout: 1_000, maxRetries: 2 });
      expect(await timed.alerts.test('alt_1').catch((e: unknown) => e)).toBeInstanceOf(TimeoutError);
      expect(slow.requests).toHaveLength(1);
      expect(await timed.alerts.get('alt_1').catch((e: unknown) => e)).toBeInstanceOf(TimeoutError);
      expect(slow.requests).toHaveLength(1 + 3);

      const dropping = await fake({ status: 200, body: created, drop: true });
      const client = new DomainIndex({ apiKey: KEY, baseUrl: dropping.baseUrl, maxRetries: 2 });
      const lost = await client.alerts.rotateSecret('alt_1').catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(ConnectionError);
      expect(lost).not.toBeInstanceOf(TimeoutError);
      expect(dropping.requests).toHaveLength(1);
      expect(await client.alerts.get('alt_1').catch((e: unknown) => e)).toBeInstanceOf(ConnectionError);
      expect(dropping.requests).toHaveLength(1 + 3);
    });

    it('sends a write again when the connection was refused: nothing was sent', async () => {
      // a port that was just free: connecting is refused
      const closed = await fake({ status: 200, body: created });
      const baseUrl = closed.baseUrl;
      await closed.close();
      let attempts = 0;
      const counting: typeof fetch = (input, init) => {
        attempts += 1;
        return fetch(input, init);
      };
      const client = new DomainIndex({ apiKey: KEY, baseUrl, maxRetries: 2, fetch: counting });
      const error = await client.alerts.create({ name: 'n', query: 'tld=ai', webhook_url: 'https://hooks.example.com/x' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(((error as ConnectionError).cause as { cause?: { code?: unknown } }).cause?.code).toBe('ECONNREFUSED');
      expect(attempts).toBe(3);
    });
  });
});
