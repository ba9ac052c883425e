import { generateSchema } from '@anatine/zod-openapi';
import { generateOpenApi } from '@ts-rest/open-api';
import { ALERT_LIMITS } from './alerts';
import { contract } from './contract';
import { timestampSchema } from './domain';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from './errors';
import { OPENAPI_COMPONENTS, type ComponentEntry } from './openapi-components';
import { ERROR_EXAMPLES, PATH_PARAMETER_EXAMPLES, SEARCH_PARAMETER_EXAMPLES } from './openapi-examples';
import { OPENAPI_OPERATIONS, OPENAPI_TAGS, type OperationDocs } from './openapi-operations';
import { nullableEnumAsOneOf, referencesIn, referToComponents, visitObjects, type Json } from './openapi-refs';

export { inlineReferences } from './openapi-refs';
import { API_VERSION } from './texts';

/** The server of a document nobody configured: where `domain-index serve` listens by default. */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:3000';

const header = (description: string, example: number | string): Json => ({
  description,
  schema: { type: typeof example === 'number' ? 'integer' : 'string' },
  example,
});

/**
 * Headers of every response once the rate-limit step has run (decisions.md). The field
 * templates are code spans: /docs renders descriptions as Markdown, where `<limit>` is a tag.
 */
const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': header("Requests allowed per window on the key's plan", 1000),
  'X-RateLimit-Window': header('The window length in seconds (3600)', 3600),
  'X-RateLimit-Remaining': header('Requests left in the current window, when the live usage can be reported', 957),
  'X-RateLimit-Reset': header('End of the current window, unix seconds, when the live usage can be reported', 1795158000),
  // their examples are in the description: Redoc writes a string example JSON-escaped ("\"hourly\"...")
  'RateLimit-Policy': {
    description: 'IETF draft field `"hourly";q=<limit>;w=<window>`, e.g. `"hourly";q=1000;w=3600`',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'IETF draft field `"hourly";r=<remaining>;t=<seconds to reset>`, e.g. `"hourly";r=957;t=1260`',
    schema: { type: 'string' },
  },
};
/**
 * The error codes answered from the rate-limit step on (decisions.md, order of checks), which
 * carry the rate-limit headers; the codes of the steps before it (a key in the URL, the key,
 * the plan, an unknown path) do not. internal_error may come from any step.
 */
const AFTER_RATE_LIMIT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'rate_limited',
  'rate_limit_unavailable',
  'invalid_parameter',
  'unknown_parameter',
  'invalid_domain',
  'domain_not_found',
  'cursor_expired',
  'alert_not_found',
  'delivery_not_found',
  'alert_limit_reached',
  'watchlist_not_found',
  'watch_limit_reached',
  'watchlist_in_use',
  'refresh_limit_reached',
  'export_too_large',
  'query_failed',
  'internal_error',
]);

/** The rate-limit headers of a response that carries them only with some of its codes. */
function rateLimitHeadersFor(codes: readonly ErrorCode[] | undefined): Json {
  if (codes === undefined) return RATE_LIMIT_HEADERS;
  const carrying = codes.filter((code) => AFTER_RATE_LIMIT.has(code));
  if (carrying.length === 0) return {};
  const note = ` Sent with ${carrying.join(', ')}${carrying.includes('internal_error') ? ' (internal_error: when it happens after the rate limit)' : ''}${carrying.includes('rate_limit_unavailable') ? '; with rate_limit_unavailable only the limit and the window' : ''}.`;
  return Object.fromEntries(
    Object.entries(RATE_LIMIT_HEADERS).map(([name, value]) => [name, { ...(value as Json), description: `${String((value as Json).description)}.${note}` }]),
  );
}

