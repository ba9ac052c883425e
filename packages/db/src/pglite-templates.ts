/**
 * Migrated PGlite databases for the suites, made once per test run and copied for each test
 * that wants a fresh one. PGlite's initdb and the migrations cost 3-6 s per database on a loaded
 * 2-core runner; a copy costs a fraction of that. Each template is made exactly as the path it
 * stands in for makes a database (openDatabase, then migrateDatabase), by the first suite of the
 * run that asks. This module is also the vitest global setup that gives a run its directory of
 * templates (DI_PGLITE_TEMPLATES, inherited by the workers) and removes it afterwards; in a run
 * without it every database is made from scratch.
 */
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './database';
import { migrateDatabase } from './migrate';

const VARIABLE = 'DI_PGLITE_TEMPLATES';

/** The directory this global setup made, removed by its teardown (never one it was given). */
let made: string | undefined;

/** vitest global setup: a directory of templates for this run. */
export function setup(): void {
  if (process.env[VARIABLE] !== undefined && process.env[VARIABLE] !== '') return;
  made = mkdtempSync(join(tmpdir(), 'di-pglite-templates-'));
  process.env[VARIABLE] = made;
}

/** vitest global teardown: removes the templates. */
export function teardown(): void {
  if (made !== undefined) rmSync(made, { recursive: true, force: true });
}

function templatesDir(): string | undefined {
  const dir = process.env[VARIABLE];
  return dir === undefined || dir === '' ? undefined : dir;
}

/**
 * Makes `final` with `make` unless it exists. Two workers may both make it: each writes to a
 * path of its own and renames it into place, and the loser's copy is thrown away.
 */
async function once(final: string, make: (path: string) => Promise<void>): Promise<void> {
  if (existsSync(final)) return;
  const own = `${final}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await make(own);
    renameSync(own, final);
  } catch (error) {
    // a directory renamed onto one another worker put there first fails: use theirs
    if (!existsSync(final)) throw error;
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
}

let dump: Promise<Blob | undefined> | undefined;

/**
 * A dump of a fresh in-memory database just migrated, to open with `pgliteDump` (PGlite's own
 * `clone()` works so); undefined outside a run with the global setup.
 */
export function migratedPgliteDump(): Promise<Blob | undefined> {
  const dir = templatesDir();
  if (dir === undefined) return Promise.resolve(undefined);
  dump ??= (async () => {
    const file = join(dir, 'memory.tar');
    await once(file, async (path) => {
      const database = await openDatabase({ dataDir: 'memory://' });
      try {
        await migrateDatabase(database);
        if (database.driver.kind !== 'pglite') throw new Error('not PGlite');
        const tarball = await database.driver.client.dumpDataDir('none');
        writeFileSync(path, new Uint8Array(await tarball.arrayBuffer()));
      } finally {
        await database.close();
      }
    });
    return new Blob([readFileSync(file)]);
  })();
  return dump;
}

/**
 * Makes `target` a PGlite data directory holding what the first `domain-index` command on an
 * empty DATA_DIR leaves there: the database, opened and migrated. Copied from this run's
 * template, or made in place outside a run with the global setup.
 */
export async function migratedPgliteDataDir(target: string): Promise<void> {
  const make = async (path: string) => {
    const database = await openDatabase({ dataDir: path });
    try {
      await migrateDatabase(database);
    } finally {
      await database.close();
    }
  };
  const dir = templatesDir();
  if (dir === undefined) return make(target);
  const template = join(dir, 'data');
  await once(template, make);
  cpSync(template, target, { recursive: true });
}
