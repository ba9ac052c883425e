import type { DomainIndex } from '@domain-index/client';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { registerCreateAlert, registerListAlerts } from './tools/alerts';
import { registerIndexStats } from './tools/index-stats';
import { registerListEvents } from './tools/list-events';
import { registerLookupDomain } from './tools/lookup-domain';
import { registerSearchDomains } from './tools/search-domains';

/** What a host tells its model about this server as a whole. */
const INSTRUCTIONS = `Domain Index: domain names listed for sale (auctions, names about to drop, fixed-price listings) on several marketplaces.
search_domains filters and sorts them and pages with a cursor; lookup_domain reads one name; index_stats counts them; list_events reads what changed; list_alerts and create_alert manage saved filters whose matches are delivered by webhook or email.
A tool error names the parameter at fault and how to fix it; a rate_limited error says how many seconds to wait.`;

/**
 * One JSON Schema validator for every server of the process. The SDK makes a new Ajv instance
 * for each server without it, and over HTTP each request has a server of its own (stateless):
 * building Ajv was a large part of what a tool call cost beyond its REST request.
 */
const VALIDATOR = new AjvJsonSchemaValidator();

/** Options of the server. */
export interface McpServerOptions {
  /** The version the server reports to hosts (the program's). */
  version?: string | undefined;
}

/**
 * The Domain Index MCP server: its tools call the API through `client`, so whatever the client
 * can reach (a remote API over HTTPS, this process's own API over loopback) serves them, with the
 * key, the limits and the accounting of that API.
 */
export function createDomainIndexMcpServer(client: DomainIndex, options: McpServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'domain-index', title: 'Domain Index', version: options.version ?? '1.0.0' }, { instructions: INSTRUCTIONS, jsonSchemaValidator: VALIDATOR });
  registerSearchDomains(server, client);
  registerLookupDomain(server, client);
  registerIndexStats(server, client);
  registerListEvents(server, client);
  registerListAlerts(server, client);
  registerCreateAlert(server, client);
  return server;
}
