import type { DomainIndex, SearchParams } from '@domain-index/client';
import { domainSchema, listEnvelopeSchema, queryErrorToApiError, SEARCH_LIMITS, searchQuerySchema } from '@domain-index/contract';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { searchText } from '../render';
import { toolInput } from '../tool-input';
import { argumentError, calling, toolResult } from '../tool-result';
import { READ_ONLY } from './annotations';

/** Every parameter of `GET /api/v1/domains`: the contract's fields, as the API reads them. */
export const SEARCH_FIELDS = searchQuerySchema.innerType().shape;

const output = {
  domains: z.array(domainSchema).describe('The listings of this page, in the order asked for'),
  total: listEnvelopeSchema.shape.total,
  next_cursor: listEnvelopeSchema.shape.pagination.shape.next_cursor.describe('Pass it as `cursor` (with the same other arguments) for the next page; null on the last page'),
  has_more: listEnvelopeSchema.shape.pagination.shape.has_more,
};

// built once: a stateless HTTP server registers its tools on every request
const INPUT = toolInput(SEARCH_FIELDS);

const DESCRIPTION = `Search the domain names listed for sale on the indexed marketplaces (running auctions, names about to drop, fixed-price listings).
Returns up to \`limit\` listings (default ${SEARCH_LIMITS.limitDefault}, at most ${SEARCH_LIMITS.limitMax}) with every field of each, \`total\` (how many match: exact, or an estimate when counting would take too long) and \`next_cursor\`.
Without \`status\` only running auctions are searched; pass status "all" for every listing that has not ended.
To read further, call again with the same arguments and \`cursor\` set to \`next_cursor\`, until it is null.
Prices are US dollars. index_score (0-100) is demand and liquidity, not a valuation.`;

/** `search_domains`: one page of a search, and the cursor to the next. */
export function registerSearchDomains(server: McpServer, client: DomainIndex): void {
  server.registerTool(
    'search_domains',
    { title: 'Search listed domains', description: DESCRIPTION, inputSchema: INPUT, outputSchema: output, annotations: READ_ONLY },
    (args) => {
      // the contract's own check, worded as the API's 400: no request is spent on a bad argument
      const checked = searchQuerySchema.safeParse(args);
      if (!checked.success) return argumentError(queryErrorToApiError(checked.error));
      return calling(async () => {
        const page = await client.domains.list(args as SearchParams);
        const result = { domains: page.data, total: page.total, next_cursor: page.pagination.next_cursor, has_more: page.pagination.has_more };
        return toolResult(result, searchText(result));
      });
    },
  );
}
