import type { Database } from '@domain-index/db';
import { UnknownPlanError } from '@domain-index/accounts/key-store';
import { listPlans, updatePlan } from '@domain-index/accounts/plan-store';
import { CliError } from '../cli-error';
import type { Config } from '@domain-index/config/config';
import { openMigratedDatabase } from '../runtime';
import { io } from '../embedded/cli-io';

const HOUR_SECONDS = 3_600;

/** A window as the table shows it: `1h`, else seconds. */
const windowOf = (seconds: number) => (seconds % HOUR_SECONDS === 0 ? `${seconds / HOUR_SECONDS}h` : `${seconds}s`);

async function withDatabase(config: Config, run: (database: Database) => Promise<void>): Promise<void> {
  const database = await openMigratedDatabase(config);
  try {
    await run(database);
  } catch (error) {
    if (error instanceof UnknownPlanError) throw new CliError(error.message);
    throw error;
  } finally {
    await database.close();
  }
}

/** `plans list`: every plan with its request limit, window, alert limit and description. */
export function plansListCommand(config: Config): Promise<void> {
  return withDatabase(config, async (database) => {
    const rows = (await listPlans(database)).map((plan) => [plan.id, String(plan.requestsPerWindow), windowOf(plan.windowSeconds), String(plan.alertsLimit), plan.description]);
    const header = ['ID', 'REQUESTS', 'WINDOW', 'ALERTS', 'DESCRIPTION'];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    for (const row of [header, ...rows]) io().stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()}\n`);
  });
}

/**
 * `plans set ID [--requests-per-hour N] [--alerts-limit N] [--description TEXT]`: prints the
 * plan as it is now on stdout, and on stderr when the instances apply it.
 */
export function plansSetCommand(config: Config, id: string, options: { requestsPerHour?: number; alertsLimit?: number; description?: string }): Promise<void> {
  if (options.requestsPerHour === undefined && options.alertsLimit === undefined && options.description === undefined)
    throw new CliError('nothing to change: give --requests-per-hour, --alerts-limit or --description');
  return withDatabase(config, async (database) => {
    if (options.requestsPerHour !== undefined) {
      const plan = (await listPlans(database)).find((candidate) => candidate.id === id);
      // a plan counted over another window has no "per hour" to set
      if (plan !== undefined && plan.windowSeconds !== HOUR_SECONDS)
        throw new CliError(`plan ${id} counts requests per ${plan.windowSeconds} s, not per hour; --requests-per-hour changes hourly plans only`);
    }
    const { before, after } = await updatePlan(database, id, { requestsPerWindow: options.requestsPerHour, alertsLimit: options.alertsLimit, description: options.description });
    io().stdout.write(`plan ${after.id}: ${after.requestsPerWindow} requests per ${windowOf(after.windowSeconds)}, ${after.alertsLimit} alerts (was ${before.requestsPerWindow} and ${before.alertsLimit})\n`);
    if (options.description === undefined && after.requestsPerWindow !== before.requestsPerWindow)
      io().stderr.write(`its description still reads "${after.description}"; --description changes it\n`);
    io().stderr.write('every instance applies the new limits within 30 s\n');
  });
}
