import { z } from 'zod';
import { AUCTION_STATUSES } from '../feed-row';
import { compilePattern } from './parse-timestamp';
import { PROFILE_FIELDS, type ProfileField } from './profile-fields';
import { compileTemplate } from './template';
import { isTimeZone } from './time-zones';

const name = z.string().min(1).max(200);
const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code such as USD');
const status = z.enum(AUCTION_STATUSES);

/**
 * A value that is either a string or an object: the issues of the object schema keep their
 * paths (zod's union would answer only "Invalid input"), so a mistake is named precisely.
 */
function stringOr<T extends z.ZodTypeAny>(fromString: (value: string) => z.input<T>, object: T) {
  return z.unknown().transform((value, ctx): z.output<T> => {
    const result = object.safeParse(typeof value === 'string' ? fromString(value) : value);
    if (result.success) return result.data as z.output<T>;
    for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  });
}

const condition = z
  .object({
    /** The marketplace's field whose value decides. */
    field: name,
    /** The values (compared trimmed and case-insensitively; booleans as yes/no values) that let the rule apply. */
    in: z.array(z.union([z.string(), z.boolean()])).min(1),
  })
  .strict();

const fieldRuleObject = z
  .object({
    /** The marketplace's field (column) name. */
    from: name.optional(),
    /** A value of our own instead of the feed's. */
    constant: z.union([z.string(), z.number()]).optional(),
    /** Text built from the record (text fields): `{name}` is replaced by that field's value, URL-encoded. */
    template: z.string().min(1).max(2000).optional(),
    /** The field may be missing from the feed altogether; otherwise a feed without it is refused (renamed?). */
    optional: z.boolean().optional(),
    /** The rule applies only to records where another field has one of these values. */
    when: condition.optional(),
    /** Text values translated (keys compared trimmed and case-insensitively); null means none. */
    map: z.record(z.string(), z.string().nullable()).optional(),
    /** auction_end_time: `auto`, `iso`, `epoch-seconds`, `epoch-milliseconds` or a pattern. */
    format: z.string().min(1).max(100).optional(),
    /** domain_age: whole years from the date in `from` to the time of the import. */
    parse: z.literal('years-since').optional(),
    /** Money: the currency of the amounts when the text names none. */
    currency: currencyCode.optional(),
    /** Money: the field holding the amount's currency (a code, a sign or a mark such as `$US`). */
    currencyFrom: name.optional(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    const sources = [rule.from, rule.constant, rule.template].filter((value) => value !== undefined).length;
    if (sources !== 1) ctx.addIssue({ code: 'custom', message: 'needs exactly one of from, constant and template' });
  });

/** One way to read a field: a field name, or a rule. */
const fieldRule = stringOr((from) => ({ from }), fieldRuleObject);

/** A field's rule, or a list of rules tried in turn: the first whose source value is not empty wins. */
const fieldRules = z.unknown().transform((value, ctx): z.output<typeof fieldRule>[] => {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (list.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'needs at least one rule' });
    return z.NEVER;
  }
  const rules: z.output<typeof fieldRule>[] = [];
  for (const [index, item] of list.entries()) {
    const result = fieldRule.safeParse(item);
    if (result.success) rules.push(result.data);
    else for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', path: Array.isArray(value) ? [index, ...issue.path] : issue.path, message: issue.message });
  }
  return rules;
});

const statusRule = z
  .object({
    /** Every record has this status. */
    constant: status.optional(),
    /** The marketplace's field the status is derived from. */
    from: name.optional(),
    /** Its values (compared trimmed and case-insensitively) to statuses. */
    map: z.record(z.string(), status).optional(),
    /** The status of a value the map does not list; without it such a record is a bad row. */
    default: status.optional(),
    /** The field is a yes/no value: `true` and `false` name the statuses. */
    parse: z.literal('boolean').optional(),
    true: status.optional(),
    false: status.optional(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    if ((rule.constant === undefined) === (rule.from === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'needs exactly one of constant and from' });
    } else if (rule.from !== undefined) {
      const boolean = rule.parse === 'boolean';
      if (boolean && (rule.true === undefined || rule.false === undefined || rule.map !== undefined)) {
        ctx.addIssue({ code: 'custom', message: 'parse "boolean" needs true and false, and no map' });
      }
      if (!boolean && rule.map === undefined) ctx.addIssue({ code: 'custom', message: 'from needs a map (or parse "boolean")' });
    }
  });

