import { z } from 'zod';
import { feedProfileSchema, type FeedProfile } from './feeds/profile';
import { SHIPPED_PROFILE_NAMES, SHIPPED_PROFILES } from './feeds/profiles';

/** How often a marketplace is fetched: from hourly to daily (api-v1.md). */
export const SCHEDULE_LIMITS = { minMinutes: 60, maxMinutes: 1440 } as const;

/** A value read from the environment at fetch time: `env:NAME`. */
const ENV_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;
/** Header and query names whose values are secrets: they must come from the environment. */
const SECRET_NAME = /auth|key|token|secret|passw|cookie|session|signature|sig$|credential/i;

const requestValue = z.string().max(4000);

/** A header or query parameter: a literal, or `env:NAME`; a secret's name demands `env:`. */
function requestValues(what: 'header' | 'query parameter', name: z.ZodString) {
  return z.record(name, requestValue).superRefine((values, ctx) => {
    for (const [key, value] of Object.entries(values)) {
      if (value.startsWith('env:') && !ENV_REFERENCE.test(value)) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'env: must be followed by an environment variable name' });
      } else if (SECRET_NAME.test(key) && !ENV_REFERENCE.test(value)) {
        ctx.addIssue({ code: 'custom', path: [key], message: `a secret ${what} takes its value from the environment ("env:NAME"), never from the sources file` });
      }
    }
  });
}

/** The feed location: a file path, or an http(s) URL without secrets in it. */
const feedLocation = z
  .string()
  .min(1)
  .superRefine((feed, ctx) => {
    if (!/^https?:\/\//i.test(feed)) return;
    let url: URL;
    try {
      url = new URL(feed);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
      return;
    }
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not contain credentials; use "headers" with an env: value' });
    }
    for (const key of url.searchParams.keys()) {
      if (SECRET_NAME.test(key)) {
        ctx.addIssue({ code: 'custom', message: `must not contain the secret ${key}; put it in "query" with an env: value` });
      }
    }
  });

/** A profile: the name of a shipped one, or one written out. */
const profileReference = z.unknown().transform((value, ctx): { name: string | undefined; profile: FeedProfile } => {
  if (typeof value === 'string') {
    const shipped = SHIPPED_PROFILES[value];
    if (shipped !== undefined) return { name: value, profile: shipped };
    ctx.addIssue({ code: 'custom', message: `unknown profile ${JSON.stringify(value)}; shipped: ${SHIPPED_PROFILE_NAMES.join(', ')}` });
    return z.NEVER;
  }
  const result = feedProfileSchema.safeParse(value);
  if (result.success) return { name: undefined, profile: result.data };
  for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  return z.NEVER;
});

const sourceSchema = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9_-]{1,32}$/, 'must be 1-32 characters of a-z, 0-9, _ and -'),
    name: z.string().min(1).max(100),
    /** Minutes between fetches. */
    everyMinutes: z.number().int().min(SCHEDULE_LIMITS.minMinutes).max(SCHEDULE_LIMITS.maxMinutes),
    /** A file path, or an http(s) URL. */
    feed: feedLocation,
    /** A feed in the feed format's own field names. */
    format: z.enum(['jsonl', 'csv']).optional(),
    /** Renames the feed's field names to ours: { "their_name": "our_name" }. */
    fieldMapping: z.record(z.string(), z.string()).optional(),
    /** A marketplace's own feed: a shipped profile's name, or a profile. */
    profile: profileReference.optional(),
    /** Request headers; `env:NAME` values are read from the environment at fetch time. */
    headers: requestValues('header', z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'is not a header name')).optional(),
    /** Query parameters added to every request of the feed; `env:NAME` as for headers. */
    query: requestValues('query parameter', z.string().min(1).max(200)).optional(),
    /** US dollars per unit of other currencies, for a profile's amounts: { "EUR": 1.08 }. */
    currencyRates: z.record(z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code such as EUR'), z.number().positive().max(1_000_000)).optional(),
    /** How long to wait for a response's headers, and for the next bytes of its body. */
    timeouts: z
      .object({
        responseMs: z.number().int().min(1).max(600_000).optional(),
        idleMs: z.number().int().min(1).max(600_000).optional(),
      })
      .strict()
      .optional(),
    /**
     * Largest download of the feed, in bytes (default 16 GiB): a server streaming without end
     * must not fill the disk the download is spooled to.
     */
    maxDownloadBytes: z.number().int().min(1).max(2 ** 50).optional(),
  })
  .strict()
  .superRefine((source, ctx) => {
    if ((source.format === undefined) === (source.profile === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['format'], message: 'needs either "format" (jsonl or csv, in our field names) or a "profile"' });
    }
    if (source.fieldMapping !== undefined && source.profile !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['fieldMapping'], message: 'goes with "format"; a profile maps fields itself' });
    }
  })
  .transform(({ profile, ...source }) => ({
    ...source,
    ...(profile !== undefined && { profile: profile.profile }),
    ...(profile?.name !== undefined && { profileName: profile.name }),
  }));

