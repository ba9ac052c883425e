import { and, desc, eq, gte, lt, webhookAttempts, webhookDeliveries, type Database } from '@domain-index/db';

/** How long the attempts of an alert are kept and listed. */
export const DELIVERY_LOG_DAYS = 7;

/** One attempt to send a message, as the API and the dashboard list it. */
export interface DeliveryAttempt {
  /** The attempt's own id: a page of the log ends at one. */
  id: number;
  deliveryId: string;
  at: Date;
  kind: 'events' | 'test';
  eventIds: number[];
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  response: string | null;
}

/** A page of attempts ends at an attempt id: the cursor is that id, in base64url JSON. */
export function decodeDeliveryCursor(cursor: string): number | null {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { before?: unknown };
    return typeof value.before === 'number' && Number.isSafeInteger(value.before) && value.before > 0 ? value.before : null;
  } catch {
    return null;
  }
}

const encodeCursor = (before: number) => Buffer.from(JSON.stringify({ before })).toString('base64url');

/**
 * An alert's webhook attempts of the last 7 days, newest first, `limit` a page; `before` is a
 * page's decoded cursor. `nextCursor` is where the next (older) page starts, null on the last.
 */
export async function readDeliveryLog(
  database: Database,
  options: { alertId: string; now: Date; limit: number; before?: number | undefined },
): Promise<{ attempts: DeliveryAttempt[]; nextCursor: string | null }> {
  const since = new Date(options.now.getTime() - DELIVERY_LOG_DAYS * 86_400_000);
  const rows = await database.db
    .select({
      id: webhookAttempts.id,
      deliveryId: webhookAttempts.deliveryId,
      at: webhookAttempts.at,
      kind: webhookDeliveries.kind,
      eventIds: webhookDeliveries.eventIds,
      httpStatus: webhookAttempts.httpStatus,
      error: webhookAttempts.error,
      durationMs: webhookAttempts.durationMs,
      response: webhookAttempts.response,
    })
    .from(webhookAttempts)
    .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
    .where(and(eq(webhookAttempts.alertId, options.alertId), gte(webhookAttempts.at, since), options.before === undefined ? undefined : lt(webhookAttempts.id, options.before)))
    .orderBy(desc(webhookAttempts.id))
    .limit(options.limit + 1);
  const attempts = rows.slice(0, options.limit).map((row) => ({ ...row, kind: row.kind as DeliveryAttempt['kind'] }));
  return { attempts, nextCursor: rows.length > options.limit ? encodeCursor(attempts.at(-1)!.id) : null };
}
