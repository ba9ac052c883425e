import { createKey, listKeys, revokeKey, UnknownPlanError } from '@domain-index/accounts/key-store';
import { createAccountKey } from '@domain-index/accounts/account-keys';
import { findAccount } from '@domain-index/accounts/account-store';
import type { KeyEnvironment } from '@domain-index/accounts/api-key';
import { systemClock } from '@domain-index/runtime/clock';
import type { Config } from '@domain-index/config/config';
import { CliError } from '../cli-error';
import { openMigratedDatabase } from '../runtime';
import { io } from '../embedded/cli-io';

/**
 * `keys create`: prints the new key on stdout, once, and nothing else there. With `--account`,
 * the key is that account's (on its plan, in its dashboard and audit log): what email digests
 * need; without, a key of its own on `--plan`.
 */
export async function keysCreateCommand(
  config: Config,
  options: { plan?: string; name?: string; env: KeyEnvironment; account?: string },
): Promise<void> {
  if (options.account !== undefined) return accountKeyCreate(config, { ...options, account: options.account });
  if (options.plan === undefined) throw new CliError('give --plan for a key of its own, or --account for an account\'s key');
  const database = await openMigratedDatabase(config);
  try {
    const { id, key } = await createKey(database, { planId: options.plan, name: options.name, environment: options.env });
    io().stdout.write(`${key}\n`);
    io().stderr.write(`created ${id} on plan ${options.plan}; the key above is shown only now\n`);
  } catch (error) {
    if (error instanceof UnknownPlanError) throw new CliError(error.message);
    throw error;
  } finally {
    await database.close();
  }
}

/** `keys create --account ID`: a live key of the account, on its plan, with its audit entry. */
async function accountKeyCreate(config: Config, options: { plan?: string; name?: string; env: KeyEnvironment; account: string }): Promise<void> {
  if (options.plan !== undefined) throw new CliError(`--plan goes without --account: an account's keys are on its plan (accounts plan ${options.account} PLAN changes it)`);
  if (options.env !== 'live') throw new CliError("--env test goes without --account: an account's keys are live keys");
  const database = await openMigratedDatabase(config);
  try {
    const account = await findAccount(database, options.account);
    if (account === undefined) throw new CliError(`no account with id ${options.account}; accounts list shows them`);
    if (account.disabledAt !== null) throw new CliError(`account ${account.id} is disabled: its keys are refused`);
    const { id, key } = await createAccountKey(database, { accountId: account.id, name: options.name, expiresInDays: null, at: systemClock.now(), ip: null });
    io().stdout.write(`${key}\n`);
    io().stderr.write(`created ${id} for account ${account.id} (${account.email}, plan ${account.planId}); the key above is shown only now\n`);
  } finally {
    await database.close();
  }
}

/** `keys list`: every key with its state; never the key itself. */
export async function keysListCommand(config: Config): Promise<void> {
  const database = await openMigratedDatabase(config);
  try {
    const keys = await listKeys(database);
    const when = (date: Date | null) => (date === null ? '-' : date.toISOString());
    const rows = keys.map((key) => [
      key.id,
      key.displayPrefix,
      key.planId,
      key.name ?? '-',
      when(key.createdAt),
      when(key.lastUsedAt),
      key.revokedAt === null ? 'active' : `revoked ${when(key.revokedAt)} (${key.revokedReason ?? 'no reason'})`,
    ]);
    const header = ['ID', 'PREFIX', 'PLAN', 'NAME', 'CREATED', 'LAST USED', 'STATE'];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    for (const row of [header, ...rows]) {
      io().stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()}\n`);
    }
  } finally {
    await database.close();
  }
}

/** `keys revoke ID`: effective on the next request on every instance (keys are not cached). */
export async function keysRevokeCommand(config: Config, id: string): Promise<void> {
  const database = await openMigratedDatabase(config);
  try {
    const revoked = await revokeKey(database, id, 'revoked by an operator', systemClock.now());
    if (!revoked) throw new CliError(`no active key with id ${id}`);
    io().stdout.write(`revoked ${id}\n`);
  } finally {
    await database.close();
  }
}
