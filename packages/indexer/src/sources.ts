import { z } from 'zod';

/** How often a marketplace is fetched: from hourly to daily (api-v1.md). */
export const SCHEDULE_LIMITS = { minMinutes: 60, maxMinutes: 1440 } as const;

const sourceSchema = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9_-]{1,32}$/, 'must be 1-32 characters of a-z, 0-9, _ and -'),
    name: z.string().min(1).max(100),
    /** Minutes between fetches. */
    everyMinutes: z.number().int().min(SCHEDULE_LIMITS.minMinutes).max(SCHEDULE_LIMITS.maxMinutes),
    /** A file path, or an http(s) URL. */
    feed: z.string().min(1),
    format: z.enum(['jsonl', 'csv']),
    /** Renames the feed's field names to ours: { "their_name": "our_name" }. */
    fieldMapping: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** One marketplace: identifier, display name, schedule, feed location and format. */
export type SourceConfig = z.infer<typeof sourceSchema>;

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

/** Parses a sources file (a JSON array); the error names the entry and field at fault. */
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
  const where = issue?.path.length ? issue.path.join('.') : 'the list';
  return { ok: false, reason: `${where}: ${issue?.message ?? 'invalid'}` };
}
