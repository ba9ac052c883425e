import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type Postgres from 'postgres';
import { testDatabasePrefix } from './testing';

// Loaded by another package's vitest as its global setup, where a bare import of the driver is
// resolved from that package (which does not depend on it) and fails: required from here instead.
const postgres = createRequire(import.meta.url)('postgres') as typeof Postgres;

/**
 * A vitest global setup that fails a run which leaves test databases behind on the shared
 * PostgreSQL server (TEST_DATABASE_URL). Every suite that calls createTestDatabase must dispose
 * of it; one that does not fills the server a little on every run, unseen. The run gets an id
 * of its own (DI_TEST_RUN, inherited by the workers), so that databases of a run beside it, or
 * of a killed earlier one, are neither blamed nor dropped.
 */
export function setup(): void {
  process.env.DI_TEST_RUN ||= randomBytes(4).toString('hex');
}

/** Drops this run's leftover test databases, then fails the run naming each and its creator. */
export async function teardown(): Promise<void> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl === undefined || adminUrl === '') return;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  try {
    const prefix = testDatabasePrefix();
    const left = await admin<{ name: string; comment: string | null }[]>`
      select datname as name, shobj_description(oid, 'pg_database') as comment
      from pg_database where starts_with(datname, ${prefix}) order by datname`;
    for (const { name } of left)
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
    if (left.length > 0) {
      const list = left
        .map(({ name, comment }) => `  ${name}: ${comment ?? 'created by an unknown caller'}`)
        .join('\n');
      throw new Error(
        `${left.length} test database(s) left behind (now dropped); dispose() every createTestDatabase():\n${list}`,
      );
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}