const REQUEST_ID: Json = { 'X-Request-Id': header('Echoes a well-formed incoming X-Request-Id, else a new one', 'req_5f1c2a9e8b7d4c3a') };
/** On every answer about alerts: they carry signing secrets (once) and webhook URLs, which may hold a token. */
const NO_STORE: Json = {
  'Cache-Control': { description: '`no-store`: no browser, proxy or client cache keeps an answer about alerts (a signing secret, a webhook URL)', schema: { type: 'string' }, example: 'no-store' },
};
const RETRY_AFTER: Json = {
  'Retry-After': header('Seconds to wait before retrying: the real reset of the window on a 429, a short pause on a 5xx', 1260),
};

/** The one title of each error response on /docs (Redoc shows the status beside it). */
const ERROR_TITLES: Readonly<Record<number, string>> = {
  400: 'The request must be changed',
  401: 'No valid API key',
  403: "The key's plan does not allow it",
  404: 'Not found',
  405: 'The path does not take this method',
  409: 'It is in use: change what uses it first',
  410: 'The cursor is older than the events kept',
  429: "The key's rate limit is used up",
  500: 'A defect on the service side; retrying is worthwhile',
  503: 'The service could not answer; retrying is worthwhile',
};

/**
 * The document says OpenAPI 3.0, whose schemas write an exclusive bound as `minimum` plus
 * `exclusiveMinimum: true`; zod's converter writes the 3.1 form (`exclusiveMinimum: 0`).
 */
function toOpenApi30Bounds(schema: Json): void {
  for (const [bound, exclusive] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    if (typeof schema[exclusive] === 'number') {
      schema[bound] = schema[exclusive];
      schema[exclusive] = true;
    }
  }
}

/** The pattern every timestamp of the contract carries: such a string is a `date-time`. */
const TIMESTAMP_PATTERN = String((generateSchema(timestampSchema, true) as Json).pattern);

/** The codes that some operations answer and others never do (a missing domain, an alert's). */
const OWN_CODES: ReadonlySet<ErrorCode> = new Set(Object.values(OPENAPI_OPERATIONS).flatMap((docs) => docs.errors ?? []));

/**
 * The error codes of an operation: every code of the one code-to-status map that no operation
 * claims as its own (authentication, rate limits, parameters, outages), and its own ones.
 */
function operationCodes(docs: OperationDocs): ErrorCode[] {
  const own = new Set(docs.errors ?? []);
  return ERROR_CODES.filter((code) => own.has(code) || !OWN_CODES.has(code));
}

/** The named schemas, each with its schema's own components replaced by references. */
function componentSchemas(): { schemas: Record<string, Json>; named: Map<string, string> } {
  const entries: [string, ComponentEntry][] = Object.entries(OPENAPI_COMPONENTS);
  const generated = entries.map(([name, entry]) => [name, entry, generateSchema(entry.schema, true) as Json] as const);
  const named = new Map(generated.map(([name, , schema]) => [JSON.stringify(schema), name]));
  if (named.size !== generated.length) throw new Error('two OpenAPI components have the same schema');
  const schemas: Record<string, Json> = {};
  for (const [name, entry, schema] of generated) {
    const component = referToComponents(schema, named, true) as Json;
    const properties = (component.properties ?? {}) as Record<string, Json>;
    for (const [property, format] of Object.entries(entry.formats ?? {})) {
      const target = properties[property];
      if (target === undefined) throw new Error(`component ${name} has no property ${property}`);
      target.format = format;
    }
    for (const [property, description] of Object.entries(entry.descriptions ?? {})) {
      const target = properties[property];
      if (target === undefined) throw new Error(`component ${name} has no property ${property}`);
      if (target.description !== undefined) throw new Error(`${name}.${property} is described by the contract already`);
      target.description = description;
    }
    schemas[name] = { ...component, description: entry.description, example: entry.example };
  }
  return { schemas, named };
}

