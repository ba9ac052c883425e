import { and, eq, gte, keyUsage, type Database } from '@domain-index/db';
import { OUTCOMES, type Outcome } from './outcome';
import { HOUR_MS, usageHourOf } from '@domain-index/accounts/usage-hour';

/** The spans the usage page shows, each as so many buckets of so many hours (UTC-aligned). */
export const USAGE_RANGES = {
  '24h': { title: 'last 24 hours', buckets: 24, bucketHours: 1 },
  '7d': { title: 'last 7 days', buckets: 28, bucketHours: 6 },
  '30d': { title: 'last 30 days', buckets: 30, bucketHours: 24 },
} as const;
export type UsageRange = keyof typeof USAGE_RANGES;

/** One bucket of a key's use: requests by outcome, and rows returned. */
export interface UsageBucket extends Record<Outcome, number> {
  start: Date;
  hours: number;
  requests: number;
  rows: number;
  /** Requests counted before outcomes were (key_usage rows from before migration 0016). */
  unsplit: number;
}

/**
 * A key's use over a range up to `at`, every bucket present (zeros when unused): hourly rows of
 * `key_usage` added up into the range's buckets, the last one holding the current hour.
 */
export async function usageOver(database: Database, keyId: string, at: Date, range: UsageRange): Promise<UsageBucket[]> {
  const { buckets, bucketHours } = USAGE_RANGES[range];
  const size = bucketHours * HOUR_MS;
  const first = Math.floor(usageHourOf(at) / size) * size - (buckets - 1) * size;
  const rows = await database.db
    .select({
      hour: keyUsage.hour,
      requests: keyUsage.requests,
      rows: keyUsage.rowsReturned,
      ok: keyUsage.ok,
      clientErrors: keyUsage.clientErrors,
      rateLimited: keyUsage.rateLimited,
      serverErrors: keyUsage.serverErrors,
    })
    .from(keyUsage)
    .where(and(eq(keyUsage.keyId, keyId), gte(keyUsage.hour, new Date(first))));
  const result: UsageBucket[] = Array.from({ length: buckets }, (_, i) => ({
    start: new Date(first + i * size),
    hours: bucketHours,
    requests: 0,
    rows: 0,
    ok: 0,
    clientErrors: 0,
    rateLimited: 0,
    serverErrors: 0,
    unsplit: 0,
  }));
  for (const row of rows) {
    const bucket = result[Math.floor((row.hour.getTime() - first) / size)];
    if (bucket === undefined) continue;
    bucket.requests += row.requests;
    bucket.rows += row.rows;
    for (const outcome of OUTCOMES) bucket[outcome] += row[outcome];
  }
  for (const bucket of result) bucket.unsplit = bucket.requests - OUTCOMES.reduce((sum, outcome) => sum + bucket[outcome], 0);
  return result;
}
