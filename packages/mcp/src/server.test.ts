import { DomainIndex } from '@domain-index/client';
import { contract, createAlertSchema, eventQuerySchema, searchQuerySchema } from '@domain-index/contract';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createDomainIndexMcpServer, MCP_CLIENT_OPTIONS } from './index';

/** What the API answers, and the URLs it was asked for. */
function fakeApi(answer: () => Response) {
  const urls: string[] = [];
  const fetch: typeof globalThis.fetch = (input) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return Promise.resolve(answer());
  };
  return { urls, client: new DomainIndex({ apiKey: 'di_test_key', baseUrl: 'http://api.test', fetch, ...MCP_CLIENT_OPTIONS }) };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

let connected: Client | undefined;
afterEach(async () => {
  await connected?.close();
  connected = undefined;
});

async function connect(client: DomainIndex): Promise<Client> {
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await createDomainIndexMcpServer(client).connect(serverSide);
  connected = new Client({ name: 'test', version: '1.0.0' });
  await connected.connect(clientSide);
  return connected;
}

async function tool(name: string): Promise<Tool> {
  const mcp = await connect(fakeApi(() => json(500, {})).client);
  const found = (await mcp.listTools()).tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0]?.text ?? '');

describe('tool input schemas come from the contract', () => {
  it('search_domains takes every parameter of GET /api/v1/domains, described', async () => {
    const properties = (await tool('search_domains')).inputSchema.properties ?? {};
    const contractParams = Object.keys(searchQuerySchema.innerType().shape);
    expect(contractParams.length).toBeGreaterThan(20);
    expect(Object.keys(properties).sort()).toEqual([...contractParams].sort());
    for (const [name, schema] of Object.entries(properties)) expect((schema as { description?: string }).description, name).toMatch(/\w{3}/);
  });
  it('list_events takes every parameter of GET /api/v1/events', async () => {
    const properties = (await tool('list_events')).inputSchema.properties ?? {};
    expect(Object.keys(properties).sort()).toEqual(Object.keys(eventQuerySchema.innerType().shape).sort());
  });
  it('create_alert takes the body of POST /api/v1/alerts, name and query required', async () => {
    const { inputSchema } = await tool('create_alert');
    expect(Object.keys(inputSchema.properties ?? {}).sort()).toEqual(Object.keys(createAlertSchema.shape).sort());
    expect(inputSchema.required).toEqual(['name', 'query']);
  });
  it('lookup_domain takes the path parameter of GET /api/v1/domains/{domain}', async () => {
    const { inputSchema } = await tool('lookup_domain');
    expect(Object.keys(inputSchema.properties ?? {})).toEqual(Object.keys(contract.getDomain.pathParams.shape));
    expect(inputSchema.required).toEqual(['domain']);
  });
  it('keeps the bounds and choices of the contract', async () => {
    const properties = (await tool('search_domains')).inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    expect(properties.sort).toMatchObject({ type: 'string', enum: ['domain_name', 'length', 'current_bid', 'auction_end_time', 'bid_count', 'buy_now_price', 'index_score'] });
    expect(properties.no_hyphens).toMatchObject({ type: 'boolean' });
  });
  it('marks the reading tools read-only, and create_alert not', async () => {
    const mcp = await connect(fakeApi(() => json(500, {})).client);
    const { tools } = await mcp.listTools();
    expect(Object.fromEntries(tools.map((t) => [t.name, t.annotations?.readOnlyHint]))).toEqual({
      search_domains: true,
      lookup_domain: true,
      index_stats: true,
      list_events: true,
      list_alerts: true,
      create_alert: false,
    });
  });
});

describe('errors are tool errors', () => {
  it('answers a bad argument in the API words, naming the parameter, without calling the API', async () => {
    const api = fakeApi(() => json(500, {}));
    const mcp = await connect(api.client);
    const result = await mcp.callTool({ name: 'search_domains', arguments: { min_price: 10, max_price: 5 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('invalid_parameter (parameter max_price): max_price must be greater than or equal to min_price.');
    expect(api.urls).toEqual([]);
  });
  it('refuses a parameter the tool does not have, by name', async () => {
    const mcp = await connect(fakeApi(() => json(500, {})).client);
    const result = await mcp.callTool({ name: 'search_domains', arguments: { query: 'cloud' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/'query'/);
  });
  it('answers a 429 at once with the retry time', async () => {
    const api = fakeApi(() => json(429, { error: { code: 'rate_limited', message: 'this key has used its 10 requests of the current window; retry after 42 s' } }, { 'retry-after': '42' }));
    const mcp = await connect(api.client);
    const result = await mcp.callTool({ name: 'index_stats', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('rate_limited: this key has used its 10 requests of the current window; retry after 42 s. Retry after 42 seconds.');
    expect(api.urls).toHaveLength(1);
  });
  it('passes a 404 on with the API message', async () => {
    const mcp = await connect(fakeApi(() => json(404, { error: { code: 'domain_not_found', message: 'example.com is not listed' } })).client);
    const result = await mcp.callTool({ name: 'lookup_domain', arguments: { domain: 'example.com' } });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'domain_not_found: example.com is not listed.' }] });
  });
});
