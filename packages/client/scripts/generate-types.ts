// Writes src/generated/api-types.ts from the contract's zod schemas, so the published client
// carries plain TypeScript types (and the error-code list) without depending on zod or ts-rest.
import { mkdirSync, writeFileSync } from 'node:fs';
import {
  alertSchema,
  alertWithSecretSchema,
  createAlertSchema,
  deletedAlertSchema,
  deliveryAttemptSchema,
  deliveryListSchema,
  deliveryQuerySchema,
  DIGEST_PERIODS,
  DIGEST_STATUSES,
  queuedDeliverySchema,
  updateAlertSchema,
  webhookPayloadSchema,
  DEFAULT_ORDER,
  domainSchema,
  ERROR_STATUS,
  errorEnvelopeSchema,
  eventListEnvelopeSchema,
  eventQuerySchema,
  eventSchema,
  exportQuerySchema,
  EVENT_TYPES,
  listEnvelopeSchema,
  LISTING_STATUSES,
  lookupEnvelopeSchema,
  searchQuerySchema,
  SORT_FIELDS,
  SORT_ORDERS,
  statsEnvelopeSchema,
  STATUS_FILTERS,
  REGISTRATION_PHASES,
  registrationSchema,
  nameHistoryEntrySchema,
  nameSchema,
  nameEnvelopeSchema,
  watchlistSchema,
  createdWatchlistSchema,
  createWatchlistSchema,
  updateWatchlistSchema,
  addedDomainsSchema,
  watchedDomainSchema,
  watchedDomainQuerySchema,
  watchedDomainListSchema,
  deletedWatchlistSchema,
  removedDomainSchema,
} from '@domain-index/contract';
import { z } from 'zod';

/** Whether `schema` is `domainSchema.partial()`: every field of a domain, each optional. */
function isPartialDomain(schema: z.ZodTypeAny, extra: readonly string[] = []): boolean {
  if (!(schema instanceof z.ZodObject)) return false;
  const shape = Object.fromEntries(Object.entries(schema.shape as Record<string, z.ZodTypeAny>).filter(([name]) => !extra.includes(name)));
  if (extra.some((name) => !(name in (schema.shape as object)))) return false;
  const domainShape = domainSchema.shape as Record<string, z.ZodTypeAny>;
  const names = Object.keys(shape);
  return (
    names.length === Object.keys(domainShape).length &&
    names.every((name) => {
      const field = shape[name];
      return field instanceof z.ZodOptional && field.unwrap() === domainShape[name];
    })
  );
}

const sameValues = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((value, index) => value === b[index]);

/** The TypeScript type of a schema; effects are followed to the type a caller passes. */
function typeOf(schema: z.ZodTypeAny, indent: string): string {
  // named types where the generated file declares them, so that editors show the name
  if (schema === domainSchema && indent !== '') return 'Domain';
  if (schema === eventSchema && indent !== '') return 'Event';
  if (schema === alertSchema && indent !== '') return 'Alert';
  if (schema === deliveryAttemptSchema && indent !== '') return 'DeliveryAttempt';
  if (isPartialDomain(schema)) return 'Partial<Domain>';
  // an event's previous_attributes: the listing's fields, and a name's phase before
  if (isPartialDomain(schema, ['phase'])) return 'Partial<Domain & { phase: RegistrationPhase | null }>';
  if (schema === registrationSchema && indent !== '') return 'Registration';
  if (schema === watchlistSchema && indent !== '') return 'Watchlist';
  if (schema === watchedDomainSchema && indent !== '') return 'WatchedDomain';
  if (schema === nameSchema && indent !== '') return 'Name';
  if (schema instanceof z.ZodEnum && sameValues(schema.options as string[], REGISTRATION_PHASES)) return 'RegistrationPhase';
  if (schema instanceof z.ZodEnum && sameValues(schema.options as string[], EVENT_TYPES)) return 'EventType';
  if (schema instanceof z.ZodString) return 'string';
  if (schema instanceof z.ZodNumber) return 'number';
  if (schema instanceof z.ZodBoolean) return 'boolean';
  if (schema instanceof z.ZodNull) return 'null';
  if (schema instanceof z.ZodLiteral) return JSON.stringify(schema.value);
  if (schema instanceof z.ZodEnum) return (schema.options as string[]).map((o) => JSON.stringify(o)).join(' | ');
  if (schema instanceof z.ZodNullable) return `${typeOf(schema.unwrap() as z.ZodTypeAny, indent)} | null`;
  if (schema instanceof z.ZodOptional) return typeOf(schema.unwrap() as z.ZodTypeAny, indent);
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodTypeAny[]).map((option) => typeOf(option, indent)).join(' | ');
  if (schema instanceof z.ZodArray) return `Array<${typeOf(schema.element as z.ZodTypeAny, indent)}>`;
  if (schema instanceof z.ZodRecord) return `Record<string, ${typeOf(schema.valueSchema as z.ZodTypeAny, indent)}>`;
  if (schema instanceof z.ZodEffects) return typeOf(schema.innerType() as z.ZodTypeAny, indent);
  if (schema instanceof z.ZodObject) return objectBody(schema as z.AnyZodObject, indent, false);
  throw new Error(`no TypeScript mapping for ${schema.constructor.name}`);
}

