import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, databaseUrl, dropDatabase, testDatabaseUrl } from './support/release';
import { freePort, repoRoot, run, waitFor } from './support/tools';

const withDatabase = testDatabaseUrl !== undefined;
if (!withDatabase && process.env.CI === 'true')
  throw new Error('CI=true but TEST_DATABASE_URL is not set');

/** A unit's command line, with the release directory where the unit has /opt/domain-index. */
function execStart(unit: string, release: string): string[] {
  const line = /^ExecStart=(.*)$/m.exec(
    readFileSync(join(repoRoot, 'deploy/systemd', unit), 'utf8'),
  )![1]!;
  const [node, ...args] = line.split(' ');
  expect(node).toBe('/usr/bin/node');
  return [process.execPath, ...args.map((arg) => arg.replace('/opt/domain-index', release))];
}

describe.skipIf(!withDatabase)(
  'the release directory the systemd units run (apps/cli/scripts/release.ts)',
  () => {
    const parent = mkdtempSync(join(tmpdir(), 'di-release-'));
    const release = join(parent, 'domain-index');
    let database: string;

    beforeAll(async () => {
      // pnpm as this suite was started by it, else the pinned one
      const pnpm =
        process.env.npm_execpath?.includes('pnpm') === true
          ? [process.execPath, process.env.npm_execpath]
          : ['npx', '-y', 'pnpm@10.34.9'];
      await run(
        pnpm[0]!,
        [...pnpm.slice(1), '--filter', '@domain-index/cli', 'run', 'release', release],
        { timeoutMs: 300_000 },
      );
      database = await createDatabase('release');
    }, 360_000);
    afterAll(async () => {
      if (database) await dropDatabase(database);
      rmSync(parent, { recursive: true, force: true });
    });

    it('holds the bundle and production dependencies only: no type checker, no test or lint tools', () => {
      expect(existsSync(join(release, 'apps/cli/dist/domain-index.js'))).toBe(true);
      expect(existsSync(join(release, 'packages/db/drizzle'))).toBe(true);
      // (tsx is there: the checkout's bin entries, which `pnpm start` runs, register it; the bundle never loads it)
      for (const devOnly of ['typescript', 'vitest', 'eslint', 'playwright-core', 'drizzle-kit'])
        expect(existsSync(join(release, 'node_modules', devOnly)), devOnly).toBe(false);
    });

    it('refuses to assemble over a directory that is not empty', async () => {
      const failed = await run('npx', [
        '-y',
        'pnpm@10.34.9',
        '--filter',
        '@domain-index/cli',
        'run',
        'release',
        release,
      ]).then(
        () => '',
        (error: unknown) => String(error),
      );
      expect(failed).toContain('is not empty: a release is assembled in a new or empty directory');
    });

    it("runs the units' commands from it alone: migrate, then serve answers a search", async () => {
      const env = {
        PATH: process.env.PATH,
        DATABASE_URL: databaseUrl(database),
        LOG_FORMAT: 'json',
        SHUTDOWN_DELAY_MS: '0',
      };
      const [node, ...migrate] = execStart('domain-index-migrate.service', release);
      await run(node!, migrate, { cwd: release, env });
      await run(node!, [...migrate.slice(0, -1), 'seed', '--rows', '200'], { cwd: release, env });
      const [, ...serve] = execStart('domain-index-serve@.service', release);
      const port = await freePort();
      const child = spawn(node!, serve, {
        cwd: release,
        env: { ...env, HOST: '127.0.0.1', PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      try {
        await waitFor(
          'serve from the release ready',
          async () => {
            if (child.exitCode !== null)
              throw new Error(`serve exited with ${child.exitCode}: ${output}`);
            return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))
              ?.status === 200
              ? true
              : undefined;
          },
          60_000,
        );
        const key = (
          await run(node!, [...migrate.slice(0, -1), 'keys', 'create', '--plan', 'pro'], {
            cwd: release,
            env,
          })
        ).stdout.trim();
        const search = await fetch(`http://127.0.0.1:${port}/api/v1/domains?status=all&limit=10`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(search.status).toBe(200);
        expect(((await search.json()) as { data: unknown[] }).data).toHaveLength(10);
        // nothing was compiled at start: the bundle ran, not tsx
        expect(output).not.toMatch(/tsx|\.ts:\d/);
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    });
  },
);
