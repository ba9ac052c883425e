import { DomainIndex } from '@domain-index/client';
import { MCP_CLIENT_OPTIONS, serveStdio } from '@domain-index/mcp';
import { CliError } from '../cli-error';
import { VERSION } from '../version';

/** The variables the stdio server needs, as a host's configuration sets them. */
const REQUIRED = ['DOMAIN_INDEX_URL', 'DOMAIN_INDEX_API_KEY'] as const;

/**
 * `domain-index mcp`: the MCP server on stdin and stdout for a host that starts it (Claude
 * Desktop, Cursor...), calling the API at DOMAIN_INDEX_URL with DOMAIN_INDEX_API_KEY, until the
 * host closes stdin.
 */
export async function mcpStdioCommand(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const missing = REQUIRED.filter((name) => (env[name] ?? '') === '');
  if (missing.length > 0) {
    throw new CliError(`mcp needs ${missing.join(' and ')} in its environment: the API's address (e.g. http://127.0.0.1:3000) and an API key`);
  }
  const client = new DomainIndex({ apiKey: env.DOMAIN_INDEX_API_KEY, baseUrl: env.DOMAIN_INDEX_URL, ...MCP_CLIENT_OPTIONS });
  await serveStdio(client, { version: VERSION });
}