const container = z.discriminatedUnion('type', [
  z.object({ type: z.literal('jsonl') }).strict(),
  z
    .object({
      type: z.literal('json'),
      /** Dot-separated path of the record array (`data`); empty for a top-level array. */
      records: z.string().max(200),
    })
    .strict(),
  z
    .object({
      type: z.literal('delimited'),
      delimiter: z.string().length(1).default(','),
      /** The first row (after skipLines) names the columns; names are trimmed. */
      header: z.boolean().optional(),
      /** The column names of a file without a header; null skips a column. */
      columns: z.array(name.nullable()).min(1).optional(),
      /** Lines before the header or the first record. */
      skipLines: z.number().int().min(0).max(1000).default(0),
      encoding: z.enum(['utf-8', 'iso-8859-1', 'windows-1252']).default('utf-8'),
      /** The quote character; null for none. */
      quote: z.string().length(1).nullable().default('"'),
      /** Decode HTML character references (`&#163;`) before splitting fields. */
      htmlEntities: z.boolean().default(false),
    })
    .strict(),
]);

const pagination = z
  .object({
    /** The envelope's field holding the next page's URL (absolute or relative); empty means the last page. */
    nextUrlField: name.optional(),
    /** The URL of page N after the first (which is the feed URL): `{page}` is replaced by N. */
    pageUrl: z.string().min(1).max(2000).optional(),
    /** The envelope's field holding this page's number (else pages are counted from 1). */
    pageField: name.optional(),
    /** The envelope's field holding the number of pages: reaching it is the last page. */
    pageCountField: name.optional(),
    /** The envelope's field that says whether more pages follow: false or absent is the last page. */
    hasMoreField: name.optional(),
    /** The envelope's field that says whether the request succeeded: false fails the fetch. */
    successField: name.optional(),
    /** The most pages read; a feed with more is refused (a batch is a complete set). */
    maxPages: z.number().int().min(1).max(10_000).default(100),
    /** Pause between page requests. */
    delayMs: z.number().int().min(0).max(60_000).default(1000),
  })
  .strict()
  .superRefine((value, ctx) => {
    if ((value.nextUrlField === undefined) === (value.pageUrl === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'needs exactly one of nextUrlField and pageUrl' });
    } else if (value.pageUrl !== undefined && !value.pageUrl.includes('{page}')) {
      ctx.addIssue({ code: 'custom', path: ['pageUrl'], message: 'must contain {page}' });
    }
  });

const fieldsShape = Object.fromEntries(Object.keys(PROFILE_FIELDS).map((field) => [field, fieldRules.optional()])) as {
  [K in ProfileField]: z.ZodOptional<typeof fieldRules>;
};

