import { searchQuerySchema } from '@domain-index/contract';
import fc from 'fast-check';
import type { ZodTypeAny } from 'zod';

/**
 * The search parameters as the contract's zod schema declares them, read from the schema itself,
 * and generators of their wire values: so a parameter added to the contract is drawn too,
 * without this file changing.
 */
export type ParamSpec =
  | { kind: 'number'; name: string; integer: boolean; min: number; max: number | undefined }
  | { kind: 'enum'; name: string; values: readonly string[] }
  | { kind: 'boolean'; name: string }
  | { kind: 'text'; name: string; maxLength: number | undefined };

interface Check {
  kind: string;
  value?: number;
}

/** The typed schema under the wire wrappers (preprocess, optional, transforms, description). */
function core(schema: ZodTypeAny): ZodTypeAny {
  let current = schema;
  for (;;) {
    const def = current._def as { typeName: string; schema?: ZodTypeAny; innerType?: ZodTypeAny };
    if (def.typeName === 'ZodEffects' && def.schema !== undefined) current = def.schema;
    else if ((def.typeName === 'ZodOptional' || def.typeName === 'ZodDefault') && def.innerType !== undefined) current = def.innerType;
    else return current;
  }
}

function spec(name: string, schema: ZodTypeAny): ParamSpec {
  const typed = core(schema);
  const def = typed._def as { typeName: string; checks?: Check[]; values?: readonly string[] };
  const checks = def.checks ?? [];
  const check = (kind: string) => checks.find((c) => c.kind === kind)?.value;
  switch (def.typeName) {
    case 'ZodNumber':
      return { kind: 'number', name, integer: checks.some((c) => c.kind === 'int'), min: check('min') ?? 0, max: check('max') };
    case 'ZodEnum':
      return { kind: 'enum', name, values: def.values ?? [] };
    case 'ZodBoolean':
      return { kind: 'boolean', name };
    case 'ZodString':
      return { kind: 'text', name, maxLength: check('max') };
    default:
      throw new Error(`the search parameter ${name} has a schema (${def.typeName}) these generators do not know`);
  }
}

/** Every parameter of `GET /api/v1/domains`, from the contract's schema. */
export function searchParamSpecs(): ParamSpec[] {
  const object = core(searchQuerySchema) as unknown as { shape: Record<string, ZodTypeAny> };
  return Object.entries(object.shape).map(([name, schema]) => spec(name, schema));
}

/** Values of the fixture to draw near: the numbers a bound may sit on, and text that matches. */
export interface ValuePools {
  /** Numbers of rows a parameter bounds (by name); parameters not listed draw from `anyNumber`. */
  numbersOf: (param: string) => readonly number[];
  anyNumber: readonly number[];
  texts: readonly string[];
}

/** The longest digit string the contract accepts, as `wire.ts` declares it. */
const LONGEST_DIGITS = '9'.repeat(15);
/** The most decimals the contract accepts. */
const MOST_DECIMALS = 15;

/** Plain decimal text with `places` decimals: what a customer types, never an exponent. */
const plain = (value: number, places: number) => value.toFixed(places);

