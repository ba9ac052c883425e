import { fileURLToPath } from 'node:url';
import type { Domain } from '@domain-index/contract';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const cli = fileURLToPath(new URL('../../bin/domain-index.js', import.meta.url));

/** The SDK's own client on `POST /mcp` of a running API, with `key` as its Bearer key. */
export async function connectHttp(baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'domain-index-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

/** The SDK's own client on a `domain-index mcp` it starts, as a host does, over the API at `baseUrl`. */
export async function connectStdio(baseUrl: string, key: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp'],
    env: { PATH: process.env.PATH ?? '', DOMAIN_INDEX_URL: baseUrl, DOMAIN_INDEX_API_KEY: key },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'domain-index-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** A tool's result, typed as the SDK's client returns it to a caller that sent no task. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a result's first content block. */
export const textOf = (result: CallToolResult): string => (result.content[0]?.type === 'text' ? result.content[0].text : '');

/** search_domains' structured answer. */
export interface SearchPage {
  domains: Domain[];
  total: { value: number; accuracy: 'exact' | 'planned' };
  next_cursor: string | null;
  has_more: boolean;
}

/** Pages search_domains to its end by cursor, as a model told by the description would. */
export async function walkSearch(client: Client, args: Record<string, unknown>): Promise<{ rows: Domain[]; pages: SearchPage[] }> {
  const rows: Domain[] = [];
  const pages: SearchPage[] = [];
  let cursor: string | null = null;
  do {
    const result = await call(client, 'search_domains', cursor === null ? args : { ...args, cursor });
    if (result.isError === true) throw new Error(`search_domains failed: ${textOf(result)}`);
    const page = result.structuredContent as unknown as SearchPage;
    pages.push(page);
    rows.push(...page.domains);
    cursor = page.next_cursor;
    if (pages.length > 100) throw new Error('too many pages');
  } while (cursor !== null);
  return { rows, pages };
}
