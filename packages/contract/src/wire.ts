import { z } from 'zod';

/**
 * Query values arrive as text. These helpers turn a wire value into the typed value the
 * schema checks, so one schema both types the client's input (numbers, booleans) and
 * validates the server's raw query strings.
 */

/** Plain decimal text only: no sign, exponent, hex, Infinity or NaN (decisions.md). */
const DECIMAL = /^\d{1,15}(\.\d{1,15})?$/;
/** Integers: digits only. */
const DIGITS = /^\d{1,15}$/;

/** Marks an issue raised because a parameter was given more than once. */
export const REPEATED_PARAMETER = 'repeated_parameter';

/**
 * Wraps a typed schema so that it accepts a raw query value: a repeated parameter (an array)
 * is an error, an empty value is the same as an absent one, and text is converted by
 * `fromText` before the typed schema checks it. The result is typed by `schema`'s own input
 * so that callers (the client) pass numbers and booleans, not strings.
 */
export function fromQuery<T extends z.ZodTypeAny>(
  schema: T,
  fromText: (text: string) => unknown = (text) => text,
): z.ZodType<z.output<T> | undefined, z.ZodTypeDef, z.input<T> | undefined> {
  return z.preprocess((value, ctx) => {
    if (Array.isArray(value)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: 'is given more than once',
        params: { reason: REPEATED_PARAMETER },
        fatal: true,
      });
      return z.NEVER;
    }
    if (value === undefined || value === '') return undefined;
    return typeof value === 'string' ? fromText(value) : value;
  }, schema.optional());
}

/** A number in [min, max] (max optional), written in plain decimal on the wire. */
export function decimal(min: number, max?: number) {
  const rule =
    max === undefined ? `a number >= ${min}` : `a number from ${min} to ${max}`;
  const message = `must be ${rule}, written in plain decimal (e.g. 12 or 12.5)`;
  let schema = z.number({ invalid_type_error: message }).finite(message).min(min, message);
  if (max !== undefined) schema = schema.max(max, message);
  return fromQuery(schema, (text) => (DECIMAL.test(text) ? Number(text) : text));
}

/** An integer in [min, max] (max optional), digits only on the wire. */
export function integer(min: number, max?: number) {
  const rule =
    max === undefined ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
  const message = `must be ${rule}, written in digits only`;
  let schema = z.number({ invalid_type_error: message }).int(message).min(min, message);
  if (max !== undefined) schema = schema.max(max, message);
  return fromQuery(schema, (text) => (DIGITS.test(text) ? Number(text) : text));
}

/** `true` or `false`, exactly. */
export function boolean() {
  const message = 'must be true or false';
  return fromQuery(z.boolean({ invalid_type_error: message }), (text) =>
    text === 'true' ? true : text === 'false' ? false : text,
  );
}

/** One of a fixed list of values, exactly as written. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  const message = `must be one of ${values.join(', ')}`;
  return fromQuery(
    z.enum(values, { errorMap: () => ({ message }) }),
  );
}

/** Text of at most `max` characters, lowercased (tld, source). */
export function lowercaseText(max: number) {
  const message = `must be at most ${max} characters`;
  return fromQuery(
    z
      .string({ invalid_type_error: 'must be text' })
      .max(max, message)
      .transform((value) => value.toLowerCase()),
  );
}

/** Text of at most `max` characters, passed on unchanged (cursor). */
export function text(max: number) {
  const message = `must be at most ${max} characters`;
  return fromQuery(z.string({ invalid_type_error: 'must be text' }).max(max, message));
}