/** Wire text for a number parameter: mostly values the contract accepts, some it refuses. */
function numberText(spec: Extract<ParamSpec, { kind: 'number' }>, pools: ValuePools): fc.Arbitrary<string> {
  const { min, integer } = spec;
  const max = spec.max ?? Number(LONGEST_DIGITS);
  const seen = pools.numbersOf(spec.name).filter((value) => value >= min && value <= max);
  const near = seen.length > 0 ? seen : pools.anyNumber.filter((value) => value >= min && value <= max);
  const edges = [String(min), String(max), spec.max === undefined ? LONGEST_DIGITS : String(spec.max)];
  const accepted: fc.Arbitrary<string>[] = [
    fc.constantFrom(...edges),
    fc.integer({ min, max: Math.min(max, 1_000_000) }).map(String),
  ];
  if (near.length > 0) {
    accepted.push(fc.constantFrom(...near).map((value) => (integer ? String(Math.round(value)) : String(value))));
  }
  if (!integer) {
    const offsets = [0, 0.5, -0.5, 1e-3, -1e-3, 1e-7, -1e-7, 1e-9, -1e-9, 1e-12, -1e-12];
    const nearby = near.length > 0 ? near : [min, max];
    accepted.push(
      fc
        .tuple(fc.constantFrom(...nearby), fc.constantFrom(...offsets), fc.integer({ min: 1, max: MOST_DECIMALS }))
        .map(([value, offset, places]) => plain(Math.min(max, Math.max(min, value + offset)), places)),
      fc.tuple(fc.double({ min, max: Math.min(max, 1e6), noNaN: true }), fc.integer({ min: 0, max: MOST_DECIMALS })).map(([value, places]) => plain(value, places)),
      fc.constantFrom(`${min}.${'0'.repeat(MOST_DECIMALS - 1)}1`, `${LONGEST_DIGITS}.${'9'.repeat(MOST_DECIMALS)}`, `0.${'0'.repeat(MOST_DECIMALS)}`),
    );
  } else {
    accepted.push(fc.integer({ min, max: Math.min(max, 999) }).map((value) => `00${value}`));
  }
  const refused = fc.constantFrom(
    String(max + 1),
    '-1',
    '1e3',
    '0x10',
    '.5',
    'NaN',
    'Infinity',
    `${LONGEST_DIGITS}9`,
    `1.${'1'.repeat(MOST_DECIMALS + 1)}`,
    integer ? '1.5' : 'abc',
  );
  return fc.oneof({ weight: 9, arbitrary: fc.oneof(...accepted) }, { weight: 1, arbitrary: refused });
}

/** Wire text for a parameter of any kind the contract declares. */
export function wireValue(spec: ParamSpec, pools: ValuePools): fc.Arbitrary<string> {
  const value = ((): fc.Arbitrary<string> => {
    switch (spec.kind) {
      case 'number':
        return numberText(spec, pools);
      case 'enum':
        return fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...spec.values) }, { weight: 1, arbitrary: fc.constantFrom('nope', spec.values[0]!.toUpperCase()) });
      case 'boolean':
        return fc.oneof({ weight: 9, arbitrary: fc.constantFrom('true', 'false') }, { weight: 1, arbitrary: fc.constantFrom('yes', '1', 'TRUE') });
      case 'text': {
        const max = spec.maxLength ?? 64;
        const made = fc.string({ unit: fc.constantFrom(...'abcdeiklmnorstu0123456789.- _%É'.split('')), maxLength: Math.min(max + 2, 24) });
        const seen = pools.texts.length > 0 ? fc.constantFrom(...pools.texts) : made;
        return fc.oneof(seen, made, fc.constant('a'.repeat(max)), fc.constant('a'.repeat(max + 1)));
      }
    }
  })();
  // An empty value is the same as an absent parameter (api-v1.md), so it is drawn too.
  return fc.oneof({ weight: 19, arbitrary: value }, { weight: 1, arbitrary: fc.constant('') });
}

/**
 * Query strings of up to `maxParams` distinct parameters of the contract, each with a wire
 * value. `exclude` names parameters that cannot be drawn as values (opaque cursors, issued by
 * the API itself).
 */
export function searchQueries(pools: ValuePools, options: { maxParams: number; exclude: readonly string[] }): fc.Arbitrary<Record<string, string>> {
  const specs = searchParamSpecs().filter((spec) => !options.exclude.includes(spec.name));
  return fc
    .subarray(specs, { minLength: 1, maxLength: options.maxParams })
    .chain((chosen) => fc.tuple(...chosen.map((spec) => wireValue(spec, pools).map((value) => [spec.name, value] as const))))
    .map((pairs) => Object.fromEntries(pairs));
}
