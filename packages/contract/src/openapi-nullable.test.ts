import Ajv from 'ajv-draft-04';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi';
import { OPENAPI_COMPONENTS } from './openapi-components';
import { visitObjects, type Json } from './openapi-refs';

const document = openApiDocument();
const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
/** The component schemas without their examples, which draft 4 would read `id`s in. */
const bare = JSON.parse(
  JSON.stringify(schemas, (key, value: unknown) => (key === 'example' ? undefined : value)),
) as Record<string, Json>;

/** The zod object inside optional, nullable and described wrappers, if there is one. */
function objectIn(schema: z.ZodTypeAny): z.AnyZodObject | undefined {
  let current = schema;
  for (;;) {
    if (current instanceof z.ZodObject) return current;
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable)
      current = current.unwrap() as z.ZodTypeAny;
    else if (current instanceof z.ZodEffects) current = current.innerType() as z.ZodTypeAny;
    else return undefined;
  }
}

/**
 * Every path to a field of `value` (an example of `schema`), each with whether the contract
 * lets it be null, down through the nested objects the example has.
 */
function fieldsOf(
  schema: z.ZodTypeAny,
  value: unknown,
  path: string[] = [],
): { path: string[]; nullable: boolean }[] {
  const object = objectIn(schema);
  if (object === undefined || typeof value !== 'object' || value === null || Array.isArray(value))
    return [];
  return Object.entries(object.shape as Record<string, z.ZodTypeAny>).flatMap(([key, field]) => {
    if (!(key in value)) return [];
    const inner = (value as Json)[key];
    return [
      { path: [...path, key], nullable: field.isNullable() },
      ...fieldsOf(field, inner, [...path, key]),
    ];
  });
}

/** `value` with the field at `path` replaced. */
function withField(value: unknown, path: string[], replacement: unknown): unknown {
  const [head, ...rest] = path;
  const object = value as Json;
  return {
    ...object,
    [head!]: rest.length === 0 ? replacement : withField(object[head!], rest, replacement),
  };
}

describe('nullable in the OpenAPI document', () => {
  it('writes nullable only beside a type of its own, never beside a reference, an allOf/anyOf/oneOf or an enum', () => {
    // OpenAPI 3.0.3: `nullable: true` adds null to the `type` beside it and to nothing else, so
    // beside an allOf of a reference (the Domain of a source.loaded event) it allows no null; an
    // enum must list null itself, which Prism then doubles and stops validating the response.
    const misread: string[] = [];
    const nullOnly: Json[] = [];
    visitObjects(document, (object) => {
      if ('nullable' in object) {
        const beside = ['$ref', 'allOf', 'anyOf', 'oneOf', 'enum', 'not'].filter(
          (key) => key in object,
        );
        if (object.nullable !== true || typeof object.type !== 'string' || beside.length > 0)
          misread.push(
            `${JSON.stringify(object).slice(0, 120)}${beside.length > 0 ? ` beside ${beside.join(', ')}` : ''}`,
          );
      }
      if (Array.isArray(object.enum) && object.enum.includes(null)) nullOnly.push(object);
      for (const key of ['allOf', 'anyOf']) {
        if (Array.isArray(object[key]) && (object[key] as Json[]).length === 1)
          misread.push(`an ${key} of one: ${JSON.stringify(object).slice(0, 120)}`);
      }
    });
    expect(misread).toEqual([]);
    // null itself only as a branch of its own, { enum: [null] }, which needs neither type nor nullable
    expect(nullOnly.length).toBeGreaterThan(0);
    for (const object of nullOnly) expect(object).toEqual({ enum: [null] });
    const alert = schemas.Alert!.properties as Record<string, Json>;
    expect(alert.email_digest).toEqual({
      oneOf: [{ type: 'string', enum: ['hourly', 'daily'] }, { enum: [null] }],
    });
    expect(alert.last_delivery).toMatchObject({ type: 'object', nullable: true });
  });

  it("accepts null in Ajv (JSON Schema draft 4, OpenAPI 3.0's, with its nullable keyword) exactly where the contract does", () => {
    // Ajv is what most JavaScript OpenAPI validators build on; strict, so a keyword it does not
    // know is an error rather than ignored
    const ajv = new Ajv({ strict: true, allErrors: true, validateFormats: false });
    ajv.addVocabulary(['components']);
    let checked = 0;
    for (const [name, entry] of Object.entries(OPENAPI_COMPONENTS)) {
      const validate = ajv.compile({ ...bare[name], components: { schemas: bare } });
      const accepts = (value: unknown) =>
        validate(value) ? 'accepts' : `refuses: ${ajv.errorsText(validate.errors)}`;
      expect(accepts(entry.example), name).toBe('accepts');
      for (const { path, nullable } of fieldsOf(entry.schema, entry.example)) {
        const nulled = withField(entry.example, path, null);
        expect(entry.schema.safeParse(nulled).success, `${name}.${path.join('.')} in zod`).toBe(
          nullable,
        );
        expect(
          accepts(nulled).startsWith(nullable ? 'accepts' : 'refuses'),
          `${name}.${path.join('.')}: ${accepts(nulled)}`,
        ).toBe(true);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(100);
    // the named and enum cases this is about, and that they still refuse what is not null
    const event = ajv.compile({ ...bare.Event, components: { schemas: bare } });
    const loaded = {
      ...OPENAPI_COMPONENTS.Event.example,
      type: 'source.loaded',
      data: { object: null, previous_attributes: null, listings_loaded: 5 },
    };
    expect(event(loaded)).toBe(true);
    expect(event(withField(loaded, ['data', 'object'], { domain_name: 'x.com' }))).toBe(false);
    const alert = ajv.compile({ ...bare.Alert, components: { schemas: bare } });
    expect(alert({ ...OPENAPI_COMPONENTS.Alert.example, email_digest: null })).toBe(true);
    expect(alert({ ...OPENAPI_COMPONENTS.Alert.example, email_digest: 'weekly' })).toBe(false);
  });
});
