import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cli,
  createDatabase,
  databaseUrl,
  dropDatabase,
  psql,
  startServe,
  testDatabaseUrl,
  type RunningServe,
} from './support/release';
import { findProgram, repoRoot, requireTool, run } from './support/tools';

// docs/operating.md's backup, restore and upgrade, for real: a database at the previous
// release's schema, with data, dumped with pg_dump, restored with pg_restore into a new
// database, migrated by this release, then served.
const runs =
  requireTool('TEST_DATABASE_URL (PostgreSQL)', testDatabaseUrl !== undefined) &&
  requireTool(
    'pg_dump and pg_restore (Debian package postgresql-client)',
    findProgram('pg_dump') !== undefined && findProgram('pg_restore') !== undefined,
  );

const migrations = join(repoRoot, 'packages/db/drizzle');
const journal = (
  JSON.parse(readFileSync(join(migrations, 'meta/_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  }
).entries;
/**
 * The previous release's schema. No release is tagged yet, so its stand-in is every migration
 * but the two newest: this release's migrate must bring a copy of it forward.
 */
const previous = journal.slice(0, -2);
const newest = journal.slice(-2);

/**
 * The SQL that brings an empty database to the previous release's schema, as its migrate
 * did: each file in order, recorded in drizzle's table with the file's hash and journal time.
 */
function previousReleaseSchema(): string {
  const parts = ['BEGIN;'];
  for (const { tag, when } of previous) {
    const text = readFileSync(join(migrations, `${tag}.sql`), 'utf8');
    parts.push(text.replaceAll('--> statement-breakpoint', ';'), ';');
    parts.push('CREATE SCHEMA IF NOT EXISTS drizzle;');
    parts.push(
      'CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint);',
    );
    parts.push(
      `INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ('${createHash('sha256').update(text).digest('hex')}', ${when});`,
    );
  }
  parts.push('COMMIT;');
  return parts.join('\n');
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** A live key in the API's format (packages/accounts/src/api-key.ts), made without its code. */
function liveKey(): string {
  let body = 'dix_live_';
  for (const byte of randomBytes(32)) body += BASE62[byte % 62]!;
  let sum = '';
  for (let rest = crc32(body), i = 0; i < 6; i += 1, rest = Math.floor(rest / 62))
    sum = BASE62[rest % 62]! + sum;
  return body + sum;
}

describe.skipIf(!runs)('backup at the previous release, restore, upgrade', () => {
  const dir = mkdtempSync(join(tmpdir(), 'di-upgrade-'));
  const databases: string[] = [];
  let serve: RunningServe | undefined;

  afterAll(async () => {
    if (serve && serve.process.exitCode === null) {
      serve.process.kill('SIGTERM');
      await serve.exited;
    }
    for (const name of databases) await dropDatabase(name);
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the keys, the listings and the cursor signing key through pg_dump, pg_restore and migrate', async () => {
    const old = await createDatabase('previous');
    databases.push(old);
    await psql(previousReleaseSchema(), old);
    const key = liveKey();
    const cursorKey = randomBytes(32).toString('base64url');
    const endsAt = new Date(Date.now() + 3 * 86_400_000).toISOString();
    await psql(
      [
        `INSERT INTO api_keys (id, key_hash, display_prefix, name, plan_id) VALUES ('key_upgradetest0001', '${createHash('sha256').update(key).digest('hex')}', '${key.slice(0, 14)}', 'kept through the upgrade', 'pro');`,
        `INSERT INTO service_secrets (name, value) VALUES ('cursor-signing-key', '${cursorKey}');`,
        `INSERT INTO listings (domain_name, tld, status, source, length, has_hyphens, has_numbers, word_count, index_score, current_bid, bid_count, auction_end_time, updated_at)
           VALUES ('keptthrough.com', 'com', 'auction', 'bidhaus', 11, false, false, 2, 40, 120.00, 3, '${endsAt}', now());`,
      ].join('\n'),
      old,
    );

    // the backup: a custom-format dump, restored into a database the old one never touched
    const dump = join(dir, 'previous.dump');
    await run('pg_dump', [
      '--format=custom',
      '--no-owner',
      '--no-unlogged-table-data',
      `--file=${dump}`,
      databaseUrl(old),
    ]);
    const restored = await createDatabase('restored');
    databases.push(restored);
    await run('pg_restore', [
      '--no-owner',
      '--exit-on-error',
      `--dbname=${databaseUrl(restored)}`,
      dump,
    ]);
    await dropDatabase(old);

    const env = { DATABASE_URL: databaseUrl(restored) };
    const migrated = await run(
      process.execPath,
      [join(repoRoot, 'apps/cli/bin/domain-index.js'), 'migrate'],
      { env: { ...process.env, ...env } },
    );
    const said = migrated.stdout + migrated.stderr;
    expect(said).toContain(`applied 2 migrations`);
    for (const { tag } of newest) expect(said).toContain(tag);
    expect(await cli(['migrate'], env)).toContain('no');

    serve = await startServe({ ...env, SHUTDOWN_DELAY_MS: '0' });
    const base = `http://127.0.0.1:${serve.port}/api/v1`;
    const headers = { authorization: `Bearer ${key}` };
    const lookup = await fetch(`${base}/domains/keptthrough.com`, { headers });
    expect(lookup.status).toBe(200);
    expect(
      ((await lookup.json()) as { data: { domain_name: string; bid_count: number } }).data,
    ).toMatchObject({ domain_name: 'keptthrough.com', bid_count: 3 });
    // the plan came through the new migration with its new limits
    expect(await psql(`SELECT watch_limit FROM plans WHERE id = 'pro';`, restored)).toBe('10000');
    // the cursor signing key was restored, not made anew: cursors handed out before still work
    expect(
      await psql(`SELECT value FROM service_secrets WHERE name = 'cursor-signing-key';`, restored),
    ).toBe(cursorKey);
    const unknown = await fetch(`${base}/domains/keptthrough.com`, {
      headers: { authorization: `Bearer ${liveKey()}` },
    });
    expect(unknown.status).toBe(401);
  });
});
