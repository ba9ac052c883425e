import { openDatabase, type Database } from '@domain-index/db';

/** The probes' own connection, and how to let it go. */
export interface ProbeDatabase {
  database: Database;
  close(): Promise<void>;
}

/**
 * A connection of the probes' and /health's own: on the API's pool, `select 1` waited behind
 * the searches (up to the query timeout) when slow ones filled it, and readiness then failed on
 * every instance at once, so a balancer drained them all under load. One connection, its
 * statements cut at 2 s. The embedded database has one connection anyway: it is shared.
 */
export async function openProbeDatabase(databaseUrl: string | undefined, shared: Database): Promise<ProbeDatabase> {
  if (databaseUrl === undefined || shared.kind === 'pglite') return { database: shared, close: () => Promise.resolve() };
  const database = await openDatabase({ databaseUrl, maxConnections: 1, statementTimeoutMs: 2_000 });
  return { database, close: () => database.close() };
}
