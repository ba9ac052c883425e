/** A JSON object of the document. */
export type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Replaces every subschema of `node` that is exactly the schema of a named component with a
 * `$ref` to it, the largest match first (the walk goes top-down and does not look inside a
 * replaced schema). `named` maps a schema's JSON text to its component name; the generator
 * writes the same zod schema to the same JSON wherever it occurs, so equal text means the same
 * schema; a nullable use of a named schema becomes `oneOf` the reference or null
 * ({@link orNull}). `keepRoot` leaves `node` itself (a component's own definition) in place.
 */
export function referToComponents(
  node: unknown,
  named: ReadonlyMap<string, string>,
  keepRoot = false,
): unknown {
  if (Array.isArray(node)) return node.map((item) => referToComponents(item, named));
  if (!isObject(node)) return node;
  const name = keepRoot ? undefined : named.get(JSON.stringify(node));
  if (name !== undefined) return { $ref: `#/components/schemas/${name}` };
  if (!keepRoot && node.nullable === true) {
    // a named schema made nullable (and described) where it is used
    const { nullable: _nullable, description, ...rest } = node;
    const base = named.get(JSON.stringify(rest));
    if (base !== undefined) return orNull({ $ref: `#/components/schemas/${base}` }, description);
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, referToComponents(value, named)]),
  );
}

/**
 * `schema` or null, as OpenAPI 3.0 validators read it: `nullable: true` only widens the `type`
 * beside it (3.0.3), so beside an `allOf` of a reference it allows no null at all, and beside an
 * `enum` the enum must list null too, which Prism (whose converter appends a second null that
 * Ajv refuses to compile) then silently stops validating the whole response. `{ enum: [null] }`
 * needs neither `type` nor `nullable`: every validator tried takes it as "null, and only null".
 */
export function orNull(schema: Json, description?: unknown): Json {
  return { ...(description === undefined ? {} : { description }), oneOf: [schema, { enum: [null] }] };
}

/**
 * Rewrites in place a nullable schema with an `enum` (`type`, `enum`, `nullable`) as
 * {@link orNull} of the same schema without `nullable`; other schemas are left as they are.
 */
export function nullableEnumAsOneOf(schema: Json): void {
  if (schema.nullable !== true || !Array.isArray(schema.enum)) return;
  const { nullable: _nullable, description, ...rest } = schema;
  for (const key of Object.keys(schema)) Reflect.deleteProperty(schema, key);
  Object.assign(schema, orNull(rest, description));
}

/** Every `$ref` target in `node`, e.g. `#/components/schemas/Domain`. */
export function referencesIn(node: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) for (const item of node) referencesIn(item, into);
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') into.add(value);
      else referencesIn(value, into);
    }
  }
  return into;
}

/** Calls `visit` on every object in `node`, parents before children. */
export function visitObjects(node: unknown, visit: (object: Json) => void): void {
  if (Array.isArray(node)) for (const item of node) visitObjects(item, visit);
  else if (isObject(node)) {
    visit(node);
    for (const value of Object.values(node)) visitObjects(value, visit);
  }
}

/**
 * `node` with every `#/components/schemas/...` reference replaced by the schema it names, for
 * readers that want a schema whole (the API's compiled serializers).
 */
export function inlineReferences(
  node: unknown,
  schemas: Readonly<Record<string, unknown>>,
): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineReferences(item, schemas));
  if (!isObject(node)) return node;
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const name = ref.slice('#/components/schemas/'.length);
    if (!Object.hasOwn(schemas, name)) throw new Error(`no component schema ${name}`);
    return inlineReferences(schemas[name], schemas);
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, inlineReferences(value, schemas)]),
  );
}
