import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureIndex, fixtureClock, FIXTURE_SOURCES } from './support/fixture-index';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

// The Inspector's CLI mode, as an MCP developer would check a server with it. Pinned at 1.0.3, the
// last 1.x: its CLI mode runs on Node 20 (the 2.x Inspector needs Node 22.19).
const inspector = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/inspector/cli/build/cli.js', import.meta.url));
const cli = fileURLToPath(new URL('../bin/domain-index.js', import.meta.url));

/** One Inspector run; its answer is the JSON it prints after its banner. */
function inspect(args: string[]): Promise<{ status: number | null; answer: unknown; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [inspector, '--cli', ...args], { env: { PATH: process.env.PATH ?? '' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => {
      const start = output.indexOf('{');
      resolve({ status, output, answer: start === -1 ? undefined : (JSON.parse(output.slice(start)) as unknown) });
    });
  });
}

// The MCP layer is the same over either database; PGlite (in this process) keeps the suite short.
describe('the MCP Inspector CLI against both transports', { timeout: 120_000 }, () => {
  let api: RunningApi;
  beforeAll(async () => {
    api = await startApi('pglite', { clock: fixtureClock, sources: FIXTURE_SOURCES });
    await buildFixtureIndex(api.test.database);
  });
  afterAll(async () => {
    await api.close();
  });

  const stdio = () => ['-e', `DOMAIN_INDEX_URL=${api.baseUrl}`, '-e', `DOMAIN_INDEX_API_KEY=${api.apiKey}`, process.execPath, cli, 'mcp'];
  const http = () => [`${api.baseUrl}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${api.apiKey}`];

  for (const [transport, target] of [['stdio', stdio], ['Streamable HTTP', http]] as const) {
    it(`lists the tools and calls search_domains over ${transport}`, async () => {
      const listed = await inspect([...target(), '--method', 'tools/list']);
      expect(listed.status, listed.output).toBe(0);
      expect((listed.answer as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toContain('search_domains');
      const called = await inspect([...target(), '--method', 'tools/call', '--tool-name', 'search_domains', '--tool-arg', 'status=all', '--tool-arg', 'limit=10']);
      expect(called.status, called.output).toBe(0);
      const result = called.answer as { structuredContent: { domains: unknown[]; total: { value: number } }; isError?: boolean };
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent.domains).toHaveLength(10);
      expect(result.structuredContent.total.value).toBeGreaterThan(10);
    });
  }

  it('shows a bad argument as a tool error naming the parameter', async () => {
    const called = await inspect([...http(), '--method', 'tools/call', '--tool-name', 'search_domains', '--tool-arg', 'limit=500']);
    expect(called.answer).toEqual({ content: [{ type: 'text', text: 'invalid_parameter (parameter limit): limit must be an integer from 1 to 200, written in digits only.' }], isError: true });
  });
});