function isOptional(schema: z.ZodTypeAny): boolean {
  return schema.isOptional();
}

function objectBody(schema: z.AnyZodObject, indent: string, allOptional: boolean): string {
  const inner = `${indent}  `;
  const lines = Object.entries(schema.shape as Record<string, z.ZodTypeAny>).map(([name, field]) => {
    const doc = field.description === undefined ? '' : `${inner}/** ${field.description.replace(/\*\//g, '*\\/')} */\n`;
    const optional = allOptional || isOptional(field) ? '?' : '';
    const key = /^[a-z_][a-z0-9_]*$/i.test(name) ? name : JSON.stringify(name);
    return `${doc}${inner}${key}${optional}: ${typeOf(field, inner)};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function unwrapObject(schema: z.ZodTypeAny): z.AnyZodObject {
  let current = schema;
  while (current instanceof z.ZodEffects) current = current.innerType() as z.ZodTypeAny;
  if (!(current instanceof z.ZodObject)) throw new Error('expected an object schema');
  return current as z.AnyZodObject;
}

/** The fields `schema` adds to `base` (an `extend`ed object), as the body of an interface that extends it. */
function addedFields(schema: z.AnyZodObject, base: z.AnyZodObject): z.AnyZodObject {
  const baseShape = base.shape as Record<string, z.ZodTypeAny>;
  const added = Object.entries(schema.shape as Record<string, z.ZodTypeAny>).filter(([name, field]) => baseShape[name] !== field);
  return z.object(Object.fromEntries(added));
}


const constant = (name: string, doc: string, value: unknown) =>
  `/** ${doc} */\nexport const ${name} = ${JSON.stringify(value, null, 2)} as const;\n`;

const out = `// Generated from @domain-index/contract by scripts/generate-types.ts. Do not edit.

/** A listed domain: all 35 fields are always present; a missing value is null. */
export interface Domain ${objectBody(domainSchema, '', false)}

/** Parameters of a search. Every one is optional; see the API reference for each rule. */
export interface SearchParams ${objectBody(unwrapObject(searchQuerySchema), '', true)}

/**
 * Parameters of an export: every filter and the sort of a search, and the format (\`csv\` or
 * \`jsonl\`); no \`limit\` or \`cursor\`, since an export streams every matching row.
 */
export interface ExportParams ${objectBody(unwrapObject(exportQuerySchema), '', true)}

/** One page of search results, as the API sends it. */
export interface ListEnvelope ${typeOf(listEnvelopeSchema, '')}

/** What happened to a listing (or a marketplace), as an event's \`type\`. */
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * One change of the index: what happened (\`type\`), when it was committed (\`created\`), and the
 * listing it happened to (\`data.object\`), with the previous values of the fields that changed
 * (\`data.previous_attributes\`, for \`listing.updated\`).
 */
export interface Event ${objectBody(eventSchema, '', false)}

/**
 * Parameters of the change feed: where to resume (\`after\`), the event types (an array, or
 * comma-separated text), the page size, and every listing filter of a search.
 */
export interface EventParams ${objectBody(unwrapObject(eventQuerySchema), '', true)}

/** One page of the change feed, as the API sends it: it always carries the cursor to resume from. */
export interface EventListEnvelope ${typeOf(eventListEnvelopeSchema, '')}

/**
 * An alert: a saved change-feed query (\`query\`, the query string of \`GET /api/v1/events\`)
 * and where its matches go: a signed webhook, an email digest, or both.
 */
export interface Alert ${objectBody(alertSchema, '', false)}

/** An alert as created, or as changed when it got its first webhook, or re-keyed: with its signing secret, shown this once. */
export interface AlertWithSecret extends Alert ${objectBody(addedFields(alertWithSecretSchema, alertSchema), '', false)}

/** What \`client.alerts.create()\` takes: a name, the filter, and a webhook_url, an email_digest or both. */
export interface CreateAlert ${objectBody(createAlertSchema, '', false)}

/** What \`client.alerts.update()\` takes: the fields to change (null removes a channel; one must remain). */
export interface UpdateAlert ${objectBody(updateAlertSchema, '', false)}

/** The answer of \`client.alerts.delete()\`. */
export interface DeletedAlert ${objectBody(deletedAlertSchema, '', false)}

/** One attempt to deliver a webhook message, and what the receiver answered. */
export interface DeliveryAttempt ${objectBody(deliveryAttemptSchema, '', false)}

/** Parameters of an alert's delivery log: a page's \`next_cursor\` as \`after\`, and the page size. */
export interface DeliveryParams ${objectBody(unwrapObject(deliveryQuerySchema), '', true)}

/** A page of an alert's webhook attempts, newest first, as the API sends it. */
export interface DeliveryListEnvelope ${typeOf(deliveryListSchema, '')}

/** A webhook message queued to be sent now (\`client.alerts.test()\`, \`client.alerts.resend()\`). */
export interface QueuedDelivery ${objectBody(queuedDeliverySchema, '', false)}

/**
 * The JSON body of an alert's webhook request, as \`verifyWebhook()\` returns it: \`type\` \`events\`
 * with up to 100 events of the change feed in commit order, or \`test\` with none.
 */
export interface WebhookPayload ${objectBody(webhookPayloadSchema, '', false)}

/** Where a name is in its registration's life: registered, grace, redemption, pending_delete, available, unknown. */
export type RegistrationPhase = (typeof REGISTRATION_PHASES)[number];

/** What RDAP last said of a name's registration, and when it should drop. */
export interface Registration ${objectBody(registrationSchema, '', false)}

/** One change in a watched name's history. */
export interface NameHistoryEntry ${objectBody(nameHistoryEntrySchema, '', false)}

/** Everything known of one name: every marketplace's listing of it, its registration, its history. */
export interface Name ${objectBody(nameSchema, '', false)}

/** The response of a name's page. */
export interface NameEnvelope ${typeOf(nameEnvelopeSchema, '')}

/** A watchlist: names an owner follows. */
export interface Watchlist ${objectBody(watchlistSchema, '', false)}

/** A watchlist as created, with the names of the request that were refused. */
export interface CreatedWatchlist extends Watchlist ${objectBody(addedFields(createdWatchlistSchema, watchlistSchema), '', false)}

/** What \`client.watchlists.create()\` takes. */
export interface CreateWatchlist ${objectBody(createWatchlistSchema, '', false)}

/** What \`client.watchlists.update()\` takes. */
export interface UpdateWatchlist ${objectBody(updateWatchlistSchema, '', false)}

/** What \`client.watchlists.addDomains()\` did. */
export interface AddedDomains ${objectBody(addedDomainsSchema, '', false)}

/** A watched name and where it stands now. */
export interface WatchedDomain ${objectBody(watchedDomainSchema, '', false)}

/** Parameters of a watchlist's names: a page's \`next_cursor\` as \`after\`, and the page size. */
export interface WatchedDomainParams ${objectBody(unwrapObject(watchedDomainQuerySchema), '', true)}

/** A page of a watchlist's names, as the API sends it. */
export interface WatchedDomainListEnvelope ${typeOf(watchedDomainListSchema, '')}

/** The answer of \`client.watchlists.delete()\`. */
export interface DeletedWatchlist ${objectBody(deletedWatchlistSchema, '', false)}

/** The answer of \`client.watchlists.removeDomain()\`. */
export interface RemovedDomain ${objectBody(removedDomainSchema, '', false)}

/** How often an email digest is sent. */
export type DigestPeriod = (typeof DIGEST_PERIODS)[number];

/** Whether an alert's email digest reaches its address (\`Alert.email_digest_status\`). */
export type DigestStatus = (typeof DIGEST_STATUSES)[number];

/** The response of a lookup. */
export interface LookupEnvelope ${typeOf(lookupEnvelopeSchema, '')}

/** The response of the stats endpoint. */
export interface StatsEnvelope ${typeOf(statsEnvelopeSchema, '')}

/** The error envelope of every failed request. */
export interface ErrorEnvelope ${typeOf(errorEnvelopeSchema, '')}

${constant('ERROR_STATUS', 'Every error code of API v1 with its HTTP status.', ERROR_STATUS)}
/** A machine-readable error code of API v1. */
export type ErrorCode = keyof typeof ERROR_STATUS;

${constant('EVENT_TYPES', 'Every type of event of the change feed.', EVENT_TYPES)}
${constant('DIGEST_PERIODS', 'How often an email digest can be sent.', DIGEST_PERIODS)}
${constant('DIGEST_STATUSES', 'The states of an email digest: waiting for its address to be confirmed, confirmed, or unsubscribed.', DIGEST_STATUSES)}
${constant('REGISTRATION_PHASES', 'The phases of a registration.', REGISTRATION_PHASES)}
${constant('LISTING_STATUSES', 'The statuses of a listing.', LISTING_STATUSES)}
${constant('STATUS_FILTERS', 'Values of the status parameter.', STATUS_FILTERS)}
${constant('SORT_FIELDS', 'Fields a search can be sorted by.', SORT_FIELDS)}
${constant('SORT_ORDERS', 'Sort directions.', SORT_ORDERS)}
${constant('DEFAULT_ORDER', 'The direction used when sort is given without order.', DEFAULT_ORDER)}`;

const dir = new URL('../src/generated/', import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL('api-types.ts', dir), out);
