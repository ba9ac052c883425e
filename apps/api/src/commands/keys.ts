import { createKey, listKeys, revokeKey, UnknownPlanError } from '../auth/key-store';
import type { KeyEnvironment } from '../auth/api-key';
import { systemClock } from '../clock';
import type { Config } from '../config';
import { CliError } from '../cli-error';
import { openMigratedDatabase } from '../runtime';
import { io } from '../embedded/cli-io';

/** `keys create`: prints the new key on stdout, once, and nothing else there. */
export async function keysCreateCommand(
  config: Config,
  options: { plan: string; name?: string; env: KeyEnvironment },
): Promise<void> {
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
