import { migrateDatabase, openDatabase, type Database } from '@domain-index/db';
import { CliError } from './cli-error';
import type { Config } from './config';

/** Opens the configured database and brings its schema up to date. */
export async function openMigratedDatabase(
  config: Config,
  options: { statementTimeoutMs?: number } = {},
): Promise<Database> {
  const where =
    config.databaseUrl === undefined ? `embedded database in ${config.dataDir}` : `PostgreSQL at ${describeUrl(config.databaseUrl)}`;
  let database: Database | undefined;
  try {
    database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      statementTimeoutMs: options.statementTimeoutMs,
    });
    await migrateDatabase(database);
    return database;
  } catch (cause) {
    await database?.close().catch(() => undefined);
    throw new CliError(`cannot open the ${where}: ${reason(cause)}`, { cause });
  }
}

/** Host, port and database of a URL, never its password. */
export function describeUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

/** A short reason for an operator: the error code and message of the first cause. */
function reason(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code) ? `${code} ${cause.message}` : cause.message;
  }
  return String(cause);
}
