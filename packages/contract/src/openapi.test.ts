import { describe, expect, it } from 'vitest';
import { contract } from './contract';
import { errorEnvelopeSchema, ERROR_STATUS, type ErrorCode } from './errors';
import { openApiDocument } from './openapi';
import { OPENAPI_COMPONENTS } from './openapi-components';
import { visitObjects, type Json } from './openapi-refs';
import { searchQuerySchema } from './search-params';

const document = openApiDocument({ serverUrl: 'https://api.domains.test/' });
const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
type Operation = Json & {
  operationId: keyof typeof contract;
  parameters: Json[];
  responses: Record<string, Json>;
};
const operations = Object.entries(document.paths as Record<string, { get: Operation }>).map(
  ([path, methods]) => ({ path, operation: methods.get }),
);
const media = (response: Json) => (response.content as Record<string, Json>)['application/json']!;

describe('the OpenAPI document', () => {
  it('names Domain, each envelope, Error and Stats, and every response refers to its schema by name', () => {
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining([
        'Domain',
        'ListEnvelope',
        'LookupEnvelope',
        'StatsEnvelope',
        'ErrorEnvelope',
        'Error',
        'Stats',
      ]),
    );
    const okSchemas = operations.map(({ operation }) => media(operation.responses['200']!).schema);
    expect(okSchemas).toEqual([
      { $ref: '#/components/schemas/ListEnvelope' },
      { $ref: '#/components/schemas/LookupEnvelope' },
      { $ref: '#/components/schemas/StatsEnvelope' },
    ]);
    for (const { operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) >= 400)
          expect(media(response).schema, status).toEqual({
            $ref: '#/components/schemas/ErrorEnvelope',
          });
      }
    }
    // the envelopes refer to Domain, Stats and Error rather than repeating them
    expect(((schemas.ListEnvelope!.properties as Json).data as Json).items).toEqual({
      $ref: '#/components/schemas/Domain',
    });
    expect((schemas.LookupEnvelope!.properties as Json).data).toEqual({
      $ref: '#/components/schemas/Domain',
    });
    expect((schemas.StatsEnvelope!.properties as Json).data).toEqual({
      $ref: '#/components/schemas/Stats',
    });
    expect((schemas.ErrorEnvelope!.properties as Json).error).toEqual({
      $ref: '#/components/schemas/Error',
    });
    let inlineDomains = 0;
    visitObjects(
      {
        paths: document.paths,
        schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => name !== 'Domain')),
      },
      (object) => {
        if (object.type === 'object' && Object.hasOwn(object.properties ?? {}, 'domain_name'))
          inlineDomains += 1;
      },
    );
    expect(inlineDomains).toBe(0);
  });

  it('gives timestamps format date-time and the marketplace link format uri', () => {
    const domain = schemas.Domain!.properties as Record<string, Json>;
    for (const field of ['auction_end_time', 'last_checked_at', 'updated_at'])
      expect(domain[field]!.format, field).toBe('date-time');
    expect((schemas.Stats!.properties as Record<string, Json>).as_of!.format).toBe('date-time');
    expect(domain.marketplace_url!.format).toBe('uri');
  });

  it('has an example for every parameter, each a valid query on its own', () => {
    for (const { operation } of operations) {
      for (const parameter of operation.parameters) {
        expect(
          parameter.example,
          `${operation.operationId} ${String(parameter.name)}`,
        ).toBeDefined();
        if (parameter.in !== 'query') continue;
        const parsed = searchQuerySchema.safeParse({
          [parameter.name as string]: String(parameter.example),
        });
        expect(parsed.success, `${String(parameter.name)}=${String(parameter.example)}`).toBe(true);
      }
    }
  });

  it('has an example for every response that the contract accepts, and one per error code under its status', () => {
    for (const { operation } of operations) {
      const route = contract[operation.operationId];
      for (const [status, response] of Object.entries(operation.responses)) {
        const body = media(response);
        if (Number(status) < 400) {
          expect(body.example, operation.operationId).toBeDefined();
          const schema = (route.responses as Record<string, { parse(value: unknown): unknown }>)[status]!;
          expect(() => schema.parse(body.example), operation.operationId).not.toThrow();
          continue;
        }
        const examples = body.examples as Record<string, { value: unknown }>;
        const codes = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter(
          (code) => ERROR_STATUS[code] === Number(status),
        );
        expect(Object.keys(examples), status).toEqual(codes);
        for (const [code, example] of Object.entries(examples)) {
          expect(errorEnvelopeSchema.parse(example.value).error.code).toBe(code);
        }
      }
    }
    for (const [name, entry] of Object.entries(OPENAPI_COMPONENTS)) {
      expect(() => entry.schema.parse(entry.example), name).not.toThrow();
      expect(schemas[name]!.example, name).toEqual(entry.example);
    }
  });

  it('has license, servers, operation ids and defined tags', () => {
    expect((document.info as Json).license).toMatchObject({ name: 'MIT' });
    expect(document.servers).toMatchObject([{ url: 'https://api.domains.test' }]);
    expect(document.servers).toHaveLength(1);
    expect((openApiDocument().servers as Json[])[0]!.url).toBe('http://127.0.0.1:3000');
    const tags = (document.tags as Json[]).map((tag) => tag.name);
    expect(operations.map(({ operation }) => operation.operationId)).toEqual([
      'searchDomains',
      'getDomain',
      'getStats',
    ]);
    for (const { operation } of operations) {
      expect(operation.tags).toHaveLength(1);
      expect(tags).toContain((operation.tags as string[])[0]);
    }
  });

  it('has a curl and a TypeScript client sample for every operation, at the server address', () => {
    for (const { path, operation } of operations) {
      const samples = operation['x-codeSamples'] as {
        lang: string;
        label: string;
        source: string;
      }[];
      expect(
        samples.map((sample) => sample.label),
        path,
      ).toEqual(['curl', 'TypeScript client']);
      const [curl, client] = [samples[0]!, samples[1]!];
      expect(curl.source).toContain(
        `"https://api.domains.test${path.replace('{domain}', 'cloudkitchen.com')}`,
      );
      expect(curl.source).toContain('Authorization: Bearer $DOMAIN_INDEX_API_KEY');
      expect(client.source).toContain("from '@domain-index/client'");
      expect(client.source).toContain("baseUrl: 'https://api.domains.test'");
    }
  });

  it('writes no bare <word> in a description (Redoc renders Markdown, where it is an HTML tag) and no status as a title', () => {
    const bare: string[] = [];
    visitObjects(document, (object) => {
      if (typeof object.description !== 'string') return;
      // outside code spans
      if (/<\w/.test(object.description.replace(/`[^`]*`/g, ''))) bare.push(object.description);
    });
    expect(bare).toEqual([]);
    for (const { operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(String(response.description), status).not.toMatch(/^\d{3}\b/);
      }
    }
  });
});
