import type { Database } from '@domain-index/db';
import type { AlertOwner } from '@domain-index/alerts/alert-store';
import { lookUpOwner, operatorAlerts, operatorDelete, operatorSetPaused, type OperatorAlert, type OperatorTarget } from '@domain-index/alerts/operator-alerts';
import { systemClock } from '@domain-index/runtime/clock';
import type { Config } from '@domain-index/config/config';
import { CliError } from '../cli-error';
import { openMigratedDatabase } from '../runtime';
import { io } from '../embedded/cli-io';
import { shownWebhookUrl } from '@domain-index/webhooks/url-credentials';

/** The owner options of the `alerts` commands. */
export interface OwnerOptions {
  account?: string;
  key?: string;
}

async function withDatabase(config: Config, run: (database: Database) => Promise<void>): Promise<void> {
  const database = await openMigratedDatabase(config);
  try {
    await run(database);
  } finally {
    await database.close();
  }
}

/** The owner `--account` or `--key` names, or undefined when neither is given; a one-line refusal otherwise. */
async function namedOwner(database: Database, options: OwnerOptions): Promise<{ owner: AlertOwner; label: string } | undefined> {
  if (options.account !== undefined && options.key !== undefined) throw new CliError('give --account or --key, not both');
  if (options.account !== undefined) {
    const found = await lookUpOwner(database, { account: options.account });
    if (found.kind !== 'owner') throw new CliError(`no account with id ${options.account}`);
    return { owner: found.owner, label: options.account };
  }
  if (options.key !== undefined) {
    const found = await lookUpOwner(database, { key: options.key });
    if (found.kind === 'unknown') throw new CliError(`no key with id ${options.key}`);
    if (found.kind === 'key-of-account') throw new CliError(`key ${options.key} belongs to account ${found.accountId}, which owns its alerts: use --account ${found.accountId}`);
    return { owner: found.owner, label: options.key };
  }
  return undefined;
}

/** One alert by id, or all of the named owner's: exactly one of the two. */
async function target(database: Database, id: string | undefined, options: OwnerOptions): Promise<{ target: OperatorTarget; label: string }> {
  const owner = await namedOwner(database, options);
  if ((id === undefined) === (owner === undefined)) throw new CliError('give an alert id, or --account ID or --key ID for all of an owner\'s alerts (one of them)');
  return owner === undefined ? { target: { alertId: id! }, label: id! } : { target: { owner: owner.owner }, label: owner.label };
}

const count = (n: number) => `${n} ${n === 1 ? 'alert' : 'alerts'}`;
const when = (date: Date) => date.toISOString();

/** An alert's state in a word or two: paused (and why), stopped with its owner, webhook off, or active. */
function stateOf(alert: OperatorAlert): string {
  if (alert.paused) return alert.pausedReason === null ? 'paused' : `paused (${alert.pausedReason})`;
  if (alert.stopped !== null) return `stopped (${alert.stopped})`;
  if (alert.webhookDisabled) return 'webhook off';
  return 'active';
}

function lastDeliveryOf(alert: OperatorAlert): string {
  const last = alert.lastDelivery;
  if (last === null) return '-';
  return `${last.status} ${when(last.createdAt)}${last.cancelledReason === null ? '' : ` (${last.cancelledReason})`}`;
}

/** `alerts list [--account ID | --key ID]`: every alert (or an owner's), newest first. */
export function alertsListCommand(config: Config, options: OwnerOptions): Promise<void> {
  return withDatabase(config, async (database) => {
    const owner = await namedOwner(database, options);
    const rows = (await operatorAlerts(database, owner?.owner, systemClock.now())).map((alert) => [
      alert.id,
      alert.owner,
      stateOf(alert),
      alert.webhookUrl === null ? '-' : shownWebhookUrl(alert.webhookUrl),
      alert.emailDigest === null ? '-' : `${alert.emailDigest} to ${alert.emailTo ?? '-'}`,
      lastDeliveryOf(alert),
      alert.name,
    ]);
    const header = ['ID', 'OWNER', 'STATE', 'WEBHOOK', 'DIGEST', 'LAST DELIVERY', 'NAME'];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    for (const row of [header, ...rows]) io().stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()}\n`);
  });
}

/** Why a stopped owner's alert cannot be resumed, and what would change that. */
function cannotResume(stopped: { id: string; owner: string; reason: string }): string {
  const why =
    stopped.reason === 'owner disabled'
      ? stopped.owner.startsWith('acc_')
        ? `its account ${stopped.owner} is disabled (accounts enable ${stopped.owner} first)`
        : `the account of its key ${stopped.owner} is disabled`
      : stopped.reason === 'key expired'
        ? `its key ${stopped.owner} has expired`
        : `its key ${stopped.owner} is revoked`;
  return `cannot resume ${stopped.id}: ${why}`;
}

/** `alerts pause|resume ID` or `--account ID` / `--key ID`: one line saying what changed. */
export function alertsPauseCommand(config: Config, id: string | undefined, options: OwnerOptions, paused: boolean): Promise<void> {
  return withDatabase(config, async (database) => {
    const named = await target(database, id, options);
    const done = await operatorSetPaused(database, named.target, paused, systemClock.now());
    const verb = paused ? 'paused' : 'resumed';
    if (done.stopped !== undefined) throw new CliError(cannotResume(done.stopped));
    if ('alertId' in named.target) {
      if (done.found === 0) throw new CliError(`no alert with id ${named.label}`);
      io().stdout.write(done.changed.length > 0 ? `${verb} ${named.label}\n` : `${named.label} was ${paused ? 'paused' : 'running'} already\n`);
    } else {
      io().stdout.write(`${verb} ${count(done.changed.length)} of ${named.label}\n`);
    }
  });
}

/** `alerts delete ID` or `--account ID` / `--key ID`: the alerts and their messages go. */
export function alertsDeleteCommand(config: Config, id: string | undefined, options: OwnerOptions): Promise<void> {
  return withDatabase(config, async (database) => {
    const named = await target(database, id, options);
    const deleted = await operatorDelete(database, named.target, systemClock.now());
    if ('alertId' in named.target) {
      if (deleted.length === 0) throw new CliError(`no alert with id ${named.label}`);
      io().stdout.write(`deleted ${named.label}\n`);
    } else {
      io().stdout.write(`deleted ${count(deleted.length)} of ${named.label}\n`);
    }
  });
}
