import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, postgresTestEngine } from '@domain-index/db/testing';
import { describe, expect, it } from 'vitest';
import { checkDatabaseChoice, isLoopbackHost, loadConfig, publicUrlWarning } from '@domain-index/config/config';
import { logFormat } from '@domain-index/runtime/logger';
import { startServe } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';

const cli = fileURLToPath(new URL('../bin/domain-index.js', import.meta.url));

function serveWith(env: Record<string, string>, args = ['serve']) {
  return spawnSync(process.execPath, [cli, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('configuration', () => {
  it('defaults to the embedded database on 127.0.0.1:3000', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ databaseUrl: undefined, dataDir: './.data', port: 3000, host: '127.0.0.1', logLevel: 'info' });
    // above the 60 s idle timeout of common load balancers
    expect(config.keepAliveTimeoutMs).toBe(65_000);
  });

  it('listens on all interfaces by default when DATABASE_URL is set', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x' }).host).toBe('0.0.0.0');
  });

  it('builds dashboard links from PUBLIC_URL, else from the address serve listens on; sign-up is off by default', () => {
    expect(loadConfig({})).toMatchObject({ publicUrl: 'http://127.0.0.1:3000', signupOpen: false });
    expect(loadConfig({ PORT: '8080', HOST: '::1' }).publicUrl).toBe('http://[::1]:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/', SIGNUP: 'open' })).toMatchObject({ publicUrl: 'https://api.example.com', signupOpen: true });
  });

  it('builds links to 127.0.0.1 rather than a wildcard address, and says so in one warning line', () => {
    for (const env of [{ DATABASE_URL: 'postgres://u@db:5432/x' }, { HOST: '0.0.0.0', PORT: '8080' }, { HOST: '::' }]) {
      const config = loadConfig(env);
      expect(config.publicUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(config.publicUrlGuessed).toBe(true);
      expect(publicUrlWarning(config)).toBe(
        `domain-index: warning: PUBLIC_URL is not set and HOST is ${config.host}, so dashboard links use ${config.publicUrl}, which works only on this machine; set PUBLIC_URL to the address people use\n`,
      );
    }
    for (const env of [{}, { HOST: '10.1.2.3' }, { DATABASE_URL: 'postgres://u@db:5432/x', PUBLIC_URL: 'https://api.example.com' }]) {
      expect(loadConfig(env).publicUrlGuessed).toBe(false);
      expect(publicUrlWarning(loadConfig(env))).toBeUndefined();
    }
    expect(loadConfig({ HOST: '10.1.2.3' }).publicUrl).toBe('http://10.1.2.3:3000');
  });

  it('believes no X-Forwarded-For by default, else a number of proxies or the proxies at the listed addresses', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::/8, 192.0.2.7' }).trustProxy).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.7']);
  });

  it('keeps the listener open 5 s after SIGTERM behind a balancer (PostgreSQL), not on the embedded default', () => {
    expect(loadConfig({}).shutdownDelayMs).toBe(0);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x' }).shutdownDelayMs).toBe(5_000);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x', SHUTDOWN_DELAY_MS: '15000' }).shutdownDelayMs).toBe(15_000);
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '' })).toMatchObject({ port: 3000, logLevel: 'info' });
  });

  for (const [name, value] of [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://root@localhost/x'],
    ['REDIS_URL', 'http://localhost:6379'],
    ['LOG_LEVEL', 'loud'],
    ['COUNT_BUDGET_MS', '-5'],
    ['WORKERS', '0'],
    ['WORKERS', 'two'],
    ['KEEP_ALIVE_TIMEOUT_MS', '500'],
    ['PUBLIC_URL', 'ftp://example.com'],
    ['PUBLIC_URL', 'https://example.com/app'],
    ['SIGNUP', 'yes'],
    ['SHUTDOWN_DELAY_MS', '-1'],
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.1,'],
    ['LOG_FORMAT', 'xml'],
    ['SMTP_URL', 'http://mail.example.com'],
    ['WEBHOOK_ALLOWED_HOSTS', 'hooks.internal:99999'],
    ['WEBHOOK_ALLOWED_HOSTS', '127.0.0.1:9000,[127.0.0.1]:9000'],
  ] as const) {
    it(`refuses to start with a bad ${name} (${value}): one line naming it, non-zero exit`, () => {
      const result = serveWith({ [name]: value });
      expect(result.status).not.toBe(0);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^domain-index: invalid environment variable ${name}: `));
      expect(result.stdout).toBe('');
    });
  }

  it('refuses more than one worker without PostgreSQL or without Redis, naming WORKERS', () => {
    for (const env of [{ WORKERS: '2', EMBEDDED: '1' }, { WORKERS: '2', DATABASE_URL: 'postgres://u@127.0.0.1:1/x' }]) {
      const result = serveWith(env);
      expect(result.status).not.toBe(0);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/^domain-index: invalid environment variable WORKERS: more than 1 needs (DATABASE_URL|REDIS_URL)/);
    }
    expect(loadConfig({ WORKERS: '2', DATABASE_URL: 'postgres://u@db:5432/x', REDIS_URL: 'redis://r:6379' }).workers).toBe(2);
    // the other commands run with the same environment
    expect(loadConfig({ WORKERS: '2' }).workers).toBe(2);
    expect(loadConfig({}).workers).toBe(1);
  });

  it('refuses the embedded database for serve and sync when REDIS_URL, WORKERS > 1, a non-loopback HOST or NODE_ENV=production say production', () => {
    const refused = (env: Record<string, string>, scope: 'service' | 'one-shot' = 'service') => () => checkDatabaseChoice(loadConfig(env), scope);
    expect(refused({ REDIS_URL: 'redis://:secret@r:6379', HOST: '0.0.0.0' })).toThrow(
      'invalid environment variable DATABASE_URL: not set, though REDIS_URL and HOST=0.0.0.0 are set for production; set DATABASE_URL to the PostgreSQL URL, or EMBEDDED=1 to use the embedded database in ./.data on purpose',
    );
    expect(refused({ WORKERS: '4', HOST: '10.1.2.3', NODE_ENV: 'production', REDIS_URL: 'redis://r:6379' })).toThrow(
      /not set, though REDIS_URL, WORKERS=4, HOST=10\.1\.2\.3 and NODE_ENV=production are set for production;/,
    );
    expect(refused({ HOST: '::' })).toThrow(/not set, though HOST=:: is set for production;/);
    expect(refused({ NODE_ENV: 'production' })).toThrow(/not set, though NODE_ENV=production is set for production;/);
    // the one-shot commands (keys, accounts, migrate...) are also a laptop's: only NODE_ENV counts there
    expect(refused({ NODE_ENV: 'production' }, 'one-shot')).toThrow(/NODE_ENV=production is set/);
    expect(refused({ REDIS_URL: 'redis://r:6379', HOST: '0.0.0.0', WORKERS: '2' }, 'one-shot')).not.toThrow();
    // on purpose, or with a database, or on a laptop: no refusal
    expect(refused({ REDIS_URL: 'redis://r:6379', HOST: '0.0.0.0', NODE_ENV: 'production', EMBEDDED: '1' })).not.toThrow();
    expect(refused({ REDIS_URL: 'redis://r:6379', HOST: '0.0.0.0', NODE_ENV: 'production', DATABASE_URL: 'postgres://u@db:5432/x' })).not.toThrow();
    for (const host of ['127.0.0.1', '127.9.9.9', '::1', '[::1]', 'localhost']) expect(refused({ HOST: host, NODE_ENV: 'development' })).not.toThrow();
    expect(refused({})).not.toThrow();
    expect(() => loadConfig({ EMBEDDED: '1', DATABASE_URL: 'postgres://u@db:5432/x' })).toThrow(
      'invalid environment variable EMBEDDED: 1 asks for the embedded database, but DATABASE_URL is set; unset one of them',
    );
    expect(() => loadConfig({ EMBEDDED: 'yes' })).toThrow(/^invalid environment variable EMBEDDED: must be 1/);
    expect(['0.0.0.0', '10.0.0.1', '::', 'api.example.com', '192.168.1.1'].filter(isLoopbackHost)).toEqual([]);
  });

  it('serve and sync exit 2 with one line and create nothing in DATA_DIR when DATABASE_URL is missing from a production environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'di-refused-'));
    const dataDir = join(dir, 'data');
    try {
      // DATABASE_URL misspelt, as reported
      const env = { DATABSE_URL: 'postgres://u@127.0.0.1:1/x', REDIS_URL: 'redis://127.0.0.1:1', HOST: '0.0.0.0', DATA_DIR: dataDir };
      const line = `domain-index: invalid environment variable DATABASE_URL: not set, though REDIS_URL and HOST=0.0.0.0 are set for production; set DATABASE_URL to the PostgreSQL URL, or EMBEDDED=1 to use the embedded database in ${dataDir} on purpose\n`;
      for (const args of [['serve'], ['sync'], ['sync', '--once']]) {
        const result = serveWith(env, args);
        expect({ args, status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({ args, status: 2, stdout: '', stderr: line });
      }
      const production = serveWith({ NODE_ENV: 'production', DATA_DIR: dataDir }, ['keys', 'create', '--plan', 'free']);
      expect(production).toMatchObject({ status: 2, stdout: '' });
      expect(production.stderr).toMatch(/^domain-index: invalid environment variable DATABASE_URL: not set, though NODE_ENV=production is set for production; [^\n]+\n$/);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads the webhook sender's concurrency and timeouts, refusing a stage limit longer than the whole attempt's", () => {
    expect(loadConfig({})).toMatchObject({ webhookConcurrency: 128, webhookTimeouts: { totalMs: 15_000, connectMs: 3_000, responseMs: 10_000 } });
    expect(loadConfig({ WEBHOOK_CONCURRENCY: '100', WEBHOOK_TIMEOUT_MS: '30000', WEBHOOK_CONNECT_TIMEOUT_MS: '1000', WEBHOOK_RESPONSE_TIMEOUT_MS: '30000' })).toMatchObject({
      webhookConcurrency: 100,
      webhookTimeouts: { totalMs: 30_000, connectMs: 1_000, responseMs: 30_000 },
    });
    expect(() => loadConfig({ WEBHOOK_RESPONSE_TIMEOUT_MS: '20000' })).toThrow(
      'invalid environment variable WEBHOOK_RESPONSE_TIMEOUT_MS: must be at most WEBHOOK_TIMEOUT_MS (15000), the whole attempt\'s limit',
    );
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '2000' })).toThrow(/^invalid environment variable WEBHOOK_CONNECT_TIMEOUT_MS: must be at most WEBHOOK_TIMEOUT_MS \(2000\)/);
    expect(() => loadConfig({ WEBHOOK_CONCURRENCY: '0' })).toThrow('invalid environment variable WEBHOOK_CONCURRENCY: must be a whole number from 1 to 1000');
  });

  it('reads WEBHOOK_ALLOWED_HOSTS entries with and without a port, and names the first bad one', () => {
    const { webhookAllowList } = loadConfig({ WEBHOOK_ALLOWED_HOSTS: 'hooks.internal, 127.0.0.1:9000, [::1]:9000, host.example:8443, 10.0.0.0/8' });
    expect(webhookAllowList.names).toEqual([{ name: 'hooks.internal' }, { name: 'host.example', port: 8443 }]);
    expect(webhookAllowList.ranges.map((entry) => `${entry.range[0].toString()}/${entry.range[1]}${entry.port === undefined ? '' : `:${entry.port}`}`)).toEqual(['127.0.0.1/32:9000', '::1/128:9000', '10.0.0.0/8']);
    expect(() => loadConfig({ WEBHOOK_ALLOWED_HOSTS: 'hooks.internal:0' })).toThrow('invalid environment variable WEBHOOK_ALLOWED_HOSTS: "hooks.internal:0" has a port that is not a whole number from 1 to 65535');
    expect(() => loadConfig({ WEBHOOK_ALLOWED_HOSTS: 'https://hooks.internal:8443/' })).toThrow(/^invalid environment variable WEBHOOK_ALLOWED_HOSTS: "https:\/\/hooks\.internal:8443\/" is not a host name, an IP address or a CIDR, with an optional port/);
  });

  it('reads replicas of the primary, with their lag bound and check interval', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x' })).toMatchObject({ replicaUrls: [], replicaMaxLagMs: 2_000, replicaCheckIntervalMs: 500 });
    expect(
      loadConfig({
        DATABASE_URL: 'postgres://u@db:5432/x',
        DATABASE_REPLICA_URLS: 'postgres://u@r1:5432/x, postgresql://u@r2:5432/x',
        REPLICA_MAX_LAG_MS: '5000',
        REPLICA_CHECK_INTERVAL_MS: '250',
      }),
    ).toMatchObject({ replicaUrls: ['postgres://u@r1:5432/x', 'postgresql://u@r2:5432/x'], replicaMaxLagMs: 5_000, replicaCheckIntervalMs: 250 });
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://u@r1:5432/x' })).toThrow(/^invalid environment variable DATABASE_REPLICA_URLS: replicas need DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x', REPLICA_MAX_LAG_MS: '10' })).toThrow(/^invalid environment variable REPLICA_MAX_LAG_MS: /);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x', REPLICA_CHECK_INTERVAL_MS: 'often' })).toThrow(/^invalid environment variable REPLICA_CHECK_INTERVAL_MS: /);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x', ADMIN_PORT: '99999' })).toThrow(/^invalid environment variable ADMIN_PORT: /);
  });

  it('refuses a bad DATABASE_REPLICA_URLS with one line that never echoes a password', () => {
    const result = serveWith({ DATABASE_URL: 'postgres://u@127.0.0.1:1/x', DATABASE_REPLICA_URLS: 'postgres://u:hunter2@r1:5432/x,mysql://u:hunter2@r2/x' });
    expect(result.status).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^domain-index: invalid environment variable DATABASE_REPLICA_URLS: must be a comma-separated list of URLs/);
    expect(result.stderr).not.toContain('hunter2');
  });

  it('reads SMTP_URL and SMTP_FROM for mail, refusing a bad one in one line that never echoes the password', () => {
    expect(loadConfig({}).mail).toBeUndefined();
    expect(loadConfig({ SMTP_URL: 'smtps://mailer:s3cr%2Ft@smtp.example.com', SMTP_FROM: 'Domain Index <dashboard@example.com>' }).mail).toEqual({
      smtp: { host: 'smtp.example.com', port: 465, secure: true, user: 'mailer', password: 's3cr/t' },
      from: 'Domain Index <dashboard@example.com>',
    });
    const bad = [
      [{ SMTP_URL: 'smtp://mailer:hunter2@smtp.example.com/path', SMTP_FROM: 'a@example.com' }, /^domain-index: invalid environment variable SMTP_URL: must be a URL like smtps:\/\/user:password@smtp\.example\.com or smtp:\/\/smtp\.example\.com:587 \(no path or query\)$/],
      [{ SMTP_URL: 'smtp://mailer:hunter2@smtp.example.com' }, /^domain-index: invalid environment variable SMTP_FROM: must be set when SMTP_URL is/],
      [{ SMTP_URL: 'smtp://mailer:hunter2@smtp.example.com', SMTP_FROM: 'not an address' }, /^domain-index: invalid environment variable SMTP_FROM: must be one email address/],
    ] as const;
    for (const [env, line] of bad) {
      const result = serveWith(env);
      expect(result.status).not.toBe(0);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(line);
      expect(result.stderr).not.toContain('hunter2');
    }
  });

  it('writes JSON logs unless LOG_FORMAT or a terminal says pretty', () => {
    expect(loadConfig({}).logFormat).toBeUndefined();
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(logFormat(undefined, false)).toBe('json');
    expect(logFormat(undefined, true)).toBe('pretty');
    expect(logFormat('json', true)).toBe('json');
    expect(logFormat('pretty', false)).toBe('pretty');
  });

  it('never echoes a DATABASE_URL password in its error line', () => {
    const result = serveWith({ DATABASE_URL: 'postgres://user:hunter2@127.0.0.1:1/x' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('cannot open the PostgreSQL at 127.0.0.1:1/x');
    expect(result.stderr).not.toContain('hunter2');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

// With PostgreSQL, where serve seeds nothing and starts in a few seconds.
const withoutPostgres = postgresTestEngine().skip;

describe.skipIf(withoutPostgres)('serve on a wildcard address without PUBLIC_URL', () => {
  it('announces links to 127.0.0.1 on stdout and warns once on stderr that PUBLIC_URL should be set', { timeout: 240_000 }, async () => {
    const test = await createTestDatabase('postgres');
    const port = await freePort();
    const server = startServe({ DATABASE_URL: test.url!, HOST: '0.0.0.0', PORT: String(port), LOG_LEVEL: 'silent' });
    try {
      await until('it listens', () => {
        if (server.child.exitCode !== null) throw new Error(`serve exited early:\n${server.output()}`);
        return server.output().includes('PUBLIC_URL is not set');
      }, 60_000);
      expect(server.stdout()).toContain(`dashboard: http://127.0.0.1:${port}/dashboard`);
      expect(server.stdout()).not.toContain('PUBLIC_URL');
      const warnings = server.output().split('\n').filter((line) => line.includes('PUBLIC_URL'));
      expect(warnings).toEqual([
        `domain-index: warning: PUBLIC_URL is not set and HOST is 0.0.0.0, so dashboard links use http://127.0.0.1:${port}, which works only on this machine; set PUBLIC_URL to the address people use`,
      ]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await test.dispose();
    }
  });
});
