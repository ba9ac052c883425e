import type { DomainIndex, EventParams } from '@domain-index/client';
import { EVENT_LIMITS, EVENT_TYPES, eventListEnvelopeSchema, eventQuerySchema, eventSchema, queryErrorToApiError } from '@domain-index/contract';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { eventsText } from '../render';
import { toolInput } from '../tool-input';
import { argumentError, calling, toolResult } from '../tool-result';
import { READ_ONLY } from './annotations';

/** Every parameter of `GET /api/v1/events`: the contract's fields, as the API reads them. */
export const EVENT_FIELDS = eventQuerySchema.innerType().shape;

const pagination = eventListEnvelopeSchema.shape.pagination.shape;
const output = {
  events: z.array(eventSchema).describe('The events of this page, oldest first'),
  next_cursor: pagination.next_cursor,
  has_more: pagination.has_more,
};

// built once: a stateless HTTP server registers its tools on every request
const INPUT = toolInput(EVENT_FIELDS);

const DESCRIPTION = `Read the change feed: what changed in the index, oldest first: ${EVENT_TYPES.join(', ')}. Each event carries the listing (listing.updated also the fields that changed, with their values before).
Filter it like search_domains (search, tld, source, prices, lengths, scores...) and by \`type\`. Returns up to \`limit\` events (default ${EVENT_LIMITS.limitDefault}), \`next_cursor\` and \`has_more\`.
Without \`after\` it starts at the oldest event kept (events are kept about 14 days); after "now" starts at the newest. To go on, call again with \`after\` set to \`next_cursor\`: always returned, even on an empty page, so keep it to ask later what changed since.`;

/** `list_events`: one page of the change feed, and where to resume. */
export function registerListEvents(server: McpServer, client: DomainIndex): void {
  server.registerTool(
    'list_events',
    { title: 'What changed', description: DESCRIPTION, inputSchema: INPUT, outputSchema: output, annotations: READ_ONLY },
    (args) => {
      // checked as the API reads it: the client sends a list of types as one comma-separated value
      const checked = eventQuerySchema.safeParse(Array.isArray(args.type) ? { ...args, type: args.type.join(',') } : args);
      if (!checked.success) return argumentError(queryErrorToApiError(checked.error));
      return calling(async () => {
        const page = await client.events.list(args as EventParams);
        const result = { events: page.data, next_cursor: page.next_cursor, has_more: page.has_more };
        return toolResult(result, eventsText(result));
      });
    },
  );
}
