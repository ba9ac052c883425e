import { generateOpenApi } from '@ts-rest/open-api';
import { contract } from './contract';
import { ERROR_STATUS, type ErrorCode } from './errors';
import { API_VERSION } from './texts';

type Json = Record<string, unknown>;

const header = (description: string, type: 'integer' | 'string' = 'integer'): Json => ({ description, schema: { type } });

/** Headers of every response once the rate-limit step has run (decisions.md). */
const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': header("Requests allowed per window on the key's plan"),
  'X-RateLimit-Window': header('The window length in seconds (3600)'),
  'X-RateLimit-Remaining': header('Requests left in the current window, when the live usage can be reported'),
  'X-RateLimit-Reset': header('End of the current window, unix seconds, when the live usage can be reported'),
  'RateLimit-Policy': header('IETF draft field: "hourly";q=<limit>;w=<window>', 'string'),
  RateLimit: header('IETF draft field: "hourly";r=<remaining>;t=<seconds to reset>', 'string'),
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

const REQUEST_ID: Json = { 'X-Request-Id': header('Echoes a well-formed incoming X-Request-Id, else a new one', 'string') };
const RETRY_AFTER: Json = { 'Retry-After': header('Seconds to wait before retrying: the real reset of the window on a 429, a short pause on a 5xx') };

/**
 * The document says OpenAPI 3.0, whose schemas write an exclusive bound as `minimum` plus
 * `exclusiveMinimum: true`; zod's converter writes the 3.1 form (`exclusiveMinimum: 0`).
 */
function toOpenApi30Bounds(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) toOpenApi30Bounds(item);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const schema = value as Json;
  for (const [bound, exclusive] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    if (typeof schema[exclusive] === 'number') {
      schema[bound] = schema[exclusive];
      schema[exclusive] = true;
    }
  }
  for (const child of Object.values(schema)) toOpenApi30Bounds(child);
}

/** The codes an error status can carry, from the one code-to-status map. */
const codesOf = (status: number) => (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => ERROR_STATUS[code] === status);

/**
 * The OpenAPI 3 document of the API, generated from the contract so it cannot drift from the
 * code, then completed with what the contract's schemas do not say: the error codes each
 * status can carry, the rate-limit and request-id headers, Retry-After, and the bearer scheme.
 */
export function openApiDocument(): Json {
  const document = generateOpenApi(
    contract,
    {
      info: {
        title: 'Domain Index Search API',
        version: API_VERSION,
        description:
          'Read-only search over domain names currently listed on five marketplaces. Every request needs `Authorization: Bearer <API_KEY>`; a key in the URL is refused and revoked as leaked. Search pages are gzip- or brotli-compressed when the request asks (`Accept-Encoding`); lookups, stats and errors, about 1 KB, are sent as they are.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key, e.g. dix_live_...' } },
      },
      security: [{ bearer: [] }],
    },
    { setOperationId: true },
  ) as unknown as Json;
  for (const path of Object.values(document.paths as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(path)) {
      const responses = operation.responses as Record<string, Json>;
      for (const [statusText, response] of Object.entries(responses)) {
        const status = Number(statusText);
        const codes = status < 400 ? undefined : codesOf(status);
        response.headers = { ...REQUEST_ID, ...rateLimitHeadersFor(codes), ...(status === 429 || status >= 500 ? RETRY_AFTER : {}) };
        if (codes === undefined) continue;
        response.description = `${statusText}: ${codes.join(', ')}`;
        const schema = (((response.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema ?? {}) as Json;
        const code = ((schema.properties as Json | undefined)?.error as Json | undefined)?.properties as Json | undefined;
        if (code?.code !== undefined) code.code = { ...(code.code as Json), enum: codes };
      }
    }
  }
  toOpenApi30Bounds(document.paths);
  return document;
}
