import type { DomainIndex } from '@domain-index/client';
import { contract, domainSchema } from '@domain-index/contract';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { domainDetails } from '../render';
import { toolInput } from '../tool-input';
import { calling, toolResult } from '../tool-result';
import { READ_ONLY } from './annotations';

// built once: a stateless HTTP server registers its tools on every request
const INPUT = toolInput(contract.getDomain.pathParams.shape, ['domain']);

const DESCRIPTION = `Look one domain name up: its current listing with every field (status, marketplace, price, bids, end time, index_score, SEO metrics, marketplace_url).
The name is ASCII or punycode (xn--...), e.g. "example.com"; it is only lowercased.
When several marketplaces list it, the one chosen is: not ended first; then auction, available, dropping; then the most recently checked.
A name that is not listed now answers the error domain_not_found: it is not for sale on the indexed marketplaces (search_domains finds similar names).`;

/** `lookup_domain`: one listing by name. */
export function registerLookupDomain(server: McpServer, client: DomainIndex): void {
  server.registerTool(
    'lookup_domain',
    {
      title: 'Look a domain up',
      description: DESCRIPTION,
      inputSchema: INPUT,
      outputSchema: { domain: domainSchema },
      annotations: READ_ONLY,
    },
    ({ domain }) =>
      calling(async () => {
        const listing = await client.domains.get(domain);
        return toolResult({ domain: listing }, domainDetails(listing));
      }),
  );
}
