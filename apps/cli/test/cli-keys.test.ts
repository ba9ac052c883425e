import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiKeys, auditEvents, eq, openDatabase } from '@domain-index/db';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';
import { runCli } from './support/run-cli';

const dir = mkdtempSync(join(tmpdir(), 'di-keys-'));
// Starts empty: the first command here makes the database (initdb, every migration) and still
// prints only the key. The other CLI suites start from a copy of a migrated one.
const env = { DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent' };
const KEY = /^dix_(live|test)_[0-9A-Za-z]{38}$/;

/**
 * Starts `serve`, reads stdout until it listens, and stops it with SIGTERM. A start-up failure
 * or a stop that hangs fails at once, with the process's log.
 */
async function serveOnce(
  dataDir: string,
): Promise<{ stdout: string; code: number | null; key: string | undefined; status: number; link: string | undefined; linkStatus: number | undefined }> {
  const port = await freePort();
  const server = startServe({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' });
  const failure = (what: string) => new Error(`${what}\n${server.output()}`);
  try {
    await until('it listens', () => {
      if (server.child.exitCode !== null) throw failure(`serve exited with ${server.child.exitCode} before listening`);
      return server.stdout().includes('listening on');
    });
    const key = /(dix_live_\w+)/.exec(server.stdout())?.[1];
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/stats`, { headers: { Authorization: `Bearer ${key ?? ''}` } });
    const link = /(http:\/\/127\.0\.0\.1:\d+\/dashboard\/set-password\/[\w-]{43})\n/.exec(server.stdout())?.[1];
    const linkStatus = link === undefined ? undefined : (await fetch(link)).status;
    server.child.kill('SIGTERM');
    const code = await Promise.race([server.exited, sleep(10_000, 'still running' as const)]);
    if (code === 'still running') throw failure('serve did not exit within 10 s of SIGTERM');
    return { stdout: server.stdout(), code, key, status: response.status, link, linkStatus };
  } finally {
    server.child.kill('SIGKILL');
  }
}

describe('domain-index keys and the demo key', () => {
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a key and prints only the key on stdout', async () => {
    const run = await runCli(['keys', 'create', '--plan', 'free', '--name', 'ci job'], env);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^dix_live_[0-9A-Za-z]{38}\n$/);
    expect(run.stdout.trim()).toMatch(KEY);
  });

  it('lists keys without ever showing one, and revokes by id', async () => {
    const created = await runCli(['keys', 'create', '--plan', 'pro', '--env', 'test'], env);
    const key = created.stdout.trim();
    const list = await runCli(['keys', 'list'], env);
    expect(list.status).toBe(0);
    expect(list.stdout).not.toContain(key);
    expect(list.stdout).toContain(key.slice(0, 14));
    const id = new RegExp(`^(key_\\w+)\\s+${key.slice(0, 14)}`, 'm').exec(list.stdout)?.[1];
    expect(id).toBeDefined();
    const revoke = await runCli(['keys', 'revoke', id!], env);
    expect(revoke).toMatchObject({ status: 0, stdout: `revoked ${id!}\n` });
    expect((await runCli(['keys', 'list'], env)).stdout).toMatch(new RegExp(`${id!}.*revoked .*\\(revoked by an operator\\)`));
    const again = await runCli(['keys', 'revoke', id!], env);
    expect(again).toMatchObject({ status: 2, stderr: `domain-index: no active key with id ${id!}\n` });
  });

  it("creates an account's key with --account, on the account's plan, and refuses an unknown account with one line", async () => {
    const made = await runCli(['accounts', 'create', '--email', 'digests@example.com', '--plan', 'pro'], env);
    const account = /^created (acc_\S+) /m.exec(made.stderr)?.[1];
    expect(account).toBeDefined();
    const run = await runCli(['keys', 'create', '--account', account!, '--name', 'digests'], env);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^dix_live_[0-9A-Za-z]{38}\n$/);
    const id = new RegExp(`^created (key_\\S+) for account ${account!} \\(digests@example\\.com, plan pro\\); the key above is shown only now\n$`).exec(run.stderr)?.[1];
    expect(id, run.stderr).toBeDefined();
    const database = await openDatabase({ dataDir: env.DATA_DIR });
    try {
      const [key] = await database.db.select().from(apiKeys).where(eq(apiKeys.id, id!));
      expect(key).toMatchObject({ accountId: account, planId: 'pro', name: 'digests' });
      const audit = await database.db.select().from(auditEvents).where(eq(auditEvents.keyId, id!));
      expect(audit.map((entry) => [entry.kind, entry.accountId, entry.ip])).toEqual([['key_created', account, null]]);
    } finally {
      await database.close();
    }

    expect(await runCli(['keys', 'create', '--account', 'acc_nope'], env)).toEqual({ status: 2, stdout: '', stderr: 'domain-index: no account with id acc_nope; accounts list shows them\n' });
    expect(await runCli(['keys', 'create', '--account', account!, '--plan', 'free'], env)).toEqual({
      status: 2,
      stdout: '',
      stderr: `domain-index: --plan goes without --account: an account's keys are on its plan (accounts plan ${account!} PLAN changes it)\n`,
    });
    expect(await runCli(['keys', 'create'], env)).toEqual({ status: 2, stdout: '', stderr: "domain-index: give --plan for a key of its own, or --account for an account's key\n" });
  });

  it('refuses an unknown plan with one line', async () => {
    const run = await runCli(['keys', 'create', '--plan', 'gold'], env);
    expect(run).toMatchObject({ status: 2, stdout: '', stderr: 'domain-index: unknown plan gold; plans: free, pro\n' });
  });

  it('creates a live demo key on the pro plan on the first embedded start only, prints it once with the dashboard and a demo account link, and says on a restart how to get a key', async () => {
    const dataDir = join(dir, 'fresh');
    const first = await serveOnce(dataDir);
    expect(first.key).toMatch(KEY);
    expect(first.stdout).toContain('Demo API key (live, pro plan; shown once, only its hash is stored):');
    expect(first.status).toBe(200);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Dashboard: http:\/\/127\.0\.0\.1:\d+\/dashboard$/m);
    expect(first.linkStatus).toBe(200);
    const second = await serveOnce(dataDir);
    expect(second.key).toBeUndefined();
    expect(second.stdout).not.toContain('Demo API key');
    expect(second.stdout).toContain(
      'A demo key was created on the first start and shown then (only its hash is stored); create another in the dashboard (Keys, then "Create key"), or stop the server and run `pnpm domain-index keys create --plan pro`.',
    );
    // the demo account's password was never set: a new link, and the first one no longer works
    expect(second.linkStatus).toBe(200);
    expect(second.link).not.toBe(first.link);
    expect(second.stdout).toMatch(/listening on .*; dashboard: http:\/\/127\.0\.0\.1:\d+\/dashboard/);
  });
});
