import { contract, type Domain, type ListEnvelope, type LookupEnvelope } from '@domain-index/contract';
import { inlineReferences, openApiDocument } from '@domain-index/contract/openapi';
import fastJson from 'fast-json-stringify';

type JsonSchema = Record<string, unknown>;

/** A function that writes a body as JSON text. */
export type Serialize<T> = (body: T) => string;

/**
 * The schema fast-json-stringify compiles from a response schema of the OpenAPI document: its
 * shape (objects, their properties in order, arrays) and nothing that would make the output
 * differ from `JSON.stringify`:
 * - every leaf is `nullable`, so a null is written `null` whatever the contract says (it would
 *   otherwise write a null number as 0 and a null string as "");
 * - `integer` becomes `number`, which is written as JavaScript writes it (an integer type is
 *   truncated, so a fraction would lose its decimals);
 * - formats, patterns, enums and bounds are dropped: validation is the contract's business, and
 *   a `date-time` format would be reformatted.
 */
export function serializerSchema(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (type === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const additional = schema.additionalProperties;
    return {
      type: 'object',
      nullable: true,
      properties: Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, serializerSchema(property)]),
      ),
      // a record (by_source): its values, under any name
      ...(typeof additional === 'object' && additional !== null
        ? { additionalProperties: serializerSchema(additional as JsonSchema) }
        : {}),
    };
  }
  if (type === 'array')
    return {
      type: 'array',
      nullable: true,
      items: serializerSchema((schema.items ?? {}) as JsonSchema),
    };
  if (type === 'integer' || type === 'number') return { type: 'number', nullable: true };
  if (type === 'string' || type === 'boolean') return { type, nullable: true };
  throw new Error(`no serializer for a schema of type ${JSON.stringify(type)}`);
}

/** The parts of the OpenAPI document read here. */
interface OpenApiDocument {
  paths: Record<
    string,
    { get: { responses: Record<string, { content: Record<string, { schema: JsonSchema }> }> } }
  >;
  components: { schemas: Record<string, JsonSchema> };
}

/** The JSON schema of a route's 200 response, from the OpenAPI document the contract yields, whole (no `$ref`). */
function responseSchema(document: OpenApiDocument, path: string): JsonSchema {
  const schema = document.paths[path]?.get.responses['200']?.content['application/json']?.schema;
  if (schema === undefined) throw new Error(`the OpenAPI document has no 200 response for ${path}`);
  return inlineReferences(schema, document.components.schemas) as JsonSchema;
}

/**
 * A serializer compiled from a response schema: the code of one object literal's fields written
 * in a fixed order, instead of `JSON.stringify` discovering each object's keys and each value's
 * type at run time. Its output is byte for byte that of `JSON.stringify` for every body of the
 * schema's shape (compiled-json.test.ts). A value it cannot write (a NaN, which `JSON.stringify`
 * writes as null) falls back to `JSON.stringify`, so the answer is never an error.
 */
function compile<T>(schema: JsonSchema): Serialize<T> {
  const compiled = fastJson(serializerSchema(schema)) as (body: T) => string;
  return (body) => {
    try {
      return compiled(body);
    } catch {
      return JSON.stringify(body);
    }
  };
}

/** OpenAPI writes path parameters in braces; the contract's paths use Express's `:name`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** Generated once for every serializer. */
const DOCUMENT = openApiDocument() as unknown as OpenApiDocument;

/** A search page (`GET /api/v1/domains`, 200). */
export const serializeListEnvelope: Serialize<ListEnvelope> = compile(
  responseSchema(DOCUMENT, openApiPath(contract.searchDomains.path)),
);
/** A lookup (`GET /api/v1/domains/{domain}`, 200). */
export const serializeLookupEnvelope: Serialize<LookupEnvelope> = compile(
  responseSchema(DOCUMENT, openApiPath(contract.getDomain.path)),
);
/**
 * One domain object (a lookup's `data`): an export's JSON lines, a line each, the same bytes as
 * the search writes for it.
 */
export const serializeDomain: Serialize<Domain> = compile(
  (responseSchema(DOCUMENT, openApiPath(contract.getDomain.path)).properties as Record<string, JsonSchema>).data!,
);
