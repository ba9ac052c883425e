import type { Config } from '@domain-index/config/config';
import { parseNameInput } from '@domain-index/names/name-input';
import { CHECKS_PER_TURN, RegistrationChecks, type CheckedName } from '@domain-index/worker/names/registration-checks';
import { rdapFromConfig } from '@domain-index/worker/names/registration-checks-from-config';
import { systemClock } from '@domain-index/runtime/clock';
import type { Logger } from '@domain-index/runtime/logger';
import { CliError } from '../cli-error';
import { io } from '../embedded/cli-io';
import { openMigratedDatabase } from '../runtime';

/** One line per name: what RDAP said, the phase (and the move, if any), when it is checked next. */
export function checkedLine(checked: CheckedName): string {
  const what = checked.phase === null ? `${checked.outcome}: ${checked.reason ?? 'no answer'}` : checked.moved === null ? checked.phase : `${checked.moved.from} -> ${checked.moved.to}`;
  const next = checked.nextCheckAt === null ? 'not watched' : `next ${checked.nextCheckAt.toISOString()}`;
  return `${checked.domainName}  ${what}  ${checked.server ?? 'no RDAP server'}  ${next}\n`;
}

/**
 * `names refresh [--all] [--domain NAME]`: runs the registration checks that are due now (or of
 * every watched name, or of one name), prints a line per name, and exits 1 when any got no answer.
 */
export async function namesRefreshCommand(config: Config, logger: Logger, options: { all?: boolean; domain?: string }): Promise<void> {
  let domain: string | undefined;
  if (options.domain !== undefined) {
    const input = parseNameInput(options.domain);
    if ('refused' in input) throw new CliError(`--domain: ${input.refused}`);
    domain = input.domainName;
  }
  const database = await openMigratedDatabase(config);
  const rdap = rdapFromConfig(config, logger);
  try {
    const checks = new RegistrationChecks({ database, clock: systemClock, rdap });
    // every watched name at once can be many: in turns of 500, the client queueing per server
    const started = systemClock.now();
    let failed = 0;
    let total = 0;
    for (;;) {
      const checked = await checks.run({ ...(options.all === true ? { all: true, notAttemptedSince: started } : {}), ...(domain === undefined ? {} : { domain }) });
      for (const name of checked) io().stdout.write(checkedLine(name));
      failed += checked.filter((name) => name.phase === null).length;
      total += checked.length;
      if (domain !== undefined || options.all !== true || checked.length < CHECKS_PER_TURN) break;
    }
    if (total === 0) io().stdout.write(domain === undefined ? 'no watched name is due for a check\n' : '');
    if (failed > 0) throw new CliError(`${failed} of ${total} names got no answer; they are retried on their own schedule`);
  } finally {
    await rdap.close();
    await database.close();
  }
}
