import type { DomainIndex } from '@domain-index/client';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createDomainIndexMcpServer, type McpServerOptions } from './server';

/**
 * Serves the MCP server on this process's stdin and stdout until the host closes stdin. Stdout
 * then carries the protocol only: whatever else the process says goes to stderr.
 */
export async function serveStdio(client: DomainIndex, options: McpServerOptions = {}): Promise<void> {
  const server = createDomainIndexMcpServer(client, options);
  const closed = new Promise<void>((resolve) => process.stdin.once('end', resolve).once('close', resolve));
  await server.connect(new StdioServerTransport());
  await closed;
  await server.close();
}