/** One marketplace: identifier, display name, schedule, feed location and how to read it. */
export type SourceConfig = z.output<typeof sourceSchema>;

const sourcesSchema = z
  .array(sourceSchema)
  .min(1, 'must list at least one marketplace')
  .superRefine((sources, ctx) => {
    const seen = new Set<string>();
    for (const [index, source] of sources.entries()) {
      if (seen.has(source.id)) {
        ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate id ${source.id}` });
      }
      seen.add(source.id);
    }
  });

/** The five marketplaces shipped by default. Feeds point nowhere real until an operator sets them. */
export const DEFAULT_SOURCES: readonly SourceConfig[] = [
  { id: 'bidhaus', name: 'BidHaus Auctions', everyMinutes: 60, feed: 'https://feeds.bidhaus.example/listings.jsonl', format: 'jsonl' },
  { id: 'droplane', name: 'DropLane', everyMinutes: 1440, feed: 'https://droplane.example/export/pending-delete.csv', format: 'csv' },
  { id: 'namemarket', name: 'NameMarket', everyMinutes: 360, feed: 'https://api.namemarket.example/v2/inventory.jsonl', format: 'jsonl' },
  { id: 'expirex', name: 'Expirex', everyMinutes: 120, feed: 'https://expirex.example/feeds/auctions.csv', format: 'csv' },
  { id: 'brandbay', name: 'BrandBay', everyMinutes: 720, feed: 'https://brandbay.example/feed/listings.jsonl', format: 'jsonl' },
];

/** How a source's feed is read, in a word: its format, its shipped profile's name, or `profile`. */
export function feedKindOf(source: SourceConfig): string {
  return source.profileName ?? (source.profile !== undefined ? 'profile' : (source.format ?? 'jsonl'));
}

/**
 * Parses a sources file (a JSON array). The error is one line naming the source (by id when it
 * has a valid one) and the field at fault: `source "godaddy": profile.fields.current_bid.currency: ...`.
 */
export function parseSources(json: string): { ok: true; sources: SourceConfig[] } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
  const result = sourcesSchema.safeParse(value);
  if (result.success) return { ok: true, sources: result.data };
  const issue = result.error.issues[0];
  if (issue === undefined) return { ok: false, reason: 'invalid' };
  const [index, ...path] = issue.path;
  if (typeof index !== 'number') return { ok: false, reason: `the list: ${issue.message}` };
  const entry = Array.isArray(value) ? (value as unknown[])[index] : undefined;
  const id = (entry as { id?: unknown } | undefined)?.id;
  const source = typeof id === 'string' && /^[a-z0-9_-]{1,32}$/.test(id) ? `source ${JSON.stringify(id)}` : `source ${index + 1} in the list`;
  return { ok: false, reason: `${source}: ${path.length > 0 ? `${path.join('.')}: ` : ''}${issue.message}` };
}
