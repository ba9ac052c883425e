import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DomainIndex } from '@domain-index/client';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createDomainIndexMcpServer, type McpServerOptions } from './server';

/**
 * Answers one Streamable HTTP POST, statelessly: a new server and transport for this request
 * alone (no session id), so any instance behind a balancer can answer any request. `body` is
 * the JSON the caller's body parser read (with its size limit).
 */
export async function answerStreamableHttp(client: DomainIndex, req: IncomingMessage, res: ServerResponse, body: unknown, options: McpServerOptions = {}): Promise<void> {
  const server = createDomainIndexMcpServer(client, options);
  // No sessionIdGenerator: stateless, no Mcp-Session-Id. A JSON answer, not an SSE stream: no
  // tool sends progress, and a plain response passes every proxy as the API's own answers do.
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
