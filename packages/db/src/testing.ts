import { randomBytes } from 'node:crypto';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { openDatabase, type Database } from './database';
import { migrateDatabase } from './migrate';
import { migratedPgliteDump } from './pglite-templates';

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

const ENGINES: readonly TestEngine[] = ['pglite', 'postgres'];

/**
 * The engines `TEST_ENGINES` names (comma-separated: `pglite`, `postgres`), every engine when it
 * is unset. A run limited to some engines, as the dated runs at other dates are to PGlite
 * (.ci/at-other-dates), leaves the others' suites out instead of reporting them skipped.
 */
function selectedEngines(): readonly TestEngine[] {
  const named = process.env.TEST_ENGINES;
  if (named === undefined || named.trim() === '') return ENGINES;
  const engines = named.split(',').map((engine) => engine.trim());
  const unknown = engines.filter((engine) => !(ENGINES as readonly string[]).includes(engine));
  if (unknown.length > 0) {
    throw new Error(`TEST_ENGINES=${named}: ${unknown.join(', ')} is not an engine; name pglite, postgres or both, comma-separated`);
  }
  return ENGINES.filter((engine) => engines.includes(engine));
}

/** True when the PostgreSQL suites cannot run (no `TEST_DATABASE_URL`), which CI makes an error. */
function postgresMissing(): boolean {
  const hasPostgres = process.env.TEST_DATABASE_URL !== undefined && process.env.TEST_DATABASE_URL !== '';
  if (!hasPostgres && process.env.CI === 'true') {
    throw new Error('CI=true but TEST_DATABASE_URL is not set: the PostgreSQL suites must run in CI');
  }
  if (!hasPostgres && !noticeShown) {
    noticeShown = true;
    console.warn('NOTICE: TEST_DATABASE_URL is not set; PostgreSQL suites are skipped (PGlite suites run).');
  }
  return !hasPostgres;
}

/**
 * The engines to run integration suites on: PGlite, and PostgreSQL (skipped unless
 * `TEST_DATABASE_URL` is set; in CI a missing PostgreSQL is an error, never a silent skip).
 * `TEST_ENGINES` limits the list; an engine it leaves out is not in it at all.
 */
export function testEngines(): { engine: TestEngine; skip: boolean }[] {
  return selectedEngines().map((engine) => (engine === 'postgres' ? postgresTestEngine() : { engine, skip: false }));
}

/**
 * The PostgreSQL engine, for suites that only it can run (a server's faults, its pool, a second
 * connection): skipped without `TEST_DATABASE_URL` (an error in CI), or when `TEST_ENGINES`
 * leaves it out.
 */
export function postgresTestEngine(): { engine: 'postgres'; skip: boolean } {
  return { engine: 'postgres', skip: !selectedEngines().includes('postgres') || postgresMissing() };
}

/**
 * Creates a fresh database: in-memory PGlite, or a new PostgreSQL database on the test server.
 * A migrated PGlite one is a copy of the run's template when the run has one (pglite-templates.ts).
 */
export async function createTestDatabase(
  engine: TestEngine,
  options: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  if (engine === 'pglite') {
    const dump = migrate ? await migratedPgliteDump() : undefined;
    const database = await openDatabase({ dataDir: 'memory://', pgliteDump: dump });
    if (migrate && dump === undefined) await migrateDatabase(database);
    return { database, url: undefined, dispose: () => database.close() };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl === undefined) throw new Error('TEST_DATABASE_URL is not set');
  const name = `${testDatabasePrefix()}${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database "${name}"`);
  // Which suite made it: the leak guard (test-database-leaks.ts) names it if it is left behind.
  await admin.unsafe(`comment on database "${name}" is ${literal(`created by ${creator()}`)}`);
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

/**
 * The prefix of this run's test databases: `di_test_<run>_` under the leak guard, which sets
 * DI_TEST_RUN for the run, else `di_test_`.
 */
export function testDatabasePrefix(run = process.env.DI_TEST_RUN): string {
  return run === undefined || run === '' ? 'di_test_' : `di_test_${run}_`;
}

/** The first stack frame outside this file: the suite that asked for a database, as file:line. */
function creator(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  const here = fileURLToPath(import.meta.url);
  const frame = frames.find((line) => !line.includes(here) && !line.includes('node_modules') && !line.includes('node:'));
  const location = /\(?((?:file:\/\/)?\/[^()]+?):(\d+):\d+\)?$/.exec(frame ?? '');
  if (location === null) return 'an unknown caller';
  const file = location[1]!.startsWith('file://') ? fileURLToPath(location[1]!) : location[1]!;
  return `${relative(process.cwd(), file)}:${location[2]}`;
}

/** A SQL string literal (COMMENT takes no parameters). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
