import type { CreateAlert, DomainIndex } from '@domain-index/client';
import { alertSchema, alertWithSecretSchema, createAlertSchema } from '@domain-index/contract';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { alertsText, createdAlertText } from '../render';
import { toolInput } from '../tool-input';
import { calling, toolResult } from '../tool-result';
import { READ_ONLY } from './annotations';

const LIST_DESCRIPTION = `List the user's alerts (saved change-feed filters whose matches go to a webhook or an email digest), newest first, each with its filter, channels, state and latest webhook delivery.`;

// built once: a stateless HTTP server registers its tools on every request
const CREATE_INPUT = toolInput(createAlertSchema.shape, ['name', 'query']);

const CREATE_DESCRIPTION = `Create an alert: a saved filter of the change feed whose matching events are sent to the user's webhook (signed per Standard Webhooks) or as an hourly or daily email digest, or both; at least one of webhook_url and email_digest.
\`query\` is the filter as a query string of the change feed, e.g. "type=listing.added&tld=ai&max_price=500" (the same filters as search_domains and list_events, without after and limit).
Returns the alert, and its webhook signing secret, shown only this once. Plans limit how many alerts a user may have.`;

/** `list_alerts`: the caller's alerts. */
export function registerListAlerts(server: McpServer, client: DomainIndex): void {
  server.registerTool(
    'list_alerts',
    { title: 'List alerts', description: LIST_DESCRIPTION, outputSchema: { alerts: z.array(alertSchema) }, annotations: READ_ONLY },
    () =>
      calling(async () => {
        const alerts = [...(await client.alerts.list())];
        return toolResult({ alerts }, alertsText(alerts));
      }),
  );
}

/** `create_alert`: saves an alert; the API checks its body (the filter, the webhook's address). */
export function registerCreateAlert(server: McpServer, client: DomainIndex): void {
  server.registerTool(
    'create_alert',
    {
      title: 'Create an alert',
      description: CREATE_DESCRIPTION,
      inputSchema: CREATE_INPUT,
      outputSchema: { alert: alertWithSecretSchema },
      // it writes, and what it writes sends messages to addresses outside this service
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args) =>
      calling(async () => {
        const alert = await client.alerts.create(args as CreateAlert);
        return toolResult({ alert }, createdAlertText(alert));
      }),
  );
}
