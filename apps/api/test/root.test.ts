import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from './support/start-api';

const API_AND_DOCS =
  'Domain Index: the API is under /api/v1 (send a key in the Authorization header); its reference is at /docs; AI assistants reach it over MCP at POST /mcp (the same key)';

describe('GET / names the API, its reference, the MCP server and the dashboard', () => {
  let withDashboard: RunningApi;
  let apiOnly: RunningApi;
  beforeAll(async () => {
    withDashboard = await startApi('pglite', { dashboard: {} });
    apiOnly = await startApi('pglite', { test: withDashboard.test });
  });
  afterAll(async () => {
    await apiOnly.close();
    await withDashboard.close();
  });

  it('answers a small JSON index instead of a 404', async () => {
    const response = await withDashboard.raw('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      message: `${API_AND_DOCS}; keys, usage and alerts are managed at /dashboard`,
      api: '/api/v1',
      docs: '/docs',
      openapi: '/openapi.json',
      mcp: '/mcp',
      dashboard: '/dashboard',
    });
    expect((await withDashboard.raw('/', { method: 'HEAD' })).status).toBe(200);
  });

  it('leaves the dashboard out where it is not served', async () => {
    expect(await (await apiOnly.raw('/')).json()).toEqual({ message: API_AND_DOCS, api: '/api/v1', docs: '/docs', openapi: '/openapi.json', mcp: '/mcp' });
  });

  it('answers another method on / with 405 in the error envelope', async () => {
    const response = await withDashboard.raw('/', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await response.json()).toEqual({ error: { code: 'method_not_allowed', message: 'POST is not allowed here; use GET' } });
  });

  it('still answers a path that is nothing with 404 not_found', async () => {
    const response = await withDashboard.raw('/index.html');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: 'not_found', message: 'no endpoint at /index.html; see /api/v1/domains, /api/v1/domains/{domain}, /api/v1/events, /api/v1/alerts and /api/v1/stats' },
    });
  });
});