/** `text` as one single-quoted shell word. */
const shellQuoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The curl call of an operation, with the server's address and the examples' values. */
function curlSample(serverUrl: string, method: string, path: string, docs: OperationDocs): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(docs.parameterExamples?.[name] ?? PATH_PARAMETER_EXAMPLES[name] ?? name)));
  const search = docs.sampleQuery === undefined ? '' : `?${new URLSearchParams(docs.sampleQuery).toString()}`;
  const lines = [method === 'get' ? 'curl --compressed' : `curl --compressed -X ${method.toUpperCase()}`, '-H "Authorization: Bearer $DOMAIN_INDEX_API_KEY"'];
  if (docs.sampleBody !== undefined) lines.push(`-H 'Content-Type: application/json'`, `-d ${shellQuoted(JSON.stringify(docs.sampleBody))}`);
  lines.push(`"${serverUrl}${filled}${search}"`);
  return `${lines.join(' \\\n  ')}\n`;
}

/** The example of the named component a schema refers to; `what` names the schema in the error when it is not one. */
function componentExample(schema: unknown, schemas: Readonly<Record<string, Json>>, what: string): unknown {
  const ref = (schema as Json).$ref;
  if (typeof ref !== 'string') throw new Error(`${what} is not a named component: add it to openapi-components.ts`);
  return schemas[ref.slice(ref.lastIndexOf('/') + 1)]?.example;
}

/**
 * An operation's request body: a JSON body by its named schema, required, with the sample's
 * body as its example; none at all where the contract takes only an empty object (the POSTs
 * that are actions, and DELETE), which the API accepts as no body.
 */
function describeRequestBody(operation: Json, docs: OperationDocs, schemas: Readonly<Record<string, Json>>, named: ReadonlyMap<string, string>): void {
  const body = operation.requestBody as Json | undefined;
  if (body === undefined) return;
  const id = String(operation.operationId);
  const schema = referToComponents((body.content as Record<string, Json>)['application/json']!.schema, named) as Json;
  const properties = schema.properties as Json | undefined;
  if (schema.$ref === undefined && properties !== undefined && Object.keys(properties).length === 0) {
    if (docs.sampleBody !== undefined) throw new Error(`${id} takes no body, yet its docs have a sampleBody`);
    delete operation.requestBody;
    return;
  }
  componentExample(schema, schemas, `the body of ${id}`);
  if (docs.sampleBody === undefined) throw new Error(`no sampleBody for the body of ${id}: add it in openapi-operations.ts`);
  operation.requestBody = {
    required: true,
    description: `JSON (\`Content-Type: application/json\`), at most ${ALERT_LIMITS.bodyMaxBytes / 1024} KB`,
    content: { 'application/json': { schema, example: docs.sampleBody } },
  };
}

/** Options of the document. */
export interface OpenApiOptions {
  /** Where the API is reached, without `/api/v1`: the document's server and its code samples' address. */
  serverUrl?: string | undefined;
}

/**
 * The OpenAPI 3 document of the API, generated from the contract so it cannot drift from the
 * code, then completed with what the contract's schemas do not say: named component schemas
 * (request bodies included), formats, examples, the error codes each operation can answer under
 * each status, the rate-limit and request-id headers, Retry-After, the bearer scheme, tags and
 * code samples.
 */
