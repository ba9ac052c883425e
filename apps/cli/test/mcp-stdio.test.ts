import type { Domain } from '@domain-index/contract';
import { plans } from '@domain-index/db';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '@domain-index/accounts/key-store';
import { fixtureRetrievable } from './support/fixture-api';
import { buildFixtureIndex, fixtureClock, FIXTURE_SOURCES } from './support/fixture-index';
import { call, connectStdio, textOf, walkSearch } from './support/mcp-client';
import { runCli } from './support/run-cli';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } } };

// The MCP layer is the same over either database; PGlite (in this process) keeps the suite short.
describe('domain-index mcp: the MCP server over stdio, as a host starts it', { timeout: 120_000 }, () => {
  let api: RunningApi;
  let mcp: Client;
  let stderr: () => string;
  let retrievable: Domain[];

  beforeAll(async () => {
    api = await startApi('pglite', { clock: fixtureClock, sources: FIXTURE_SOURCES });
    await buildFixtureIndex(api.test.database);
    retrievable = await fixtureRetrievable(api);
    ({ client: mcp, stderr } = await connectStdio(api.baseUrl, api.apiKey));
  });
  afterAll(async () => {
    await mcp.close();
    await api.close();
  });

  it('negotiates the newest protocol version and lists the six tools', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search_domains', 'lookup_domain', 'index_stats', 'list_events', 'list_alerts', 'create_alert']);
    expect(mcp.getServerVersion()?.name).toBe('domain-index');
    expect(mcp.getInstructions()).toMatch(/search_domains/);
  });

  it('calls each reading tool', async () => {
    const target = retrievable[0]!;
    const found = await call(mcp, 'lookup_domain', { domain: target.domain_name });
    expect((found.structuredContent as { domain: Domain }).domain.domain_name).toBe(target.domain_name);
    const stats = await call(mcp, 'index_stats');
    expect(stats.structuredContent).toMatchObject({ retrievable: retrievable.length });
    const events = await call(mcp, 'list_events', { type: 'source.loaded' });
    expect((events.structuredContent as { events: unknown[] }).events.length).toBeGreaterThan(0);
    const alerts = await call(mcp, 'list_alerts');
    expect(alerts).toMatchObject({ structuredContent: { alerts: [] } });
    expect(textOf(alerts)).toBe('No alerts.');
  });

  it('pages a search to its end by cursor, as many rows as total says', async () => {
    const { rows, pages } = await walkSearch(mcp, { status: 'all', limit: 25 });
    expect(pages[0]!.total).toEqual({ value: retrievable.length, accuracy: 'exact' });
    expect(rows).toHaveLength(retrievable.length);
    expect(new Set(rows.map((row) => `${row.domain_name} ${row.source}`)).size).toBe(rows.length);
  });

  it('answers a bad argument with a tool error naming the parameter', async () => {
    const result = await call(mcp, 'search_domains', { ending_within: 5, status: 'dropping' });
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'invalid_parameter (parameter ending_within): ending_within applies to running auctions only; it cannot be combined with status=dropping.' }],
    });
  });

  it('answers an unknown key, and a used-up limit, as tool errors', async () => {
    const wrongKey = await connectStdio(api.baseUrl, 'di_live_not_a_key');
    try {
      const refused = await call(wrongKey.client, 'index_stats');
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('invalid_api_key: the API key is not valid.');
    } finally {
      await wrongKey.client.close();
    }
    await api.test.database.db.insert(plans).values({ id: 'mcp-one', requestsPerWindow: 1, windowSeconds: 3600, description: 'mcp tests' }).onConflictDoNothing();
    const { key } = await createKey(api.test.database, { planId: 'mcp-one', environment: 'live' });
    const limited = await connectStdio(api.baseUrl, key);
    try {
      expect((await call(limited.client, 'index_stats')).isError).toBeUndefined();
      const refused = await call(limited.client, 'index_stats');
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^rate_limited: .* Retry after \d+ seconds\.$/);
    } finally {
      await limited.client.close();
    }
  });

  it('writes nothing but protocol to stdout, and ends when stdin closes', async () => {
    const run = await runCli(['mcp'], { DOMAIN_INDEX_URL: api.baseUrl, DOMAIN_INDEX_API_KEY: api.apiKey }, [
      line(INITIALIZE),
      line({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    ].join(''));
    expect(run.status).toBe(0);
    const messages = run.stdout.trim().split('\n').map((text) => JSON.parse(text) as { jsonrpc: string; id: number; result: Record<string, unknown> });
    expect(messages.map((message) => [message.jsonrpc, message.id])).toEqual([['2.0', 1], ['2.0', 2]]);
    expect(messages[0]!.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'domain-index' } });
    expect(run.stderr).toBe('');
    expect(stderr()).toBe('');
  });

  it('says in one line on stderr what is missing, and exits 2', async () => {
    for (const [env, missing] of [
      [{}, 'DOMAIN_INDEX_URL and DOMAIN_INDEX_API_KEY'],
      [{ DOMAIN_INDEX_URL: api.baseUrl }, 'DOMAIN_INDEX_API_KEY'],
      [{ DOMAIN_INDEX_API_KEY: api.apiKey }, 'DOMAIN_INDEX_URL'],
    ] as const) {
      const run = await runCli(['mcp'], env);
      expect(run).toEqual({
        status: 2,
        stdout: '',
        stderr: `domain-index: mcp needs ${missing} in its environment: the API's address (e.g. http://127.0.0.1:3000) and an API key\n`,
      });
    }
  });
});
