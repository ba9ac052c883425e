import { createAccount, disableAccount, EmailTakenError, enableAccount, findAccount, findAccountByEmail, issueLink, listAccounts, normaliseEmail, setAccountPlan } from '@domain-index/accounts/account-store';
import { setPasswordLink } from '@domain-index/accounts/demo-account';
import { DASHBOARD } from '@domain-index/api/dashboard/layout';
import { UnknownPlanError } from '@domain-index/accounts/key-store';
import { systemClock } from '@domain-index/runtime/clock';
import { publicUrlWarning, type Config } from '@domain-index/config/config';
import { CliError } from '../cli-error';
import { openMigratedDatabase } from '../runtime';
import type { Database } from '@domain-index/db';
import { io } from '../embedded/cli-io';

async function withDatabase(config: Config, run: (database: Database) => Promise<void>): Promise<void> {
  const database = await openMigratedDatabase(config);
  try {
    await run(database);
  } catch (error) {
    if (error instanceof UnknownPlanError || error instanceof EmailTakenError) throw new CliError(error.message);
    throw error;
  } finally {
    await database.close();
  }
}

/** `accounts create`: prints the one-time set-password link on stdout, and nothing else there. */
export function accountsCreateCommand(config: Config, options: { email: string; plan: string }): Promise<void> {
  const email = normaliseEmail(options.email);
  if (email === undefined) throw new CliError(`--email must be an email address like name@example.com`);
  return withDatabase(config, async (database) => {
    const at = systemClock.now();
    const account = await createAccount(database, { email, planId: options.plan, at });
    const link = setPasswordLink(`${config.publicUrl}${DASHBOARD}`, await issueLink(database, account.id, at));
    // stdout carries the link alone; a warning about it goes to stderr
    io().stderr.write(publicUrlWarning(config) ?? '');
    io().stdout.write(`${link}\n`);
    io().stderr.write(`created ${account.id} (${email}, plan ${options.plan}); the link above sets its password, once, within 24 hours\n`);
  });
}

/** `accounts list`: every account with its plan and state. */
export function accountsListCommand(config: Config): Promise<void> {
  return withDatabase(config, async (database) => {
    const rows = (await listAccounts(database)).map((account) => [
      account.id,
      account.email,
      account.planId,
      account.createdAt.toISOString(),
      account.disabledAt !== null ? `disabled ${account.disabledAt.toISOString()}` : account.hasPassword ? 'active' : 'no password yet',
    ]);
    const header = ['ID', 'EMAIL', 'PLAN', 'CREATED', 'STATE'];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    for (const row of [header, ...rows]) io().stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()}\n`);
  });
}

/** `accounts plan ID PLAN`: every key of the account has the new limit from its next request. */
export function accountsPlanCommand(config: Config, id: string, plan: string): Promise<void> {
  return withDatabase(config, async (database) => {
    if (!(await setAccountPlan(database, id, plan))) throw new CliError(`no account with id ${id}`);
    io().stdout.write(`${id} is on plan ${plan}\n`);
  });
}

/** `accounts disable ID`: its sessions end, its keys are refused from the next request, its alerts are paused. */
export function accountsDisableCommand(config: Config, id: string): Promise<void> {
  return withDatabase(config, async (database) => {
    if ((await findAccount(database, id)) === undefined) throw new CliError(`no account with id ${id}`);
    const disabled = await disableAccount(database, id, systemClock.now());
    io().stdout.write(disabled ? `disabled ${id}\n` : `${id} was disabled already\n`);
  });
}

/** `accounts enable ID`: its keys work again from the next request; its alerts stay paused (the owner resumes them). */
export function accountsEnableCommand(config: Config, id: string): Promise<void> {
  return withDatabase(config, async (database) => {
    if ((await findAccount(database, id)) === undefined) throw new CliError(`no account with id ${id}`);
    const enabled = await enableAccount(database, id);
    io().stdout.write(enabled ? `enabled ${id}; its alerts stay paused until resumed\n` : `${id} was enabled already\n`);
  });
}

/**
 * `accounts reset-link ID|EMAIL`: a new one-time link (earlier unused links stop working). By
 * email too: a person who forgot their password tells the operator their address, and the
 * dashboard's forgot-password page tells them to.
 */
export function accountsResetLinkCommand(config: Config, idOrEmail: string): Promise<void> {
  return withDatabase(config, async (database) => {
    const byEmail = idOrEmail.includes('@');
    const account = byEmail ? await findAccountByEmail(database, idOrEmail) : await findAccount(database, idOrEmail);
    if (account === undefined) throw new CliError(byEmail ? `no account with the email ${idOrEmail}` : `no account with id ${idOrEmail}`);
    const id = account.id;
    if (account.disabledAt !== null) throw new CliError(`account ${id} is disabled`);
    io().stderr.write(publicUrlWarning(config) ?? '');
    io().stdout.write(`${setPasswordLink(`${config.publicUrl}${DASHBOARD}`, await issueLink(database, id, systemClock.now()))}\n`);
  });
}