export function openApiDocument(options: OpenApiOptions = {}): Json {
  const serverUrl = (options.serverUrl ?? DEFAULT_SERVER_URL).replace(/\/+$/, '');
  const generated = generateOpenApi(
    contract,
    { info: { title: 'Domain Index Search API', version: API_VERSION } },
    { setOperationId: true },
  ) as unknown as Json;
  const { schemas, named } = componentSchemas();
  const paths = generated.paths as Record<string, Record<string, Json>>;
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const id = operation.operationId as keyof typeof OPENAPI_OPERATIONS;
      const docs = OPENAPI_OPERATIONS[id];
      operation.tags = [docs.tag];
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        const name = parameter.name as string;
        parameter.example =
          docs.parameterExamples?.[name] ??
          (parameter.in === 'path' ? PATH_PARAMETER_EXAMPLES[name] : SEARCH_PARAMETER_EXAMPLES[name as keyof typeof SEARCH_PARAMETER_EXAMPLES]);
        if (parameter.example === undefined) throw new Error(`no example for the parameter ${name} of ${id}: add it to its parameterExamples in openapi-operations.ts`);
      }
      describeRequestBody(operation, docs, schemas, named);
      const codes = operationCodes(docs);
      // the contract lists every error status for every route; the document only those it can answer
      const responses = Object.fromEntries(
        Object.entries(operation.responses as Record<string, Json>).filter(([status]) => Number(status) < 400 || codes.some((code) => ERROR_STATUS[code] === Number(status))),
      );
      operation.responses = responses;
      for (const [statusText, response] of Object.entries(responses)) {
        const status = Number(statusText);
        const statusCodes = status < 400 ? undefined : codes.filter((code) => ERROR_STATUS[code] === status);
        response.headers = { ...REQUEST_ID, ...rateLimitHeadersFor(statusCodes), ...(status === 429 || status >= 500 ? RETRY_AFTER : {}), ...(docs.tag === 'Alerts' ? NO_STORE : {}) };
        if (statusCodes === undefined && docs.okMedia !== undefined) {
          // a streamed body (an export): its media types and examples, not a JSON schema
          response.description = docs.ok;
          response.headers = { ...(response.headers as Json), ...Object.fromEntries(Object.entries(docs.okHeaders ?? {}).map(([name, value]) => [name, header(value.description, value.example)])) };
          response.content = Object.fromEntries(
            Object.entries(docs.okMedia).map(([type, media]) => [type, { schema: { type: 'string', description: media.description }, example: media.example }]),
          );
          continue;
        }
        const media = (response.content as Record<string, Json>)['application/json']!;
        media.schema = referToComponents(media.schema, named);
        if (statusCodes === undefined) {
          response.description = docs.ok;
          media.example = componentExample(media.schema, schemas, `the ${status} schema of ${id}`);
        } else {
          response.description = `${ERROR_TITLES[status] ?? 'Error'}: ${statusCodes.map((code) => `\`${code}\``).join(', ')}`;
          media.examples = Object.fromEntries(
            statusCodes.map((code) => [code, { summary: code, value: { error: docs.errorExamples?.[code] ?? ERROR_EXAMPLES[code] } }]),
          );
        }
      }
      operation['x-codeSamples'] = [
        { lang: 'Shell', label: 'curl', source: curlSample(serverUrl, method, path, docs) },
        { lang: 'TypeScript', label: 'TypeScript client', source: docs.client(serverUrl) },
      ];
    }
  }
  const document: Json = {
    openapi: generated.openapi,
    info: {
      title: 'Domain Index Search API',
      version: API_VERSION,
      description:
        'Search over domain names currently listed on five marketplaces, the change feed of what was listed, changed and removed, and alerts that deliver its matches by signed webhooks or email. The index is read-only: alerts are the one resource a customer writes (JSON bodies). Every request needs `Authorization: Bearer <API_KEY>`; a key in the URL is refused and revoked as leaked. Search pages are gzip- or brotli-compressed when the request asks (`Accept-Encoding`); lookups, stats and errors, about 1 KB, are sent as they are.',
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
    },
    servers: [{ url: serverUrl, description: 'This Domain Index server' }],
    tags: Object.entries(OPENAPI_TAGS).map(([name, description]) => ({ name, description })),
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key, e.g. dix_live_...' } },
    },
  };
  visitObjects(document, (object) => {
    toOpenApi30Bounds(object);
    nullableEnumAsOneOf(object);
    if (object.type === 'string' && object.pattern === TIMESTAMP_PATTERN) object.format = 'date-time';
  });
  const referenced = referencesIn(document);
  const unused = Object.keys(schemas).filter((name) => !referenced.has(`#/components/schemas/${name}`));
  if (unused.length > 0) throw new Error(`OpenAPI components not used anywhere (a schema differs from its use?): ${unused.join(', ')}`);
  return document;
}
