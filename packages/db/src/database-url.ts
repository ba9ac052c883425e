/** A PostgreSQL URL as the driver gets it, and what its `pgbouncer` parameter said. */
export interface DatabaseUrl {
  /** The URL without the `pgbouncer` parameter (the driver would send it as a startup parameter). */
  url: string;
  /** `?pgbouncer=true`: a pooler in transaction mode is in between (PgBouncer, or one that acts alike). */
  pooled: boolean;
}

/** The reason a URL's `pgbouncer` parameter is unusable, or undefined when it is usable or absent. */
export function pgbouncerParameterProblem(raw: string): string | undefined {
  let values: string[];
  try {
    values = new URL(raw).searchParams.getAll('pgbouncer');
  } catch {
    return undefined;
  }
  if (values.length > 1) return 'gives pgbouncer more than once';
  const [value] = values;
  return value === undefined || value === 'true' || value === 'false' ? undefined : 'has pgbouncer=' + (value.length > 10 ? `${value.slice(0, 10)}…` : value) + '; it must be true or false';
}

/**
 * Reads the `pgbouncer` parameter the way Prisma's users know it: `?pgbouncer=true` on a URL
 * means that statements reach the database through a pooler in transaction mode, where
 * consecutive statements outside a transaction may run on different server connections. The
 * parameter is taken off the URL; any other parameter stays for the driver.
 *
 * @throws {Error} when the parameter is given twice or is neither true nor false.
 */
export function parseDatabaseUrl(raw: string): DatabaseUrl {
  const problem = pgbouncerParameterProblem(raw);
  if (problem !== undefined) throw new Error(`the database URL ${problem}`);
  const url = new URL(raw);
  if (!url.searchParams.has('pgbouncer')) return { url: raw, pooled: false };
  const pooled = url.searchParams.get('pgbouncer') === 'true';
  url.searchParams.delete('pgbouncer');
  return { url: url.toString(), pooled };
}
