import { request } from 'node:http';
import { ERROR_STATUS } from '@domain-index/contract';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowedHosts } from '@domain-index/webhooks/address-rules';
import { searchParamSpecs } from '@domain-index/test-support/contract-values';
import { startApi, type RunningApi } from './support/start-api';

type Json = Record<string, unknown>;

/** Webhook hosts resolve to loopback, which is allow-listed: alerts can be created, and nothing is sent (no delivery worker runs here). */
const loopback = (() => {
  const parsed = parseAllowedHosts('127.0.0.1');
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.allowList;
})();
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Window', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'];
/** The codes answered from the rate-limit step on (decisions.md, order of checks): they carry its headers. */
const AFTER_RATE_LIMIT = new Set(['rate_limited', 'rate_limit_unavailable', 'invalid_parameter', 'unknown_parameter', 'invalid_domain', 'domain_not_found', 'cursor_expired', 'alert_not_found', 'delivery_not_found', 'alert_limit_reached', 'watchlist_not_found', 'watch_limit_reached', 'watchlist_in_use', 'refresh_limit_reached', 'export_too_large', 'query_failed', 'internal_error']);

/** GET with a Host header of our choosing (fetch sends the URL's own). */
function getWithHost(baseUrl: string, path: string, host: string): Promise<Json> {
  return new Promise((resolve, reject) => {
    request(`${baseUrl}${path}`, { headers: { host } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve(JSON.parse(body) as Json));
    })
      .on('error', reject)
      .end();
  });
}

