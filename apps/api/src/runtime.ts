import { migrateDatabase, openDatabase, type Database } from '@domain-index/db';
import { CliError } from './cli-error';
import { checkDatabaseChoice, type Config } from './config';
import { failureLine } from './failure-line';

/** How a command opens the configured database. */
export interface OpenOptions {
  /** PostgreSQL cancels statements running longer (the API's query budget). */
  statementTimeoutMs?: number;
}

/** Where the configured database is, for a message: never a password. */
export function describeDatabase(config: Config): string {
  return config.databaseUrl === undefined ? `embedded database in ${config.dataDir}` : `PostgreSQL at ${describeUrl(config.databaseUrl)}`;
}

/**
 * Opens the configured database and applies pending migrations; returns it with the tags of
 * the migrations applied now. A failure is one CLI line naming the database and the cause;
 * the embedded database under NODE_ENV=production is refused before anything is created.
 */
export async function openAndMigrate(config: Config, options: OpenOptions = {}): Promise<{ database: Database; applied: string[] }> {
  // serve and sync have checked for more already (cli.ts); every command refuses NODE_ENV=production
  checkDatabaseChoice(config, 'one-shot');
  let database: Database | undefined;
  try {
    database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      statementTimeoutMs: options.statementTimeoutMs,
      connectTimeoutMs: config.databaseConnectTimeoutMs,
      idleTimeoutMs: config.databaseIdleTimeoutMs,
    });
    const applied = await migrateDatabase(database);
    return { database, applied };
  } catch (cause) {
    await database?.close().catch(() => undefined);
    throw new CliError(`cannot open the ${describeDatabase(config)}: ${failureLine(cause)}`, { cause });
  }
}

/** Opens the configured database and brings its schema up to date. */
export async function openMigratedDatabase(config: Config, options: OpenOptions = {}): Promise<Database> {
  return (await openAndMigrate(config, options)).database;
}

/** Host, port and database of a URL, never its password. */
export function describeUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}
