import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migratedPgliteDataDir } from '@domain-index/db/pglite-templates';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli';

const dir = mkdtempSync(join(tmpdir(), 'di-accounts-'));
const env = { DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent', PUBLIC_URL: 'https://api.example.com' };
const LINK = /^https:\/\/api\.example\.com\/dashboard\/set-password\/[A-Za-z0-9_-]{43}\n$/;

// Each CLI run starts a process that compiles and migrates: seven of them take 20-40 s on a loaded machine.
describe('domain-index accounts', { timeout: 120_000 }, () => {
  // a migrated database, as the first command leaves one (cli-keys.test.ts starts from nothing)
  beforeAll(() => migratedPgliteDataDir(env.DATA_DIR));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates an account and prints one line, a one-time link built from PUBLIC_URL; lists, re-plans, re-links and disables it', async () => {
    const created = await runCli(['accounts', 'create', '--email', 'Owner@Example.com', '--plan', 'pro'], env);
    expect(created.status).toBe(0);
    expect(created.stdout).toMatch(LINK);
    const list = await runCli(['accounts', 'list'], env);
    const id = /^(acc_\S+)\s+owner@example\.com\s+pro\s+\S+\s+no password yet$/m.exec(list.stdout)?.[1];
    expect(id, list.stdout).toBeDefined();
    expect(await runCli(['accounts', 'plan', id!, 'free'], env)).toMatchObject({ status: 0, stdout: `${id!} is on plan free\n` });
    const link = await runCli(['accounts', 'reset-link', id!], env);
    expect(link.stdout).toMatch(LINK);
    expect(link.stdout).not.toBe(created.stdout);
    // by the address the person gives, as the forgot-password page tells them to: any case
    const byEmail = await runCli(['accounts', 'reset-link', ' OWNER@example.com '], env);
    expect(byEmail).toMatchObject({ status: 0, stderr: '' });
    expect(byEmail.stdout).toMatch(LINK);
    expect(byEmail.stdout).not.toBe(link.stdout);
    expect(await runCli(['accounts', 'reset-link', 'nobody@example.com'], env)).toMatchObject({ status: 2, stdout: '', stderr: 'domain-index: no account with the email nobody@example.com\n' });
    expect(await runCli(['accounts', 'disable', id!], env)).toMatchObject({ status: 0, stdout: `disabled ${id!}\n` });
    expect((await runCli(['accounts', 'list'], env)).stdout).toMatch(new RegExp(`${id!}\\s+owner@example\\.com\\s+free\\s+\\S+\\s+disabled `));
    expect(await runCli(['accounts', 'reset-link', id!], env)).toMatchObject({ status: 2, stdout: '', stderr: `domain-index: account ${id!} is disabled\n` });
  });

  it('builds links to 127.0.0.1 when HOST is a wildcard and PUBLIC_URL unset, with one warning on stderr and the link alone on stdout', async () => {
    const wildcard = { DATA_DIR: env.DATA_DIR, LOG_LEVEL: 'silent', HOST: '0.0.0.0' };
    const warning =
      'domain-index: warning: PUBLIC_URL is not set and HOST is 0.0.0.0, so dashboard links use http://127.0.0.1:3000, which works only on this machine; set PUBLIC_URL to the address people use';
    const created = await runCli(['accounts', 'create', '--email', 'wildcard@example.com'], wildcard);
    expect(created.status).toBe(0);
    expect(created.stdout).toMatch(/^http:\/\/127\.0\.0\.1:3000\/dashboard\/set-password\/[A-Za-z0-9_-]{43}\n$/);
    expect(created.stderr.split('\n').filter((line) => line.includes('PUBLIC_URL'))).toEqual([warning]);
    const id = /^(acc_\S+)\s+wildcard@example\.com/m.exec((await runCli(['accounts', 'list'], env)).stdout)?.[1];
    const link = await runCli(['accounts', 'reset-link', id!], wildcard);
    expect(link.stdout).toMatch(/^http:\/\/127\.0\.0\.1:3000\/dashboard\/set-password\/[A-Za-z0-9_-]{43}\n$/);
    expect(link.stderr).toBe(`${warning}\n`);
  });

  it('refuses a bad email, a taken email, an unknown plan and an unknown account with one line each', async () => {
    expect(await runCli(['accounts', 'create', '--email', 'not-an-email'], env)).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'domain-index: --email must be an email address like name@example.com\n',
    });
    await runCli(['accounts', 'create', '--email', 'taken@example.com'], env);
    expect(await runCli(['accounts', 'create', '--email', 'TAKEN@example.com'], env)).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'domain-index: an account with the email taken@example.com exists already\n',
    });
    expect(await runCli(['accounts', 'create', '--email', 'gold@example.com', '--plan', 'gold'], env)).toMatchObject({
      status: 2,
      stderr: 'domain-index: unknown plan gold; plans: free, pro\n',
    });
    expect(await runCli(['accounts', 'disable', 'acc_nope'], env)).toMatchObject({ status: 2, stderr: 'domain-index: no account with id acc_nope\n' });
  });
});
