import { request } from 'node:http';
import { ERROR_STATUS } from '@domain-index/contract';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchParamSpecs } from './support/contract-values';
import { startApi, type RunningApi } from './support/start-api';

type Json = Record<string, unknown>;

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
    api = await startApi('pglite');
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
    const operations = Object.values(document.paths as Record<string, Record<string, Json>>).map((path) => path.get!);
    expect(operations.map((operation) => operation.summary)).toEqual(['Search listed domains', 'Look one listed domain up', 'Index statistics']);
    const seen = new Set<string>();
    for (const operation of operations) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const headers = response.headers as Json;
        expect(headers['X-Request-Id'], status).toBeDefined();
        if (Number(status) === 429 || Number(status) >= 500) expect(headers['Retry-After'], status).toBeDefined();
        // from the rate-limit step on (decisions.md): 401 (no key yet) and 405 (refused before
        // authentication) never carry them; every other status has codes that do
        if (status === '401' || status === '405') expect(headers['X-RateLimit-Limit'], status).toBeUndefined();
        else expect(Object.keys(headers), status).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Window', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit']));
        // a status whose codes come before and after the limit says which carry them
        if (status === '400') expect(String((headers['X-RateLimit-Limit'] as Json).description)).toMatch(/Sent with invalid_parameter, unknown_parameter, invalid_domain\./);
        if (Number(status) < 400) continue;
        // one example per code the status can carry, named by the code
        const codes = Object.keys(((response.content as Json)['application/json'] as Json).examples as Json);
        expect(codes.length, status).toBeGreaterThan(0);
        for (const code of codes) {
          expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS], code).toBe(Number(status));
          seen.add(code);
        }
      }
    }
    expect([...seen].sort()).toEqual(Object.keys(ERROR_STATUS).sort());
    expect((document.components as Json).securitySchemes).toMatchObject({ bearer: { type: 'http', scheme: 'bearer' } });
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
