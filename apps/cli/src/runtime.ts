import { resolve } from 'node:path';
import { migrateDatabase, openDatabase, type Database } from '@domain-index/db';
import { CliError } from './cli-error';
import { checkDatabaseChoice, type Config } from '@domain-index/config/config';
import { io } from './embedded/cli-io';
import { releaseDataDir, takeDataDir } from './embedded/data-dir-lock';
import { failureLine } from '@domain-index/runtime/failure-line';

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
  // serve and sync have checked for more already (cli-program.ts); every command refuses NODE_ENV=production
  checkDatabaseChoice(config, 'one-shot');
  const embedded = config.databaseUrl === undefined && !config.dataDir.startsWith('memory://');
  if (embedded) {
    // a command the running server runs for another process uses the server's own database
    const lentOut = lent?.dataDir === resolve(config.dataDir) && io().inServer ? lent.database : undefined;
    if (lentOut !== undefined) return { database: { ...lentOut, close: () => Promise.resolve() }, applied: [] };
    takeDataDir(config.dataDir, commandLine());
  }
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
    if (!embedded) return { database, applied };
    const opened = database;
    // the directory is given up once the database is closed, not only at exit
    return { database: { ...opened, close: () => opened.close().finally(() => releaseDataDir(config.dataDir)) }, applied };
  } catch (cause) {
    await database?.close().catch(() => undefined);
    if (embedded) releaseDataDir(config.dataDir);
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

/** The embedded database the running server lends to the commands it runs for other processes. */
let lent: { dataDir: string; database: Database } | undefined;

/** Lends the server's open embedded database to the commands run through its control socket. */
export function lendEmbeddedDatabase(dataDir: string, database: Database | undefined): void {
  lent = database === undefined ? undefined : { dataDir: resolve(dataDir), database };
}

/** This process's command as typed after `domain-index`, for the lock file. */
function commandLine(): string {
  const args = process.argv.slice(2);
  return args.length === 0 ? 'serve' : args.join(' ');
}
