import { classifyDatabaseFailure } from '@domain-index/db/failures';
import { poolerMisconfiguration } from '@domain-index/db/pooler-errors';

/** Where Drizzle's message of a failed statement lists its parameters, and what comes before them. */
const STATEMENT_TEXT = /^Failed query: [\s\S]*$/;

/**
 * A failure as one line for an operator: a pooler in transaction mode that the URL does not
 * declare is named with its fix; a database failure is its SQLSTATE (or the driver's code) and
 * the server's message, never the statement or its parameter values (feed values, password
 * hashes); anything else is its message's first line. No stack.
 */
export function failureLine(error: unknown): string {
  const pooler = poolerMisconfiguration(error);
  if (pooler !== undefined) return pooler;
  const failure = classifyDatabaseFailure(error);
  const code = failure.sqlstate ?? (error instanceof Error ? codeOf(error) : undefined);
  const message = STATEMENT_TEXT.test(failure.message) ? 'a database statement failed' : firstLine(failure.message);
  return code !== undefined && !message.includes(code) ? `${code} ${message}` : message;
}

/** The first error down the cause chain that carries a code: the one that says what happened. */
function codeOf(error: Error): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
