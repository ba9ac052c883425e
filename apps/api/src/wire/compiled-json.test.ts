import {
  DOMAIN_FIELDS,
  domainSchema,
  type ListEnvelope,
  type LookupEnvelope,
} from '@domain-index/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { META } from '../http/meta';
import { domainFromValues } from '@domain-index/listings/domain-values';
import { serializeDomain, serializeListEnvelope, serializeLookupEnvelope, serializerSchema } from './compiled-json';

/** Every kind of string the serializer has a path for: short, long, escapes, controls, lone surrogates. */
const anyString = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ maxLength: 30, unit: 'grapheme' }),
  fc.string({ maxLength: 30, unit: 'binary' }),
  // UTF-16 code units one by one: lone surrogates, controls, quotes and backslashes
  fc
    .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 50 })
    .map((units) => String.fromCharCode(...units)),
  fc.string({
    minLength: 42,
    maxLength: 300,
    unit: fc.constantFrom('a', '"', '\\', '\n', 'é', '\u2028', '😀', '/', '\u0000'),
  }),
  fc.constant('x'.repeat(6000)),
  fc.constant(`https://example.com/listing?q=${'ü'.repeat(5001)}`),
);

/** Every kind of number: integers and fractions at the extremes of a double, -0, the infinities, NaN. */
const anyNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    0,
    -0,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    1e21,
    1e-7,
    123456789.12,
    0.1 + 0.2,
    Infinity,
    -Infinity,
    NaN,
  ),
);

/** The JSON type of a field of the domain object, from the contract. */
function kindOf(field: (typeof DOMAIN_FIELDS)[number]): 'number' | 'boolean' | 'string' {
  let type: z.ZodTypeAny = domainSchema.shape[field];
  while (type instanceof z.ZodNullable || type instanceof z.ZodOptional)
    type = type.unwrap() as z.ZodTypeAny;
  return type instanceof z.ZodNumber
    ? 'number'
    : type instanceof z.ZodBoolean
      ? 'boolean'
      : 'string';
}
const VALUES: Record<ReturnType<typeof kindOf>, fc.Arbitrary<unknown>> = {
  number: anyNumber,
  boolean: fc.boolean(),
  string: anyString,
};

/**
 * A row as the page query returns it (35 values in wire order, each of its field's type or
 * null), made a domain object as the API does.
 */
const domainRow = fc
  .tuple(...DOMAIN_FIELDS.map((field) => fc.option(VALUES[kindOf(field)], { nil: null, freq: 4 })))
  .map((values) => domainFromValues(values));

const listEnvelope: fc.Arbitrary<ListEnvelope> = fc.record({
  object: fc.constant('list' as const),
  data: fc.array(domainRow, { maxLength: 60 }),
  pagination: fc.record({
    page_size: fc.integer({ min: 1, max: 200 }),
    page_index: fc.nat(),
    next_cursor: fc.option(fc.base64String(), { nil: null }),
    has_more: fc.boolean(),
  }),
  total: fc.record({
    value: fc.nat(),
    accuracy: fc.constantFrom('exact' as const, 'planned' as const),
  }),
  meta: fc.constant(META),
});

describe('compiled serializers', () => {
  it('write a search page byte for byte as JSON.stringify does', () => {
    fc.assert(
      fc.property(listEnvelope, (body) => {
        expect(serializeListEnvelope(body)).toBe(JSON.stringify(body));
      }),
      { numRuns: 400 },
    );
  });

  it('write a lookup byte for byte as JSON.stringify does', () => {
    fc.assert(
      fc.property(domainRow, (domain) => {
        const body = { object: 'domain', data: domain, meta: META } as LookupEnvelope;
        expect(serializeLookupEnvelope(body)).toBe(JSON.stringify(body));
      }),
      { numRuns: 2000 },
    );
  });

  it("write an export's line, one domain object, byte for byte as JSON.stringify does", () => {
    fc.assert(
      fc.property(domainRow, (domain) => {
        expect(serializeDomain(domain)).toBe(JSON.stringify(domain));
      }),
      { numRuns: 2000 },
    );
  });

  it('write a realistic row, every field set, as JSON.stringify does', () => {
    const row = domainFromValues([
      'xn--bcher-kva.co.uk',
      'co.uk',
      'auction',
      'godaddy',
      6,
      false,
      true,
      2,
      63.5,
      1234.56,
      10,
      99999999999999.98,
      17,
      '2026-11-30T18:00:00.000Z',
      'buy_now',
      'https://example.com/d/bücher?ref="a"&x=\\y',
      4,
      21,
      0.1,
      12.5,
      77,
      9007199254740991,
      33,
      34,
      0,
      50,
      123456,
      880,
      1,
      2,
      3,
      450.25,
      2019,
      '2026-11-24T10:00:00.000Z',
      '2026-11-24T10:00:00.123Z',
    ]);
    const body: ListEnvelope = {
      object: 'list',
      data: [row, row],
      pagination: { page_size: 50, page_index: 3, next_cursor: 'eyJ4Ijoxfq.abc', has_more: true },
      total: { value: 2, accuracy: 'exact' },
      meta: META,
    };
    expect(serializeListEnvelope(body)).toBe(JSON.stringify(body));
  });

  it('refuses a schema it cannot write exactly, rather than guessing', () => {
    expect(() => serializerSchema({ oneOf: [{ type: 'string' }] })).toThrow(/no serializer/);
  });
});