describe('the OpenAPI document and the reference page', () => {
  let api: RunningApi;
  let document: Json;
  beforeAll(async () => {
    api = await startApi('pglite', { overrides: { alerts: { allowList: loopback, resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]) } } });
    const response = await api.raw('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    document = (await response.json()) as Json;
  });
  afterAll(async () => {
    await api.close();
  });

  it('is served without a key, and validates as OpenAPI 3', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(String(document.openapi)).toMatch(/^3\./);
  });

  it('describes every search parameter with the bounds of the contract', () => {
    const operation = (document.paths as Record<string, Record<string, Json>>)['/api/v1/domains']!.get!;
    const parameters = new Map((operation.parameters as Json[]).map((parameter) => [parameter.name as string, parameter.schema as Json]));
    for (const spec of searchParamSpecs()) {
      const schema = parameters.get(spec.name);
      expect(schema, spec.name).toBeDefined();
      if (spec.kind === 'number') {
        expect(schema!.minimum, spec.name).toBe(spec.min);
        if (spec.max !== undefined) expect(schema!.maximum, spec.name).toBe(spec.max);
        expect(schema!.type, spec.name).toBe(spec.integer ? 'integer' : 'number');
      }
      if (spec.kind === 'text' && spec.maxLength !== undefined) expect(schema!.maxLength, spec.name).toBe(spec.maxLength);
      if (spec.kind === 'enum') expect(schema!.enum, spec.name).toEqual(spec.values);
    }
  });

  it('lists each error code under its status, the rate-limit headers, Retry-After and the bearer scheme', () => {
    const operations = Object.values(document.paths as Record<string, Record<string, Json>>).flatMap((methods) => Object.values(methods));
    expect(operations.map((operation) => operation.summary)).toEqual([
      'Search listed domains',
      'Export every matching listing as CSV or JSON lines',
      'Look one listed domain up',
      'What changed: the change feed',
      'Create an alert',
      'List your alerts',
      'Get an alert',
      'Change an alert',
      'Delete an alert',
      'Send a test webhook',
      "An alert's webhook attempts",
      'Send a message again',
      "Replace an alert's signing secret",
      'Everything known of a name',
      'Create a watchlist',
      'List your watchlists',
      'Get a watchlist',
      'Rename a watchlist',
      'Delete a watchlist',
      'Add names to a watchlist',
      "A watchlist's names and where each stands",
      'Stop watching a name',
      'Index statistics',
    ]);
    const seen = new Set<string>();
    for (const operation of operations) {
      const id = String(operation.operationId);
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const headers = response.headers as Json;
        expect(headers['X-Request-Id'], `${id} ${status}`).toBeDefined();
        if (Number(status) === 429 || Number(status) >= 500) expect(headers['Retry-After'], `${id} ${status}`).toBeDefined();
        if (Number(status) < 400) {
          expect(Object.keys(headers), `${id} ${status}`).toEqual(expect.arrayContaining(RATE_LIMIT_HEADERS));
          continue;
        }
        // one example per code the status can carry for this operation, named by the code
        const codes = Object.keys(((response.content as Json)['application/json'] as Json).examples as Json);
        expect(codes.length, `${id} ${status}`).toBeGreaterThan(0);
        for (const code of codes) {
          expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS], code).toBe(Number(status));
          seen.add(code);
        }
        // from the rate-limit step on (decisions.md): a status carries the headers when one of its
        // codes comes from there (401 never: no key yet; 405 never: refused before authentication)
        const carrying = codes.filter((code) => AFTER_RATE_LIMIT.has(code));
        if (carrying.length === 0) expect(headers['X-RateLimit-Limit'], `${id} ${status}`).toBeUndefined();
        else expect(Object.keys(headers), `${id} ${status}`).toEqual(expect.arrayContaining(RATE_LIMIT_HEADERS));
        if (status === '401' || status === '405') expect(carrying, status).toEqual([]);
        // a status whose codes come before and after the limit says which carry them
        if (carrying.length > 0 && carrying.length < codes.length) {
          expect(String((headers['X-RateLimit-Limit'] as Json).description), `${id} ${status}`).toContain(`Sent with ${carrying.join(', ')}`);
        }
      }
    }
    expect([...seen].sort()).toEqual(Object.keys(ERROR_STATUS).sort());
    const domains400 = ((document.paths as Record<string, Record<string, Json>>)['/api/v1/domains/{domain}']!.get!.responses as Record<string, Json>)['400']!;
    expect(String(((domains400.headers as Json)['X-RateLimit-Limit'] as Json).description)).toMatch(/Sent with invalid_parameter, unknown_parameter, invalid_domain\./);
    expect((document.components as Json).securitySchemes).toMatchObject({ bearer: { type: 'http', scheme: 'bearer' } });
  });

  it("answers the alerts' errors as the document lists them: each code under its operation and status, with the headers it says", async () => {
    const paths = document.paths as Record<string, Record<string, Json>>;
    const send = (method: string, path: string, body?: unknown) =>
      api.get(path, { method, ...(body === undefined ? {} : { headers: { authorization: `Bearer ${api.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
    /** Sends the request, and checks its error against the document's operation at `path` and `method`. */
    const documented = async (path: string, method: string, request: Promise<Response>) => {
      const response = await request;
      const { error } = (await response.json()) as { error: { code: string } };
      const documentedResponse = (paths[path]![method]!.responses as Record<string, Json>)[String(response.status)];
      expect(documentedResponse, `${method} ${path} ${response.status}`).toBeDefined();
      const examples = ((documentedResponse!.content as Json)['application/json'] as Json).examples as Json;
      expect(Object.keys(examples), `${method} ${path}`).toContain(error.code);
      expect(response.headers.get('x-ratelimit-limit') !== null, `${method} ${path} ${error.code}`).toBe((documentedResponse!.headers as Json)['X-RateLimit-Limit'] !== undefined);
      return error.code;
    };
    const body = { name: 'docs', query: 'tld=ai', webhook_url: 'https://hooks.example.com/domain-index' };
    // the suite's key is on a plan of 2 alerts
    const created = (await (await send('POST', '/api/v1/alerts', body)).json()) as { id: string };
    await send('POST', '/api/v1/alerts', body);
    expect(await documented('/api/v1/alerts', 'post', send('POST', '/api/v1/alerts', body))).toBe('alert_limit_reached');
    expect(await documented('/api/v1/alerts', 'post', send('POST', '/api/v1/alerts', { ...body, webhook_url: 'https://169.254.169.254/' }))).toBe('invalid_parameter');
    expect(await documented('/api/v1/alerts/{id}', 'get', send('GET', '/api/v1/alerts/alt_nope'))).toBe('alert_not_found');
    expect(await documented('/api/v1/alerts/{id}', 'patch', send('PATCH', '/api/v1/alerts/alt_nope', { paused: true }))).toBe('alert_not_found');
    expect(await documented('/api/v1/alerts/{id}', 'delete', send('DELETE', '/api/v1/alerts/alt_nope'))).toBe('alert_not_found');
    expect(await documented('/api/v1/alerts/{id}/test', 'post', send('POST', '/api/v1/alerts/alt_nope/test'))).toBe('alert_not_found');
    expect(await documented('/api/v1/alerts/{id}/rotate-secret', 'post', send('POST', '/api/v1/alerts/alt_nope/rotate-secret'))).toBe('alert_not_found');
    expect(await documented('/api/v1/alerts/{id}/deliveries', 'get', send('GET', `/api/v1/alerts/${created.id}/deliveries?after=garbage`))).toBe('invalid_parameter');
    expect(await documented('/api/v1/alerts/{id}/deliveries/{deliveryId}/resend', 'post', send('POST', `/api/v1/alerts/${created.id}/deliveries/msg_nope/resend`))).toBe('delivery_not_found');
    // a path that is not an endpoint, and a method an endpoint does not take
    expect(await documented('/api/v1/alerts', 'get', send('PUT', '/api/v1/alerts'))).toBe('method_not_allowed');
    // each parameter example of the alerts' delivery log, alone, is a query the API accepts
    const deliveries = paths['/api/v1/alerts/{id}/deliveries']!.get!;
    for (const parameter of (deliveries.parameters as Json[]).filter((entry) => entry.in === 'query')) {
      const query = new URLSearchParams({ [String(parameter.name)]: String(parameter.example) });
      expect((await send('GET', `/api/v1/alerts/${created.id}/deliveries?${query.toString()}`)).status, String(parameter.name)).toBe(200);
    }
    const events = paths['/api/v1/events']!.get!;
    for (const name of ['after', 'type', 'limit']) {
      const parameter = (events.parameters as Json[]).find((entry) => entry.name === name)!;
      const query = new URLSearchParams({ [name]: String(parameter.example) });
      expect((await send('GET', `/api/v1/events?${query.toString()}`)).status, name).toBe(200);
    }
  });

  it('names the origin a request used as its server, in the servers list and in the code samples', async () => {
    const port = new URL(api.baseUrl).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'api.domains.test']) {
      const served = await getWithHost(api.baseUrl, '/openapi.json', host);
      expect(served.servers, host).toMatchObject([{ url: `http://${host}` }]);
      const samples = (((served.paths as Record<string, Record<string, Json>>)['/api/v1/stats']!.get!)['x-codeSamples'] as Json[]).map((sample) => String(sample.source));
      for (const sample of samples) expect(sample, host).toContain(`http://${host}`);
    }
    // a Host header that is not a host is not written into the document
    const odd = await getWithHost(api.baseUrl, '/openapi.json', 'a"b');
    expect(odd.servers).toMatchObject([{ url: 'http://127.0.0.1:3000' }]);
  });

  it('names PUBLIC_URL as its server when one is configured, whatever the request', async () => {
    const configured = await startApi('pglite', { test: api.test, overrides: { publicUrl: 'https://domains.example.org/' } });
    try {
      const served = await getWithHost(configured.baseUrl, '/openapi.json', 'elsewhere.test');
      expect(served.servers).toMatchObject([{ url: 'https://domains.example.org' }]);
      expect(JSON.stringify(served)).not.toContain('elsewhere.test');
    } finally {
      await configured.close();
    }
  });

  it('sends the document and the page script compressed when asked, the same bytes as uncompressed', async () => {
    for (const path of ['/openapi.json', '/docs/redoc.standalone.js']) {
      const plain = Buffer.from(await (await api.raw(path, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer());
      expect(plain.length, path).toBeGreaterThan(1_000);
      for (const [asked, coding] of [['gzip, deflate, br', 'gzip'], ['br', 'br'], ['gzip', 'gzip']] as const) {
        // twice: the second answer comes from the copy compressed by the first
        for (let round = 0; round < 2; round += 1) {
          const response = await api.raw(path, { headers: { 'accept-encoding': asked } });
          expect(response.headers.get('content-encoding'), `${path} ${asked}`).toBe(coding);
          expect(response.headers.get('vary')).toMatch(/accept-encoding/i);
          // fetch decodes the body: it must be the uncompressed bytes exactly
          expect(Buffer.from(await response.arrayBuffer()).equals(plain), `${path} ${asked}`).toBe(true);
        }
      }
    }
  });

  it('serves the reference page under a policy that loads nothing from another host, and /api/v1 still needs a key', async () => {
    const page = await api.raw('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
    expect(await page.text()).not.toMatch(/(src|href)="https?:/);
    const bundle = await api.raw('/docs/redoc.standalone.js');
    expect(bundle.status).toBe(200);
    expect(await bundle.text()).not.toContain('cdn.redoc.ly');
    expect((await api.raw('/api/v1/domains')).status).toBe(401);
  });
});
