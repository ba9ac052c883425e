import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openDatabase, type Database } from './database';
import { migrateDatabase } from './migrate';

/** A database engine the integration suites run on. */
export type TestEngine = 'pglite' | 'postgres';

/** A migrated, empty database of its own for one test file; `dispose` removes it. */
export interface TestDatabase {
  readonly database: Database;
  /** The PostgreSQL URL of this database, for a second connection (undefined on PGlite). */
  readonly url: string | undefined;
  dispose(): Promise<void>;
}

let noticeShown = false;

/**
 * The engines to run integration suites on: PGlite always; PostgreSQL when
 * `TEST_DATABASE_URL` is set. In CI a missing PostgreSQL is an error, never a silent skip.
 */
export function testEngines(): { engine: TestEngine; skip: boolean }[] {
  const hasPostgres = process.env.TEST_DATABASE_URL !== undefined && process.env.TEST_DATABASE_URL !== '';
  if (!hasPostgres && process.env.CI === 'true') {
    throw new Error('CI=true but TEST_DATABASE_URL is not set: the PostgreSQL suites must run in CI');
  }
  if (!hasPostgres && !noticeShown) {
    noticeShown = true;
    console.warn('NOTICE: TEST_DATABASE_URL is not set; PostgreSQL suites are skipped (PGlite suites run).');
  }
  return [
    { engine: 'pglite', skip: false },
    { engine: 'postgres', skip: !hasPostgres },
  ];
}

/** Creates a fresh database: in-memory PGlite, or a new PostgreSQL database on the test server. */
export async function createTestDatabase(
  engine: TestEngine,
  options: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  if (engine === 'pglite') {
    const database = await openDatabase({ dataDir: 'memory://' });
    if (migrate) await migrateDatabase(database);
    return { database, url: undefined, dispose: () => database.close() };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl === undefined) throw new Error('TEST_DATABASE_URL is not set');
  const name = `di_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), maxConnections: 10 });
  if (migrate) await migrateDatabase(database);
  return {
    database,
    url: url.toString(),
    async dispose() {
      await database.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}