/** A feed profile as written in a sources file or shipped with the indexer. */
export const feedProfileSchema = z
  .object({
    container,
    /** `auto` recognises gzip and zip by their first bytes. */
    compression: z.enum(['auto', 'none', 'gzip', 'zip']).default('auto'),
    pagination: pagination.optional(),
    /** The marketplace's own zone (IANA), for times and dates written without one. */
    timeZone: z
      .string()
      .default('UTC')
      .refine((zone) => isTimeZone(zone), 'must be an IANA time zone such as America/New_York'),
    /** The currency of amounts that name none. */
    currency: currencyCode.default('USD'),
    /** Values meaning "none" in any field (compared trimmed), such as `-` and `--`. */
    nullValues: z.array(z.string().max(20)).max(20).default([]),
    status: statusRule,
    fields: z
      .object(fieldsShape)
      .strict()
      .refine((fields) => fields.domain_name !== undefined, { message: 'needs domain_name', path: ['domain_name'] }),
  })
  .strict()
  .superRefine((profile, ctx) => {
    const { container } = profile;
    if (container.type === 'delimited' && (container.header === true) === (container.columns !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['container'], message: 'needs either "header": true or a "columns" list' });
    }
    if (profile.pagination !== undefined && container.type !== 'json') {
      ctx.addIssue({ code: 'custom', path: ['pagination'], message: 'needs a json container (the record array of each page)' });
    }
    for (const [field, rules] of Object.entries(profile.fields) as [ProfileField, FieldRule[] | undefined][]) {
      // a field whose rules failed to parse is already reported
      if (!Array.isArray(rules)) continue;
      for (const [index, rule] of rules.entries()) {
        const problem = ruleProblem(field, rule);
        if (problem !== null) ctx.addIssue({ code: 'custom', path: ['fields', field, ...(rules.length > 1 ? [index] : []), problem.option], message: problem.message });
      }
    }
  });

/** One rule of a field, as validated. */
export type FieldRule = z.output<typeof fieldRule>;
/** A validated feed profile: defaults filled in, rules as lists. */
export type FeedProfile = z.output<typeof feedProfileSchema>;
/** A feed profile as written. */
export type FeedProfileInput = z.input<typeof feedProfileSchema>;
/** How a profile's records are held in the file. */
export type FeedContainer = FeedProfile['container'];
/** How a paginated JSON API is walked. */
export type FeedPagination = NonNullable<FeedProfile['pagination']>;
/** How a record's status is decided. */
export type StatusRule = FeedProfile['status'];

/** The first option of a rule that does not fit its field, or null. */
function ruleProblem(field: ProfileField, rule: FieldRule): { option: string; message: string } | null {
  const kind = PROFILE_FIELDS[field];
  if (rule.format !== undefined) {
    if (kind !== 'timestamp' && rule.parse !== 'years-since') return { option: 'format', message: 'only a date field takes a format' };
    if (!['auto', 'iso', 'epoch-seconds', 'epoch-milliseconds'].includes(rule.format)) {
      try {
        compilePattern(rule.format);
      } catch (error) {
        return { option: 'format', message: (error as Error).message };
      }
    }
  }
  if (rule.parse !== undefined && field !== 'domain_age') return { option: 'parse', message: 'years-since is for domain_age only' };
  if ((rule.currency !== undefined || rule.currencyFrom !== undefined) && kind !== 'money') {
    return { option: rule.currency !== undefined ? 'currency' : 'currencyFrom', message: 'only a money field takes a currency' };
  }
  if (rule.map !== undefined && kind !== 'text') return { option: 'map', message: 'only a text field (auction_type, marketplace_url) takes a map' };
  if (rule.template !== undefined) {
    if (kind !== 'text') return { option: 'template', message: 'only a text field (auction_type, marketplace_url) takes a template' };
    const compiled = compileTemplate(rule.template);
    if (!compiled.ok) return { option: 'template', message: compiled.reason };
    // a link that is not one would make every record of the feed a bad row
    if (field === 'marketplace_url' && !/^https?:\/\/[^/{}]/i.test(rule.template)) {
      return { option: 'template', message: 'must start with http:// or https:// and a host' };
    }
  }
  return null;
}

/**
 * Validates a profile. The error names the first mistake's path (`fields.current_bid.currency`)
 * and what is wrong with it.
 */
export function parseFeedProfile(value: unknown): { ok: true; profile: FeedProfile } | { ok: false; path: string; reason: string } {
  const result = feedProfileSchema.safeParse(value);
  if (result.success) return { ok: true, profile: result.data };
  const issue = result.error.issues[0]!;
  return { ok: false, path: issue.path.join('.'), reason: issue.message };
}
