import type { DomainIndex } from '@domain-index/client';
import { statsEnvelopeSchema } from '@domain-index/contract';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { statsText } from '../render';
import { calling, toolResult } from '../tool-result';
import { READ_ONLY } from './annotations';

const DESCRIPTION = `Count the index: listings in total, running auctions (what search_domains finds without status), listings not ended (status "all"), and the counts by status and by marketplace, with when they were measured (cached up to 5 minutes).
Use it to learn which marketplaces (the \`source\` values) exist and how big a search can be.`;

/** `index_stats`: the index's counts. */
export function registerIndexStats(server: McpServer, client: DomainIndex): void {
  server.registerTool(
    'index_stats',
    { title: 'Index statistics', description: DESCRIPTION, outputSchema: statsEnvelopeSchema.shape.data, annotations: READ_ONLY },
    () =>
      calling(async () => {
        const { meta: _meta, ...stats } = await client.stats();
        return toolResult(stats, statsText(stats));
      }),
  );
}
