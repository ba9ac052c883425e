import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accounts, alerts, apiKeys, openDatabase, webhookDeliveries, type Database } from '@domain-index/db';
import { migratedPgliteDataDir } from '@domain-index/db/pglite-templates';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from './support/run-cli';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

/** Two accounts' and a lone key's alerts, with fixed ids and times so that the lists are exact. */
async function seed(database: Database): Promise<void> {
  await database.db.insert(accounts).values([
    { id: 'acc_cli_one', email: 'one@example.com', planId: 'pro', createdAt: at(0) },
    { id: 'acc_cli_two', email: 'two@example.com', planId: 'pro', createdAt: at(0) },
  ]);
  await database.db.insert(apiKeys).values([
    { id: 'key_cli_alone', keyHash: 'a'.repeat(64), displayPrefix: 'dix_live_aaaa', planId: 'pro' },
    { id: 'key_cli_of_one', keyHash: 'b'.repeat(64), displayPrefix: 'dix_live_bbbb', planId: 'pro', accountId: 'acc_cli_one' },
  ]);
  const alert = { query: {}, queryString: 'type=listing.added', webhookPosition: 0, digestPosition: 0 };
  await database.db.insert(alerts).values([
    { ...alert, id: 'alt_cli_hook', accountId: 'acc_cli_one', name: 'Hook', webhookUrl: 'https://hooks.example.com/one', createdAt: at(1), updatedAt: at(1) },
    { ...alert, id: 'alt_cli_digest', accountId: 'acc_cli_one', name: 'Daily digest', emailDigest: 'daily', emailTo: 'one@example.com', digestDueAt: at(86_400), createdAt: at(2), updatedAt: at(2) },
    { ...alert, id: 'alt_cli_alone', keyId: 'key_cli_alone', name: 'Lone key', webhookUrl: 'https://hooks.example.com/alone', createdAt: at(3), updatedAt: at(3) },
    { ...alert, id: 'alt_cli_two', accountId: 'acc_cli_two', name: 'Other', webhookUrl: 'https://hooks.example.com/two', createdAt: at(4), updatedAt: at(4) },
  ]);
  const message = { kind: 'events', eventIds: [1], nextAttemptAt: at(10) };
  await database.db.insert(webhookDeliveries).values([
    { ...message, id: 'msg_cli_1', alertId: 'alt_cli_hook', status: 'delivered', attempts: 1, createdAt: at(10), deliveredAt: at(11) },
    { ...message, id: 'msg_cli_2', alertId: 'alt_cli_hook', status: 'pending', createdAt: at(20) },
    { ...message, id: 'msg_cli_3', alertId: 'alt_cli_alone', status: 'pending', createdAt: at(30) },
  ]);
}

const table = (...rows: string[]) => `${rows.join('\n')}\n`;
const ok = (stdout: string) => ({ status: 0, stdout, stderr: '' });
const refused = (line: string) => ({ status: 2, stdout: '', stderr: `domain-index: ${line}\n` });

