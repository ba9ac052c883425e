import { and, eq, gte, keyUsage, type Database } from '@domain-index/db';
import { HOUR_MS, usageHourOf } from './usage-hour';

/** One hour of a key's use. */
export interface UsageHour {
  hour: Date;
  requests: number;
  rows: number;
}

/** A key's requests and rows per hour over the 24 hours up to `at`, every hour present (0 when unused). */
export async function lastDayOfUsage(database: Database, keyId: string, at: Date): Promise<UsageHour[]> {
  const first = usageHourOf(at) - 23 * HOUR_MS;
  const rows = await database.db
    .select({ hour: keyUsage.hour, requests: keyUsage.requests, rows: keyUsage.rowsReturned })
    .from(keyUsage)
    .where(and(eq(keyUsage.keyId, keyId), gte(keyUsage.hour, new Date(first))));
  const byHour = new Map(rows.map((row) => [row.hour.getTime(), row]));
  return Array.from({ length: 24 }, (_, i) => {
    const hour = first + i * HOUR_MS;
    const row = byHour.get(hour);
    return { hour: new Date(hour), requests: row?.requests ?? 0, rows: row?.rows ?? 0 };
  });
}
