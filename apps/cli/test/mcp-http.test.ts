import { type Domain, statsEnvelopeSchema } from '@domain-index/contract';
import { eq, plans, requestLog } from '@domain-index/db';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '@domain-index/accounts/key-store';
import { parseAllowedHosts } from '@domain-index/webhooks/address-rules';
import { fixtureRetrievable } from './support/fixture-api';
import { buildFixtureIndex, fixtureClock, FIXTURE_SOURCES } from './support/fixture-index';
import { call, connectHttp, textOf, walkSearch, type SearchPage } from './support/mcp-client';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

const allowLoopback = parseAllowedHosts('127.0.0.1');
if (!allowLoopback.ok) throw new Error(allowLoopback.reason);

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } } };
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

// The MCP layer is the same over either database; PGlite (in this process) keeps the suite short.
describe('POST /mcp: the MCP server over Streamable HTTP', () => {
  let api: RunningApi;
  let mcp: Client;
  let retrievable: Domain[];

  beforeAll(async () => {
    api = await startApi('pglite', { clock: fixtureClock, sources: FIXTURE_SOURCES, dashboard: {}, overrides: { alerts: { allowList: allowLoopback.allowList } } });
    await buildFixtureIndex(api.test.database);
    retrievable = await fixtureRetrievable(api);
    mcp = await connectHttp(api.baseUrl, api.apiKey);
  });
  afterAll(async () => {
    await mcp.close();
    await api.close();
  });

  it('lists the six tools, the reading ones read-only', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([
      ['search_domains', true],
      ['lookup_domain', true],
      ['index_stats', true],
      ['list_events', true],
      ['list_alerts', true],
      ['create_alert', false],
    ]);
    expect(mcp.getServerVersion()?.name).toBe('domain-index');
  });

  it('pages a search to its end by cursor: as many rows as total says, each once, as REST answers them', async () => {
    const { rows, pages } = await walkSearch(mcp, { status: 'all', limit: 10, sort: 'domain_name' });
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.every((page) => page.total.accuracy === 'exact' && page.total.value === retrievable.length)).toBe(true);
    expect(rows).toHaveLength(pages[0]!.total.value);
    expect(rows.map((row) => `${row.domain_name} ${row.source}`)).toEqual(
      [...retrievable].sort((a, b) => (a.domain_name === b.domain_name ? 0 : a.domain_name < b.domain_name ? -1 : 1)).map((row) => `${row.domain_name} ${row.source}`),
    );
    expect(pages.at(-1)).toMatchObject({ next_cursor: null, has_more: false });
  });

  it('filters as the REST search does, and renders the page as text with the cursor to go on', async () => {
    const args = { status: 'all', tld: 'com', max_length: 6, no_hyphens: true, sort: 'current_bid', limit: 10 };
    const rest = (await (await api.get('/api/v1/domains?status=all&tld=com&max_length=6&no_hyphens=true&sort=current_bid&limit=10')).json()) as { data: Domain[]; total: { value: number } };
    const result = await call(mcp, 'search_domains', args);
    const page = result.structuredContent as unknown as SearchPage;
    expect(page.domains).toEqual(rest.data);
    expect(page.total.value).toBe(rest.total.value);
    const text = textOf(result);
    expect(text).toContain(rest.data[0]!.domain_name);
    if (page.next_cursor !== null) expect(text).toContain(`cursor "${page.next_cursor}"`);
  });

  it('looks a name up, and answers a name not listed as a tool error', async () => {
    const target = retrievable[0]!;
    const found = await call(mcp, 'lookup_domain', { domain: target.domain_name });
    expect(found.isError).toBeUndefined();
    expect((found.structuredContent as { domain: Domain }).domain.domain_name).toBe(target.domain_name);
    expect(textOf(found)).toContain(`domain_name: ${target.domain_name}`);
    const missing = await call(mcp, 'lookup_domain', { domain: 'not-listed-anywhere.com' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^domain_not_found: /);
  });

  it('counts the index as GET /api/v1/stats does', async () => {
    const rest = statsEnvelopeSchema.parse(await (await api.get('/api/v1/stats')).json()).data;
    const result = await call(mcp, 'index_stats');
    expect(result.structuredContent).toEqual(rest);
    expect(textOf(result)).toContain(`${rest.live} running auctions`);
  });

  it('reads the change feed from the start, and from its cursor on', async () => {
    const first = await call(mcp, 'list_events', { limit: 200 });
    const page = first.structuredContent as { events: { id: string; type: string }[]; next_cursor: string; has_more: boolean };
    expect(page.events.length).toBeGreaterThan(0);
    expect(page.has_more).toBe(false);
    const after = await call(mcp, 'list_events', { after: page.next_cursor });
    expect(after.structuredContent).toMatchObject({ events: [], has_more: false });
    expect(textOf(after)).toContain(`after "`);
    const typed = await call(mcp, 'list_events', { type: ['source.loaded'], limit: 200 });
    expect((typed.structuredContent as typeof page).events.every((event) => event.type === 'source.loaded')).toBe(true);
  });

  it('creates an alert and lists it; a webhook this service may not reach is the API refusal, naming webhook_url', async () => {
    const { key } = await createKey(api.test.database, { planId: 'pro', environment: 'live' });
    const own = await connectHttp(api.baseUrl, key);
    try {
      const created = await call(own, 'create_alert', { name: 'Short .com', query: 'type=listing.added&tld=com&max_length=5', webhook_url: 'http://127.0.0.1:9/hook' });
      expect(created.isError).toBeUndefined();
      const alert = (created.structuredContent as { alert: { id: string; webhook_secret: string } }).alert;
      expect(alert.webhook_secret).toMatch(/^whsec_/);
      expect(textOf(created)).toContain(alert.webhook_secret);
      const listed = await call(own, 'list_alerts');
      expect((listed.structuredContent as { alerts: { id: string }[] }).alerts.map((a) => a.id)).toEqual([alert.id]);
      const refused = await call(own, 'create_alert', { name: 'Private', query: 'tld=com', webhook_url: 'https://10.0.0.1/hook' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^invalid_parameter \(parameter webhook_url\): webhook_url must be a public https URL/);
    } finally {
      await own.close();
    }
  });

  it('answers bad arguments with a tool error naming the parameter and the fix, as the REST API words it', async () => {
    const rest = (await (await api.get('/api/v1/domains?min_price=10&max_price=5')).json()) as { error: { message: string } };
    const bounds = await call(mcp, 'search_domains', { min_price: 10, max_price: 5 });
    expect(bounds).toEqual({ isError: true, content: [{ type: 'text', text: `invalid_parameter (parameter max_price): ${rest.error.message}.` }] });
    const limit = await call(mcp, 'search_domains', { limit: 500 });
    expect(textOf(limit)).toBe('invalid_parameter (parameter limit): limit must be an integer from 1 to 200, written in digits only.');
    const unknown = await call(mcp, 'search_domains', { query: 'cloud' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain("'query'");
    const domain = await call(mcp, 'lookup_domain', { domain: 'no spaces.com' });
    expect(domain.isError).toBe(true);
    expect(textOf(domain)).toMatch(/^invalid_domain: /);
  });

  it('counts each tool call as a request of the key, and answers the exhausted limit with the retry time', async () => {
    await api.test.database.db.insert(plans).values({ id: 'mcp-three', requestsPerWindow: 3, windowSeconds: 3600, description: 'mcp tests' }).onConflictDoNothing();
    const { key } = await createKey(api.test.database, { planId: 'mcp-three', environment: 'live' });
    const limited = await connectHttp(api.baseUrl, key);
    try {
      expect((await call(limited, 'index_stats')).isError).toBeUndefined();
      expect((await call(limited, 'search_domains', { limit: 10 })).isError).toBeUndefined();
      // initialize and tools/list were not counted: two tool calls, one REST request, and the window is used up
      const rest = await api.get('/api/v1/stats', { headers: { authorization: `Bearer ${key}` } });
      expect(rest.headers.get('x-ratelimit-remaining')).toBe('0');
      const refused = await call(limited, 'index_stats');
      expect(refused.isError).toBe(true);
      const retryAfter = /Retry after (\d+) seconds\.$/.exec(textOf(refused))?.[1];
      expect(textOf(refused)).toMatch(/^rate_limited: this key has used its 3 requests of the current window; retry after \d+ s\. Retry after \d+ seconds\.$/);
      expect(Number(retryAfter)).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('puts the tool calls in the key request log as the REST requests they are', async () => {
    const { id, key } = await createKey(api.test.database, { planId: 'pro', environment: 'live' });
    const own = await connectHttp(api.baseUrl, key);
    try {
      await call(own, 'search_domains', { tld: 'com', limit: 10 });
    } finally {
      await own.close();
    }
    await api.requestLog!.flush();
    const logged = await api.test.database.db.select({ method: requestLog.method, path: requestLog.path, status: requestLog.status }).from(requestLog).where(eq(requestLog.keyId, id));
    expect(logged.map((row) => `${row.method} ${row.path} ${row.status}`)).toEqual(['GET /api/v1/domains?tld=com&limit=10 200']);
  });

  it('labels its requests /mcp/ in the request metrics, and the tool calls by their API route', async () => {
    const { values } = await api.metrics.registry.getSingleMetric('http_request_duration_seconds')!.get();
    const routes = new Set(values.map((value) => `${value.labels.method} ${value.labels.route}`));
    expect(routes).toContain('POST /mcp/');
    expect(routes).toContain('GET /api/v1/domains');
    expect(routes).not.toContain('POST /');
  });

  it('refuses a request without a valid key with 401 and the Bearer challenge', async () => {
    for (const authorization of [undefined, 'Bearer di_live_not_a_key']) {
      const response = await api.raw('/mcp', { method: 'POST', headers: { ...MCP_HEADERS, ...(authorization === undefined ? {} : { authorization }) }, body: JSON.stringify(INITIALIZE) });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="domain-index"');
      expect(((await response.json()) as { error: { code: string } }).error.code).toMatch(/^(missing_api_key|invalid_api_key)$/);
    }
    await expect(connectHttp(api.baseUrl, 'di_live_not_a_key')).rejects.toThrow();
  });

  it('answers GET and DELETE with 405, Allow: POST, as a server without sessions does, and a preflight too (no CORS)', async () => {
    for (const method of ['GET', 'DELETE', 'OPTIONS']) {
      const response = await api.get('/mcp', { method, headers: { accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    }
  });

  it('reads bodies as the API reads its JSON bodies: at most 16 KB', async () => {
    const padded = { ...INITIALIZE, params: { ...INITIALIZE.params, clientInfo: { name: 'x'.repeat(17 * 1024), version: '1' } } };
    const response = await api.get('/mcp', { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(padded) });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: 'invalid_parameter', message: 'body: larger than 16 KB', param: 'body' } });
  });
});
