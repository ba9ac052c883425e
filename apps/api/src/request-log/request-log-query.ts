import {
  and,
  desc,
  eq,
  gte,
  lt,
  or,
  requestLog,
  sql,
  type Database,
  type SQL,
} from '@domain-index/db';
import { REQUEST_LOG_DAYS } from './request-log-recorder';

/** The status filters of the request log page. */
export const STATUS_FILTERS = ['2xx', '4xx', '429', '5xx'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

/** One logged request as the dashboard shows it. */
export interface LoggedRequest {
  id: number;
  at: Date;
  requestId: string;
  method: string;
  path: string;
  status: number;
  errorCode: string | null;
  durationMs: number;
  rows: number;
}

/** Where a page of the log starts: after the request with this time and id (newest first). */
export interface LogCursor {
  at: Date;
  id: number;
}

const statusIs = (filter: StatusFilter): SQL => {
  switch (filter) {
    case '2xx':
      return lt(requestLog.status, 400);
    case '4xx':
      return sql`${requestLog.status} between 400 and 499 and ${requestLog.status} <> 429`;
    case '429':
      return eq(requestLog.status, 429);
    case '5xx':
      return gte(requestLog.status, 500);
  }
};

/**
 * A key's requests of the last REQUEST_LOG_DAYS at `now`, newest first: a page of `limit`,
 * after `before` when given, only those of a status class, or the one request id.
 */
export async function listLoggedRequests(
  database: Database,
  keyId: string,
  options: {
    now: Date;
    status?: StatusFilter | undefined;
    requestId?: string | undefined;
    before?: LogCursor | undefined;
    limit: number;
  },
): Promise<LoggedRequest[]> {
  const since = new Date(options.now.getTime() - REQUEST_LOG_DAYS * 86_400_000);
  const conditions: SQL[] = [eq(requestLog.keyId, keyId), gte(requestLog.at, since)];
  if (options.status !== undefined) conditions.push(statusIs(options.status));
  if (options.requestId !== undefined) conditions.push(eq(requestLog.requestId, options.requestId));
  if (options.before !== undefined) {
    const { at, id } = options.before;
    conditions.push(or(lt(requestLog.at, at), and(eq(requestLog.at, at), lt(requestLog.id, id)))!);
  }
  const rows = await database.db
    .select({
      id: requestLog.id,
      at: requestLog.at,
      requestId: requestLog.requestId,
      method: requestLog.method,
      path: requestLog.path,
      status: requestLog.status,
      errorCode: requestLog.errorCode,
      durationMs: requestLog.durationMs,
      rows: requestLog.rowsReturned,
    })
    .from(requestLog)
    .where(and(...conditions))
    .orderBy(desc(requestLog.at), desc(requestLog.id))
    .limit(options.limit);
  return rows;
}
