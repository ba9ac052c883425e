/**
 * The rows of a raw `execute` result: postgres.js returns an array, PGlite an object with
 * `rows`. Lets code that runs inside a transaction read results on either driver.
 */
export function resultRows<T extends Record<string, unknown>>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  const rows = (result as { rows?: unknown } | null)?.rows;
  return Array.isArray(rows) ? (rows as T[]) : [];
}