// Each CLI run is a process that compiles and migrates: 3-10 s each on a loaded machine, most on PGlite.
for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`domain-index alerts on ${engine}`, { timeout: 600_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'di-alerts-'));
    let test: TestDatabase | undefined;
    let env: Record<string, string>;
    const cli = (...args: string[]): Promise<CliRun> => runCli(args, env);

    beforeAll(async () => {
      if (engine === 'postgres') {
        test = await createTestDatabase('postgres');
        await seed(test.database);
        env = { DATABASE_URL: test.url!, LOG_LEVEL: 'silent' };
      } else {
        // the embedded database has one process at a time: seeded here, then closed for the CLI
        await migratedPgliteDataDir(join(dir, 'data'));
        const database = await openDatabase({ dataDir: join(dir, 'data') });
        await seed(database);
        await database.close();
        env = { DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent' };
      }
    });
    afterAll(async () => {
      await test?.dispose();
      rmSync(dir, { recursive: true, force: true });
    });

    it('refuses a missing or double target, an unknown alert, account or key, and a key whose account owns its alerts, with one line and exit 2', async () => {
      expect(await cli('alerts', 'pause')).toEqual(refused("give an alert id, or --account ID or --key ID for all of an owner's alerts (one of them)"));
      expect(await cli('alerts', 'resume', 'alt_cli_hook', '--account', 'acc_cli_one')).toEqual(refused("give an alert id, or --account ID or --key ID for all of an owner's alerts (one of them)"));
      expect(await cli('alerts', 'list', '--account', 'acc_cli_one', '--key', 'key_cli_alone')).toEqual(refused('give --account or --key, not both'));
      expect(await cli('alerts', 'delete', 'alt_nope')).toEqual(refused('no alert with id alt_nope'));
      expect(await cli('alerts', 'pause', '--account', 'acc_nope')).toEqual(refused('no account with id acc_nope'));
      expect(await cli('alerts', 'list', '--key', 'key_nope')).toEqual(refused('no key with id key_nope'));
      expect(await cli('alerts', 'list', '--key', 'key_cli_of_one')).toEqual(refused('key key_cli_of_one belongs to account acc_cli_one, which owns its alerts: use --account acc_cli_one'));
      expect((await cli('alerts', 'frobnicate')).status).toBe(1);
    });

    it('lists every alert and an owner\'s; follows disable, revoke and enable; pauses, resumes and deletes by id or owner, with one line each', async () => {
      expect(await cli('alerts', 'list')).toEqual(
        ok(
          table(
            'ID              OWNER          STATE   WEBHOOK                          DIGEST                    LAST DELIVERY                     NAME',
            'alt_cli_two     acc_cli_two    active  https://hooks.example.com/two    -                         -                                 Other',
            'alt_cli_alone   key_cli_alone  active  https://hooks.example.com/alone  -                         pending 2026-01-01T00:00:30.000Z  Lone key',
            'alt_cli_digest  acc_cli_one    active  -                                daily to one@example.com  -                                 Daily digest',
            'alt_cli_hook    acc_cli_one    active  https://hooks.example.com/one    -                         pending 2026-01-01T00:00:20.000Z  Hook',
          ),
        ),
      );

      // a key without an account owns its alerts: revoking it pauses them and cancels what was queued
      expect(await cli('keys', 'revoke', 'key_cli_alone')).toEqual(ok('revoked key_cli_alone\n'));
      expect(await cli('alerts', 'list', '--key', 'key_cli_alone')).toEqual(
        ok(
          table(
            'ID             OWNER          STATE                 WEBHOOK                          DIGEST  LAST DELIVERY                                     NAME',
            'alt_cli_alone  key_cli_alone  paused (key revoked)  https://hooks.example.com/alone  -       cancelled 2026-01-01T00:00:30.000Z (key revoked)  Lone key',
          ),
        ),
      );
      expect(await cli('alerts', 'resume', 'alt_cli_alone')).toEqual(refused('cannot resume alt_cli_alone: its key key_cli_alone is revoked'));

      // disabling an account pauses its alerts; enabling it again resumes nothing
      expect(await cli('accounts', 'disable', 'acc_cli_one')).toEqual(ok('disabled acc_cli_one\n'));
      expect(await cli('alerts', 'resume', '--account', 'acc_cli_one')).toEqual(refused('cannot resume alt_cli_hook: its account acc_cli_one is disabled (accounts enable acc_cli_one first)'));
      expect(await cli('accounts', 'enable', 'acc_cli_one')).toEqual(ok('enabled acc_cli_one; its alerts stay paused until resumed\n'));
      const paused = table(
        'ID              OWNER        STATE                    WEBHOOK                        DIGEST                    LAST DELIVERY                                        NAME',
        'alt_cli_digest  acc_cli_one  paused (owner disabled)  -                              daily to one@example.com  -                                                    Daily digest',
        'alt_cli_hook    acc_cli_one  paused (owner disabled)  https://hooks.example.com/one  -                         cancelled 2026-01-01T00:00:20.000Z (owner disabled)  Hook',
      );
      expect(await cli('alerts', 'list', '--account', 'acc_cli_one')).toEqual(ok(paused));

      // the operator resumes and pauses, by owner or by id
      expect(await cli('alerts', 'resume', '--account', 'acc_cli_one')).toEqual(ok('resumed 2 alerts of acc_cli_one\n'));
      expect(await cli('alerts', 'resume', 'alt_cli_hook')).toEqual(ok('alt_cli_hook was running already\n'));
      expect(await cli('alerts', 'pause', 'alt_cli_hook')).toEqual(ok('paused alt_cli_hook\n'));
      expect(await cli('alerts', 'pause', 'alt_cli_hook')).toEqual(ok('alt_cli_hook was paused already\n'));
      expect(await cli('alerts', 'list', '--account', 'acc_cli_one')).toEqual(
        ok(
          table(
            'ID              OWNER        STATE                           WEBHOOK                        DIGEST                    LAST DELIVERY                                        NAME',
            'alt_cli_digest  acc_cli_one  active                          -                              daily to one@example.com  -                                                    Daily digest',
            'alt_cli_hook    acc_cli_one  paused (paused by an operator)  https://hooks.example.com/one  -                         cancelled 2026-01-01T00:00:20.000Z (owner disabled)  Hook',
          ),
        ),
      );
      expect(await cli('alerts', 'pause', '--account', 'acc_cli_two')).toEqual(ok('paused 1 alert of acc_cli_two\n'));

      expect(await cli('alerts', 'delete', 'alt_cli_hook')).toEqual(ok('deleted alt_cli_hook\n'));
      expect(await cli('alerts', 'delete', '--key', 'key_cli_alone')).toEqual(ok('deleted 1 alert of key_cli_alone\n'));
      expect(await cli('alerts', 'list')).toEqual(
        ok(
          table(
            'ID              OWNER        STATE                           WEBHOOK                        DIGEST                    LAST DELIVERY  NAME',
            'alt_cli_two     acc_cli_two  paused (paused by an operator)  https://hooks.example.com/two  -                         -              Other',
            'alt_cli_digest  acc_cli_one  active                          -                              daily to one@example.com  -              Daily digest',
          ),
        ),
      );
    });
  });
}
