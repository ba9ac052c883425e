import { z } from 'zod';

/**
 * The value a contract field accepts from a caller, without the wire handling around it: the
 * contract's fields read query text (`z.preprocess`) and normalise it (`transform`), which a
 * tool's JSON arguments need neither of. What is left keeps the field's type, bounds and
 * messages, so the tool's JSON Schema states exactly what the API takes.
 */
function callerValue(schema: z.ZodTypeAny): z.ZodTypeAny {
  if (schema instanceof z.ZodEffects) return callerValue(schema.innerType() as z.ZodTypeAny);
  if (schema instanceof z.ZodOptional) return callerValue(schema.unwrap() as z.ZodTypeAny);
  if (schema instanceof z.ZodUnion) {
    const options = (schema.options as z.ZodTypeAny[]).map(callerValue);
    return z.union(options as [z.ZodTypeAny, z.ZodTypeAny, ...z.ZodTypeAny[]]);
  }
  return schema;
}

/** The input of a tool, field by field, as the caller passes it. */
export type ToolInput<Shape extends z.ZodRawShape> = z.ZodObject<
  { [K in keyof Shape]: z.ZodType<z.input<Shape[K]>, z.ZodTypeDef, z.input<Shape[K]>> },
  'strict'
>;

/**
 * A tool's input derived from contract fields: each field as its caller's value, optional
 * unless `required` names it, with the contract's description. The SDK checks arguments against
 * this shape before the handler sees them, in its own words; `catch` hands every value through
 * unchanged instead, so that a bad value is answered by the contract's own check in the API's
 * words (`invalid_parameter`, the parameter, the fix), as a REST caller would read it. A name
 * that is not a parameter, and a required one missing or of the wrong type, the SDK refuses,
 * naming it.
 */
export function toolInput<Shape extends z.ZodRawShape>(fields: Shape, required: readonly (keyof Shape)[] = []): ToolInput<Shape> {
  const shape: Record<string, z.ZodTypeAny> = {};
  for (const [name, field] of Object.entries(fields)) {
    const value = callerValue(field);
    // a caught field counts as optional in the JSON Schema: a required one is the SDK's to check
    const passed = required.includes(name) ? value : value.optional().catch((ctx: { input: unknown }) => ctx.input);
    shape[name] = passed.describe(field.description ?? '');
  }
  // strict: a parameter the tool does not have is refused by name, not silently dropped
  return z.object(shape).strict() as unknown as ToolInput<Shape>;
}
