export { createDomainIndexMcpServer, type McpServerOptions } from './server';
export { MCP_CLIENT_OPTIONS } from './client-options';
export { serveStdio } from './stdio';
export { answerStreamableHttp } from './streamable-http';
export { SEARCH_FIELDS } from './tools/search-domains';
export { EVENT_FIELDS } from './tools/list-events';
export { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
