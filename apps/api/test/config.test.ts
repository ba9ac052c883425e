import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';

const cli = fileURLToPath(new URL('../bin/domain-index.js', import.meta.url));

function serveWith(env: Record<string, string>) {
  return spawnSync(process.execPath, [cli, 'serve'], {
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
    for (const env of [{ WORKERS: '2' }, { WORKERS: '2', DATABASE_URL: 'postgres://u@127.0.0.1:1/x' }]) {
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

  it('never echoes a DATABASE_URL password in its error line', () => {
    const result = serveWith({ DATABASE_URL: 'postgres://user:hunter2@127.0.0.1:1/x' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('cannot open the PostgreSQL at 127.0.0.1:1/x');
    expect(result.stderr).not.toContain('hunter2');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
