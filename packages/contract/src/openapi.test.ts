import { execFileSync } from 'node:child_process';
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { contract } from './contract';
import { errorEnvelopeSchema, ERROR_CODES, ERROR_STATUS, type ErrorCode } from './errors';
import { OPENAPI_OPERATIONS } from './openapi-operations';
import { openApiDocument } from './openapi';
import { OPENAPI_COMPONENTS } from './openapi-components';
import { visitObjects, type Json } from './openapi-refs';

const document = openApiDocument({ serverUrl: 'https://api.domains.test/' });
const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
type OperationId = keyof typeof contract;
type Operation = Json & {
  operationId: OperationId;
  parameters?: Json[];
  requestBody?: Json;
  responses: Record<string, Json>;
};
/** Every operation of the document, in its order, with its path and method. */
const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
  ([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
);
const operation = (id: OperationId) => operations.find((entry) => entry.operation.operationId === id)!.operation;
const media = (response: Json) => (response.content as Record<string, Json>)['application/json']!;
/** The schemas of a route of the contract that these tests parse examples with. */
const route = (id: OperationId) =>
  contract[id] as { query?: z.ZodTypeAny; body?: z.ZodTypeAny; responses: Record<string, z.ZodTypeAny> };
/** The error codes an operation lists under a status, in order. */
const codesUnder = (id: OperationId, status: number): string[] => {
  const response = operation(id).responses[String(status)];
  return response === undefined ? [] : Object.keys(media(response).examples as Json);
};
/** The one success status of an operation. */
const successOf = (entry: Operation) => Object.keys(entry.responses).filter((status) => Number(status) < 400);

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
    // one success response each, 201 for a creation and 202 for what is queued
    const success = Object.fromEntries(
      operations.map(({ operation }) => {
        const [status] = successOf(operation);
        expect(successOf(operation), operation.operationId).toHaveLength(1);
        const content = operation.responses[status!]!.content as Record<string, Json>;
        // a streamed body is named by its media types, not a schema
        if (content['application/json'] === undefined) return [operation.operationId, `${status!} ${Object.keys(content).join(', ')}`];
        return [operation.operationId, `${status!} ${String((media(operation.responses[status!]!).schema as Json).$ref)}`];
      }),
    );
    const ref = '#/components/schemas/';
    expect(success).toEqual({
      searchDomains: `200 ${ref}ListEnvelope`,
      exportDomains: '200 text/csv, application/x-ndjson',
      getDomain: `200 ${ref}LookupEnvelope`,
      listEvents: `200 ${ref}EventListEnvelope`,
      createAlert: `201 ${ref}AlertWithSecret`,
      listAlerts: `200 ${ref}AlertList`,
      getAlert: `200 ${ref}Alert`,
      updateAlert: `200 ${ref}AlertWithSecret`,
      deleteAlert: `200 ${ref}DeletedAlert`,
      testAlert: `202 ${ref}QueuedDelivery`,
      listDeliveries: `200 ${ref}DeliveryList`,
      resendDelivery: `202 ${ref}QueuedDelivery`,
      rotateAlertSecret: `200 ${ref}AlertWithSecret`,
      getName: `200 ${ref}NameEnvelope`,
      createWatchlist: `201 ${ref}CreatedWatchlist`,
      listWatchlists: `200 ${ref}WatchlistList`,
      getWatchlist: `200 ${ref}Watchlist`,
      updateWatchlist: `200 ${ref}Watchlist`,
      deleteWatchlist: `200 ${ref}DeletedWatchlist`,
      addWatchedDomains: `200 ${ref}AddedDomains`,
      listWatchedDomains: `200 ${ref}WatchedDomainList`,
      removeWatchedDomain: `200 ${ref}RemovedDomain`,
      getStats: `200 ${ref}StatsEnvelope`,
    });
    // a JSON body by name where the contract takes one; none where it takes only an empty object
    const bodies = Object.fromEntries(
      operations
        .filter(({ operation }) => operation.requestBody !== undefined)
        .map(({ operation }) => [operation.operationId, { required: operation.requestBody!.required, schema: media(operation.requestBody!).schema }]),
    );
    expect(bodies).toEqual({
      createAlert: { required: true, schema: { $ref: `${ref}CreateAlert` } },
      updateAlert: { required: true, schema: { $ref: `${ref}UpdateAlert` } },
      createWatchlist: { required: true, schema: { $ref: `${ref}CreateWatchlist` } },
      updateWatchlist: { required: true, schema: { $ref: `${ref}UpdateWatchlist` } },
      addWatchedDomains: { required: true, schema: { $ref: `${ref}AddWatchedDomains` } },
    });
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
    expect(((schemas.EventListEnvelope!.properties as Json).data as Json).items).toEqual({ $ref: `${ref}Event` });
    // nullable where it is used: the reference or null (see 'writes every nullable ...' below)
    expect((((schemas.Event!.properties as Json).data as Json).properties as Json).object).toMatchObject({ oneOf: [{ $ref: `${ref}Domain` }, { enum: [null] }] });
    expect(((schemas.AlertList!.properties as Json).data as Json).items).toEqual({ $ref: `${ref}Alert` });
    expect(((schemas.DeliveryList!.properties as Json).data as Json).items).toEqual({ $ref: `${ref}DeliveryAttempt` });
    let inlineDomains = 0;
    visitObjects(
      {
        paths: document.paths,
        schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => name !== 'Domain')),
      },
      (object) => {
        // a partial listing (an event's previous_attributes) is not a copy of Domain, nor is an
        // object that names a domain without being a listing (a name's page, a watched name)
        if (object.type === 'object' && ['domain_name', 'tld', 'current_bid'].every((field) => ((object.required ?? []) as string[]).includes(field)))
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
    for (const name of ['Alert', 'AlertWithSecret', 'CreateAlert', 'UpdateAlert']) {
      expect((schemas[name]!.properties as Record<string, Json>).webhook_url!.format, name).toBe('uri');
    }
    const alert = schemas.Alert!.properties as Record<string, Json>;
    for (const field of ['created', 'updated']) expect(alert[field]!.format, field).toBe('date-time');
    expect((schemas.DeliveryAttempt!.properties as Record<string, Json>).at!.format).toBe('date-time');
  });

  it("describes every field of the request bodies", () => {
    for (const name of ['CreateAlert', 'UpdateAlert']) {
      for (const [field, property] of Object.entries(schemas[name]!.properties as Record<string, Json>)) {
        expect(typeof property.description, `${name}.${field}`).toBe('string');
      }
    }
  });

  it("has an example for every parameter, each a valid query of its operation on its own", () => {
    let checked = 0;
    for (const { operation } of operations) {
      for (const parameter of operation.parameters ?? []) {
        expect(
          parameter.example,
          `${operation.operationId} ${String(parameter.name)}`,
        ).toBeDefined();
        if (parameter.in !== 'query') continue;
        const parsed = route(operation.operationId).query!.safeParse({
          ...OPENAPI_OPERATIONS[operation.operationId].requiredQuery,
          [parameter.name as string]: String(parameter.example),
        });
        expect(parsed.success, `${operation.operationId}: ${String(parameter.name)}=${String(parameter.example)}`).toBe(true);
        checked += 1;
      }
    }
    // the change feed's and the delivery log's own parameters among them
    const examples = (id: OperationId): Record<string, unknown> =>
      Object.fromEntries((operation(id).parameters ?? []).map((parameter) => [String(parameter.name), parameter.example]));
    expect(examples('listEvents')).toMatchObject({ after: 'now', type: 'listing.added,listing.updated', limit: 100 });
    const deliveries = examples('listDeliveries');
    expect([deliveries.id, deliveries.limit]).toEqual(['alt_7Qw2mXc9Rk4TbN1y', 20]);
    // a cursor as the API makes them (base64url JSON of the attempt to read before), so it is accepted
    const cursor = JSON.parse(Buffer.from(String(deliveries.after), 'base64url').toString('utf8')) as { before?: unknown };
    expect(Number.isSafeInteger(cursor.before)).toBe(true);
    expect(examples('resendDelivery')).toEqual({ id: 'alt_7Qw2mXc9Rk4TbN1y', deliveryId: 'msg_Zr0sQmA1bC2dE3fG4hI5jK' });
    expect(checked).toBeGreaterThan(50);
  });

  it('has an example for every request body and response that the contract accepts, and one per error code under its status', () => {
    const seen = new Set<string>();
    for (const { operation } of operations) {
      const { body: bodySchema, responses } = route(operation.operationId);
      if (operation.requestBody !== undefined) {
        const example = media(operation.requestBody).example;
        expect(example, operation.operationId).toBeDefined();
        expect(() => bodySchema!.parse(example) as unknown, operation.operationId).not.toThrow();
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        const streamed = (response.content as Record<string, Json>)['application/json'] === undefined;
        if (Number(status) < 400 && streamed) {
          for (const [type, content] of Object.entries(response.content as Record<string, Json>)) expect(typeof content.example, `${operation.operationId} ${type}`).toBe('string');
          continue;
        }
        const body = media(response);
        if (Number(status) < 400) {
          expect(body.example, operation.operationId).toBeDefined();
          expect(() => responses[status]!.parse(body.example) as unknown, operation.operationId).not.toThrow();
          continue;
        }
        const examples = body.examples as Record<string, { value: unknown }>;
        // named by their codes, each of this status, in the order of the code-to-status map
        const codes = Object.keys(examples);
        expect(codes.length, `${operation.operationId} ${status}`).toBeGreaterThan(0);
        expect(codes, status).toEqual(ERROR_CODES.filter((code) => codes.includes(code) && ERROR_STATUS[code] === Number(status)));
        for (const [code, example] of Object.entries(examples)) {
          expect(errorEnvelopeSchema.parse(example.value).error.code).toBe(code);
          seen.add(code);
        }
      }
    }
    expect([...seen].sort()).toEqual([...ERROR_CODES].sort());
    for (const [name, entry] of Object.entries(OPENAPI_COMPONENTS)) {
      expect(() => entry.schema.parse(entry.example), name).not.toThrow();
      expect(schemas[name]!.example, name).toEqual(entry.example);
    }
  });

  it("lists under each operation the error codes it can answer: the general ones everywhere, the resource's own only where they apply", () => {
    const general = (status: number) => ERROR_CODES.filter((code) => ERROR_STATUS[code] === status && !['invalid_domain', 'domain_not_found', 'cursor_expired', 'alert_not_found', 'delivery_not_found', 'alert_limit_reached', 'watchlist_not_found', 'watch_limit_reached', 'watchlist_in_use', 'refresh_limit_reached', 'export_too_large'].includes(code));
    for (const { operation } of operations) {
      for (const status of [400, 401, 405, 429, 500, 503]) {
        const own =
          (operation.operationId === 'getDomain' || operation.operationId === 'getName') && status === 400
            ? ['invalid_domain']
            : operation.operationId === 'getName' && status === 429
              ? ['refresh_limit_reached']
              : [];
        const byTable = (codes: readonly ErrorCode[]) => [...codes].sort((a, b) => ERROR_CODES.indexOf(a) - ERROR_CODES.indexOf(b));
        expect(byTable(codesUnder(operation.operationId, status) as ErrorCode[]), `${operation.operationId} ${status}`).toEqual(byTable([...general(status), ...own] as ErrorCode[]));
      }
    }
    expect(general(404)).toEqual(['not_found']);
    const notFound = Object.fromEntries(operations.map(({ operation }) => [operation.operationId, codesUnder(operation.operationId, 404)]));
    const onAlert = ['alert_not_found', 'not_found'];
    const onWatchlist = ['watchlist_not_found', 'not_found'];
    expect(notFound).toEqual({
      searchDomains: ['not_found'],
      exportDomains: ['not_found'],
      getDomain: ['domain_not_found', 'not_found'],
      listEvents: onWatchlist,
      createAlert: ['not_found'],
      listAlerts: ['not_found'],
      getAlert: onAlert,
      updateAlert: onAlert,
      deleteAlert: onAlert,
      testAlert: onAlert,
      listDeliveries: onAlert,
      resendDelivery: ['alert_not_found', 'delivery_not_found', 'not_found'],
      rotateAlertSecret: onAlert,
      getName: ['not_found'],
      createWatchlist: ['not_found'],
      listWatchlists: ['not_found'],
      getWatchlist: onWatchlist,
      updateWatchlist: onWatchlist,
      deleteWatchlist: onWatchlist,
      addWatchedDomains: onWatchlist,
      listWatchedDomains: onWatchlist,
      removeWatchedDomain: ['domain_not_found', 'watchlist_not_found', 'not_found'],
      getStats: ['not_found'],
    });
    // a status none of an operation's codes has is not listed at all
    const withStatus = (status: number) => operations.filter(({ operation }) => operation.responses[String(status)] !== undefined).map(({ operation }) => operation.operationId);
    expect(withStatus(403)).toEqual(['exportDomains', 'createAlert', 'createWatchlist', 'addWatchedDomains']);
    expect(codesUnder('createAlert', 403)).toEqual(['alert_limit_reached']);
    expect(codesUnder('exportDomains', 403)).toEqual(['export_too_large']);
    expect(codesUnder('addWatchedDomains', 403)).toEqual(['watch_limit_reached']);
    expect(withStatus(409)).toEqual(['deleteWatchlist']);
    expect(codesUnder('deleteWatchlist', 409)).toEqual(['watchlist_in_use']);
    expect(withStatus(410)).toEqual(['listEvents']);
    expect(codesUnder('listEvents', 410)).toEqual(['cursor_expired']);
    // an operation's own wording of a general code
    const example = (id: OperationId, status: number, code: ErrorCode) => ((media(operation(id).responses[String(status)]!).examples as Json)[code] as { value: Json }).value;
    expect(example('createAlert', 400, 'invalid_parameter')).toMatchObject({ error: { param: 'webhook_url' } });
    expect(example('listDeliveries', 400, 'invalid_parameter')).toMatchObject({ error: { param: 'after' } });
    expect(example('searchDomains', 400, 'invalid_parameter')).toMatchObject({ error: { param: 'max_price' } });
  });

  it('documents Cache-Control: no-store on every answer of every alerts operation, and on no other', () => {
    for (const { path, operation: op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        const headers = response.headers as Record<string, Json>;
        expect(headers['Cache-Control']?.example, `${op.operationId} ${status}`).toBe(path.startsWith('/api/v1/alerts') ? 'no-store' : undefined);
      }
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
      'exportDomains',
      'getDomain',
      'listEvents',
      'createAlert',
      'listAlerts',
      'getAlert',
      'updateAlert',
      'deleteAlert',
      'testAlert',
      'listDeliveries',
      'resendDelivery',
      'rotateAlertSecret',
      'getName',
      'createWatchlist',
      'listWatchlists',
      'getWatchlist',
      'updateWatchlist',
      'deleteWatchlist',
      'addWatchedDomains',
      'listWatchedDomains',
      'removeWatchedDomain',
      'getStats',
    ]);
    expect(operations.map(({ method }) => method)).toEqual(['get', 'get', 'get', 'get', 'post', 'get', 'get', 'patch', 'delete', 'post', 'get', 'post', 'post', 'get', 'post', 'get', 'get', 'patch', 'delete', 'post', 'get', 'delete', 'get']);
    for (const { operation } of operations) {
      expect(operation.tags).toHaveLength(1);
      expect(tags).toContain((operation.tags as string[])[0]);
    }
    // every tag has its operations
    expect(tags).toEqual(['Domains', 'Exports', 'Events', 'Alerts', 'Names', 'Watchlists', 'Statistics']);
    expect(new Set(operations.map(({ operation }) => (operation.tags as string[])[0]))).toEqual(new Set(tags));
    expect(operation('listEvents').tags).toEqual(['Events']);
    expect(operation('rotateAlertSecret').tags).toEqual(['Alerts']);
  });

  it('has a curl and a TypeScript client sample for every operation, at the server address', () => {
    for (const { path, method, operation } of operations) {
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
      const own = OPENAPI_OPERATIONS[operation.operationId].parameterExamples ?? {};
      const filled = path
        .replace('{domain}', String(own.domain ?? 'cloudkitchen.com'))
        .replace('{id}', String(own.id ?? 'alt_7Qw2mXc9Rk4TbN1y'))
        .replace('{deliveryId}', 'msg_Zr0sQmA1bC2dE3fG4hI5jK');
      expect(curl.source).toContain(`"https://api.domains.test${filled}`);
      expect(curl.source).toContain('Authorization: Bearer $DOMAIN_INDEX_API_KEY');
      // the words curl is run with, as the shell splits the sample (a function stands in for curl)
      const words = execFileSync('bash', ['-c', `curl() { printf '%s\\0' "$@"; }\n${curl.source}`], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', DOMAIN_INDEX_API_KEY: 'dix_test_key' },
      }).split('\0').slice(0, -1);
      expect(words.slice(0, 1), path).toEqual(['--compressed']);
      expect(words.at(-1), path).toMatch(/^https:\/\/api\.domains\.test\/api\/v1\//);
      expect(words, path).toContain('Authorization: Bearer dix_test_key');
      // GET by default; any other method named; a JSON body where the operation takes one
      expect(words.includes('-X') ? words[words.indexOf('-X') + 1] : 'GET', operation.operationId).toBe(method.toUpperCase());
      if (operation.requestBody === undefined) {
        expect(words, operation.operationId).not.toContain('-d');
      } else {
        expect(words, operation.operationId).toContain('Content-Type: application/json');
        const body = JSON.parse(words[words.indexOf('-d') + 1]!) as unknown;
        expect(body, operation.operationId).toEqual(media(operation.requestBody).example);
        expect(() => route(operation.operationId).body!.parse(body) as unknown).not.toThrow();
        // the TypeScript sample sends the same values
        for (const value of Object.values(body as Json)) for (const part of [value].flat()) expect(client.source, operation.operationId).toContain(String(part));
      }
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
        expect(String(response.description).length, `${operation.operationId} ${status}`).toBeGreaterThan(5);
      }
    }
  });
});
