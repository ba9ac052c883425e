import { classifyDatabaseFailure } from './failures';

/** SQLSTATEs of a named prepared statement that another server connection does not know. */
const LOST_PREPARED_STATEMENT = new Set(['26000', '42P05']);

/**
 * What a failure says when the connection goes through a pooler in transaction mode that the
 * URL does not declare: one line naming the fix, or undefined when the failure is something
 * else. PgBouncer refuses the session's startup parameters ("unsupported startup parameter");
 * configured to ignore them, it hands consecutive statements to different server connections,
 * where a statement prepared by name on one does not exist on the next.
 */
export function poolerMisconfiguration(error: unknown, variable = 'DATABASE_URL'): string | undefined {
  const { sqlstate, message } = classifyDatabaseFailure(error);
  const fix = `if ${variable} points at PgBouncer (or another pooler) in transaction mode, add ?pgbouncer=true to it`;
  if (sqlstate === '08P01' && /unsupported startup parameter/i.test(message)) {
    return `the server refused a connection setting (${message}): ${fix}`;
  }
  if (sqlstate !== undefined && LOST_PREPARED_STATEMENT.has(sqlstate)) {
    return `a prepared statement was lost between two statements of one session: ${fix}`;
  }
  return undefined;
}
