import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, plans } from '@domain-index/db';
import { migratedPgliteDataDir } from '@domain-index/db/pglite-templates';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli';

const dir = mkdtempSync(join(tmpdir(), 'di-plans-'));
const env = { DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent' };

describe('domain-index plans', () => {
  // a migrated database, as the first command leaves one (cli-keys.test.ts starts from nothing)
  beforeAll(() => migratedPgliteDataDir(env.DATA_DIR));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the plans with their limits', async () => {
    expect(await runCli(['plans', 'list'], env)).toEqual({
      status: 0,
      stdout: [
        'ID    REQUESTS  WINDOW  ALERTS  DESCRIPTION',
        'free  60        1h      2       Free: 60 requests per hour',
        'pro   1000      1h      50      Pro: 1,000 requests per hour',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it("changes a plan's limits, says what it was and when it applies, and lists it changed", async () => {
    expect(await runCli(['plans', 'set', 'pro', '--requests-per-hour', '2000', '--alerts-limit', '60'], env)).toEqual({
      status: 0,
      stdout: 'plan pro: 2000 requests per 1h, 60 alerts (was 1000 and 50)\n',
      stderr: 'its description still reads "Pro: 1,000 requests per hour"; --description changes it\nevery instance applies the new limits within 30 s\n',
    });
    expect(await runCli(['plans', 'set', 'pro', '--description', 'Pro: 2,000 requests per hour'], env)).toEqual({
      status: 0,
      stdout: 'plan pro: 2000 requests per 1h, 60 alerts (was 2000 and 60)\n',
      stderr: 'every instance applies the new limits within 30 s\n',
    });
    expect((await runCli(['plans', 'list'], env)).stdout).toContain('pro   2000      1h      60      Pro: 2,000 requests per hour\n');
  });

  it('refuses an unknown plan, nothing to change and a bad number with one line and exit 2 (commander: 1)', async () => {
    expect(await runCli(['plans', 'set', 'gold', '--alerts-limit', '5'], env)).toEqual({ status: 2, stdout: '', stderr: 'domain-index: unknown plan gold; plans: free, pro\n' });
    expect(await runCli(['plans', 'set', 'pro'], env)).toEqual({
      status: 2,
      stdout: '',
      stderr: 'domain-index: nothing to change: give --requests-per-hour, --alerts-limit or --description\n',
    });
    const bad = await runCli(['plans', 'set', 'pro', '--requests-per-hour', '0'], env);
    expect(bad).toMatchObject({ status: 1, stdout: '' });
    expect(bad.stderr).toContain("option '--requests-per-hour <n>' argument '0' is invalid. must be a whole number from 1 to 1000000000");
  });

  it('sets no hourly limit on a plan counted over another window', async () => {
    expect((await runCli(['migrate'], env)).status).toBe(0);
    const database = await openDatabase({ dataDir: env.DATA_DIR });
    try {
      await database.db.insert(plans).values({ id: 'burst', requestsPerWindow: 10, windowSeconds: 60, description: 'Burst: 10 a minute' });
    } finally {
      await database.close();
    }
    expect((await runCli(['plans', 'list'], env)).stdout).toContain('burst  10        60s     2       Burst: 10 a minute\n');
    expect(await runCli(['plans', 'set', 'burst', '--requests-per-hour', '600'], env)).toEqual({
      status: 2,
      stdout: '',
      stderr: 'domain-index: plan burst counts requests per 60 s, not per hour; --requests-per-hour changes hourly plans only\n',
    });
  });
});
