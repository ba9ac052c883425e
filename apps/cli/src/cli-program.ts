import cluster from 'node:cluster';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CliError } from './cli-error';
import { checkDatabaseChoice, checkWorkers, ConfigError, loadConfig, type Config } from '@domain-index/config/config';
import { io } from './embedded/cli-io';
import { failureLine } from '@domain-index/runtime/failure-line';
import { VERSION } from './version';

// Each command's modules (and the logger) are imported when that command runs, not before:
// `keys create` or `import` need neither Express nor the API's routes, and `--help` needs no
// database driver. With everything imported up front, `--help` took 1.7 s on a 2-core machine,
// against 0.35 s now (farm-bench, 8 paired runs; the figures are in the message of 3ce683b).
const modules = {
  accounts: () => import('./commands/accounts'),
  alerts: () => import('./commands/alerts'),
  export: () => import('./commands/export'),
  feedsCheck: () => import('./commands/feeds-check'),
  import: () => import('./commands/import'),
  keys: () => import('./commands/keys'),
  logger: () => import('@domain-index/runtime/logger'),
  mcp: () => import('./commands/mcp'),
  migrate: () => import('./commands/migrate'),
  plans: () => import('./commands/plans'),
  names: () => import('./commands/names'),
  purge: () => import('./commands/purge'),
  seed: () => import('./commands/seed'),
  serve: () => import('./commands/serve'),
  serveWorkers: () => import('./commands/serve-workers'),
  sources: () => import('./commands/sources'),
  sync: () => import('./commands/sync'),
};

/** Runs a command with the validated configuration; known failures end as one line. */
function withConfig(run: (config: Config) => Promise<void>) {
  return async () => {
    await run(loadConfig());
  };
}

/** A whole number in [min, max] for a command option. */
function wholeNumber(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    }
    return Number(value);
  };
}

/**
 * The `domain-index` program: a new one for each run, since the running embedded server parses
 * the commands other processes send it (control-server.ts) while serving.
 */
export function buildProgram(): Command {
  const program = new Command()
    .name('domain-index')
    .description('Domain Index: the API server and the operator commands.')
    .version(VERSION, '-V, --version', 'print the version and exit')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io().stdout.write(text),
      writeErr: (text) => void io().stderr.write(text),
    })
    // The embedded database is one process's: a command on it that finds it held by the
    // running server runs there, through the server's control socket (embedded/).
    .hook('preAction', async (_program, action) => {
      const throughOwner = runsThroughOwner(action);
      if (io().inServer) {
        if (!throughOwner) throw new CliError(`\`${commandPath(action)}\` cannot run inside the running server`);
        return;
      }
      if (!throughOwner) return;
      const { forwardToOwner } = await import('./embedded/control-client');
      if (await forwardToOwner(loadConfig(), process.argv.slice(2))) throw new RanInOwner();
    });

  program
    .command('serve', { isDefault: true })
    .description('start the API (embedded database with demo data unless DATABASE_URL is set)')
    .action(
      withConfig(async (config) => {
        checkWorkers(checkDatabaseChoice(config, 'service'));
        const { loggerFor } = await modules.logger();
        // with WORKERS > 1 this process runs the workers, and each worker runs `serve` itself
        if (config.workers > 1 && cluster.isPrimary)
          return (await modules.serveWorkers()).serveWorkers(config, loggerFor(config));
        return (await modules.serve()).serve(config, loggerFor(config));
      }),
    );

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(withConfig(async (config) => (await modules.migrate()).migrate(config)));

  program
    .command('import')
    .description(
      'import one batch (the complete listing set) of a source from a JSONL or CSV file, - for stdin',
    )
    .requiredOption('--source <id>', 'the marketplace the feed belongs to')
    .addOption(
      new Option(
        '--format <format>',
        'feed format (default: from the file name, else the source)',
      ).choices(['jsonl', 'csv']),
    )
    .argument('<file>', 'feed file, or - to read stdin')
    .action(async (file: string, options: { source: string; format?: 'jsonl' | 'csv' }) => {
      const config = loadConfig();
      await (await modules.import()).importCommand(config, file, options);
    });

  program
    .command('seed')
    .description('fill the index with deterministic synthetic listings, through the import path')
    .requiredOption('--rows <n>', 'number of listings', wholeNumber(1, 100_000_000))
    .option('--seed <n>', 'random seed', wholeNumber(0, 2 ** 31 - 1), 42)
    .action(async (options: { rows: number; seed: number }) => {
      const config = loadConfig();
      await (await modules.seed()).seedCommand(config, options);
    });

  program
    .command('sync')
    .description(
      'run every configured source on its schedule until stopped (SIGTERM/SIGINT), or each once with --once',
    )
    .option(
      '--once',
      'sync the sources now, print one line per source and exit (0 when all applied or unchanged, 1 otherwise)',
    )
    .option('--source <id>', 'with --once: only this source')
    .action(async (options: { once?: boolean; source?: string }) => {
      if (options.source !== undefined && options.once !== true)
        throw new CliError(
          '--source goes with --once (the worker syncs every source on its schedule)',
        );
      const config = checkDatabaseChoice(loadConfig(), 'service');
      const { loggerFor } = await modules.logger();
      const sync = await modules.sync();
      const logger = loggerFor(config);
      await (options.once === true
        ? sync.syncOnceCommand(config, logger, options.source)
        : sync.syncCommand(config, logger));
    });

  program
    .command('purge')
    .description('remove listings ended longer ago than RETENTION_DAYS')
    .action(withConfig(async (config) => (await modules.purge()).purgeCommand(config)));

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description('create a key; prints the key on stdout, once')
    .option('--plan <plan>', 'the plan deciding its rate limit (free, pro, or any plan in the plans table)')
    .option('--account <id>', "instead of --plan: a key of this account (accounts list), on the account's plan")
    .option('--name <name>', 'a label to recognise the key by')
    .addOption(
      new Option('--env <env>', 'live for production use, test for demos')
        .choices(['live', 'test'])
        .default('live'),
    )
    .action(async (options: { plan?: string; name?: string; env: 'live' | 'test'; account?: string }) => {
      const config = loadConfig();
      await (await modules.keys()).keysCreateCommand(config, options);
    });
  keys
    .command('list')
    .description('list keys (never the key itself)')
    .action(withConfig(async (config) => (await modules.keys()).keysListCommand(config)));
  keys
    .command('revoke')
    .description('revoke a key; effective on the next request on every instance')
    .argument('<id>', 'the key id shown by keys list')
    .action(async (id: string) => {
      const config = loadConfig();
      await (await modules.keys()).keysRevokeCommand(config, id);
    });

  const accounts = program.command('accounts').description('manage dashboard accounts');
  accounts
    .command('create')
    .description(
      'create an account; prints a one-time link to set its password (24 hours) on stdout',
    )
    .requiredOption('--email <email>', 'the address the owner signs in with')
    .option(
      '--plan <plan>',
      'the plan of all its keys (free, pro, or any plan in the plans table)',
      'free',
    )
    .action(async (options: { email: string; plan: string }) => {
      const config = loadConfig();
      await (await modules.accounts()).accountsCreateCommand(config, options);
    });
  accounts
    .command('list')
    .description('list accounts with their plan and state')
    .action(withConfig(async (config) => (await modules.accounts()).accountsListCommand(config)));
  accounts
    .command('plan')
    .description("change an account's plan; its keys get the new limit from their next request")
    .argument('<id>', 'the account id shown by accounts list')
    .argument('<plan>', 'free, pro, or any plan in the plans table')
    .action(async (id: string, plan: string) => {
      const config = loadConfig();
      await (await modules.accounts()).accountsPlanCommand(config, id, plan);
    });
  accounts
    .command('disable')
    .description(
      'disable an account: its sessions end, its keys are refused from the next request, its alerts are paused',
    )
    .argument('<id>', 'the account id shown by accounts list')
    .action(async (id: string) => {
      const config = loadConfig();
      await (await modules.accounts()).accountsDisableCommand(config, id);
    });
  accounts
    .command('enable')
    .description('enable a disabled account: its keys work again; its alerts stay paused until resumed')
    .argument('<id>', 'the account id shown by accounts list')
    .action(async (id: string) => {
      const config = loadConfig();
      await (await modules.accounts()).accountsEnableCommand(config, id);
    });
  accounts
    .command('reset-link')
    .description('print a new one-time link to set the password (earlier links stop working)')
    .argument('<id-or-email>', 'the account id shown by accounts list, or the account\'s email address')
    .action(async (idOrEmail: string) => {
      const config = loadConfig();
      await (await modules.accounts()).accountsResetLinkCommand(config, idOrEmail);
    });

  /** `CODE=usd` pairs of --rate, collected. */
  function rate(value: string, rates: Record<string, number>): Record<string, number> {
    const match = /^([A-Z]{3})=(\d+(?:\.\d+)?)$/.exec(value);
    if (match === null || Number(match[2]) <= 0)
      throw new InvalidArgumentError('must be CODE=US dollars per unit, such as EUR=1.08');
    return { ...rates, [match[1]!]: Number(match[2]) };
  }

  const plansCommand = program.command('plans').description('show and change the plans (request and alert limits)');
  plansCommand
    .command('list')
    .description('list plans: requests per window, window, alerts limit, description')
    .action(withConfig(async (config) => (await modules.plans()).plansListCommand(config)));
  plansCommand
    .command('set')
    .description("change a plan's limits; every instance applies them within 30 s")
    .argument('<id>', 'the plan id shown by plans list')
    .option('--requests-per-hour <n>', 'requests per hour of an hourly plan', wholeNumber(1, 1_000_000_000))
    .option('--alerts-limit <n>', 'alerts one owner may have', wholeNumber(0, 100_000))
    .option('--description <text>', 'what the plan is, in a line')
    .action(async (id: string, options: { requestsPerHour?: number; alertsLimit?: number; description?: string }) => {
      const config = loadConfig();
      await (await modules.plans()).plansSetCommand(config, id, options);
    });

  program
    .command('names')
    .description("watched names' registrations")
    .command('refresh')
    .description('check the watched names that are due now by RDAP (or all, or one name), a line per name')
    .option('--all', 'every watched name, due or not')
    .option('--domain <name>', 'this name only, watched or not (ASCII or punycode)')
    .action(async (options: { all?: boolean; domain?: string }) => {
      const config = loadConfig();
      const { loggerFor } = await modules.logger();
      await (await modules.names()).namesRefreshCommand(config, loggerFor(config), options);
    });

  const alerts = program.command('alerts').description("list, pause, resume or delete any owner's alerts");
  const ownerOptions = (command: Command) =>
    command
      .option('--account <id>', 'the alerts of this account (accounts list)')
      .option('--key <id>', 'the alerts of this key, one without an account (keys list)');
  ownerOptions(
    alerts.command('list').description("list alerts (all, or an owner's) with their owner, state, webhook, digest and last delivery"),
  ).action(async (options: { account?: string; key?: string }) => {
    const config = loadConfig();
    await (await modules.alerts()).alertsListCommand(config, options);
  });
  for (const [name, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    ownerOptions(
      alerts
        .command(name)
        .description(
          paused
            ? "pause an alert, or all of an owner's: nothing is delivered for them until resumed"
            : "resume an alert, or all of an owner's; refused while the owner is disabled, revoked or expired",
        )
        .argument('[id]', 'the alert id shown by alerts list'),
    ).action(async (id: string | undefined, options: { account?: string; key?: string }) => {
      const config = loadConfig();
      await (await modules.alerts()).alertsPauseCommand(config, id, options, paused);
    });
  }
  ownerOptions(
    alerts.command('delete').description("delete an alert, or all of an owner's, with their queued messages").argument('[id]', 'the alert id shown by alerts list'),
  ).action(async (id: string | undefined, options: { account?: string; key?: string }) => {
    const config = loadConfig();
    await (await modules.alerts()).alertsDeleteCommand(config, id, options);
  });

  const feeds = program.command('feeds').description('inspect marketplace feeds');
  feeds
    .command('check')
    .description('parse a feed and report good and bad records and sample rows; writes nothing')
    .argument(
      '<target>',
      'with --profile: a feed file (- for stdin); without: a configured source, fetched',
    )
    .option(
      '--profile <name>',
      'a shipped profile, or a configured source whose reading configuration to use',
    )
    .option('--json', 'print one JSON object: good, bad, skipped, errors, rows')
    .option('--sample <n>', 'normalised rows to print', wholeNumber(0, 1000), 3)
    .option(
      '--rate <code=usd>',
      'US dollars per unit of a currency, for this check (repeatable)',
      rate,
      {},
    )
    .action(
      async (
        target: string,
        options: { profile?: string; json?: boolean; sample: number; rate: Record<string, number> },
      ) => {
        const config = loadConfig();
        await (
          await modules.feedsCheck()
        ).feedsCheckCommand(config, target, { ...options, rates: options.rate });
      },
    );

  program
    .command('mcp')
    .description('an MCP server on stdin/stdout over the API at DOMAIN_INDEX_URL, with DOMAIN_INDEX_API_KEY (docs/mcp.md)')
    .action(async () => (await modules.mcp()).mcpStdioCommand());

  program
    .command('export')
    .description('stream every listing a search matches, as CSV or JSON lines, from the API at DOMAIN_INDEX_URL with DOMAIN_INDEX_API_KEY (docs/cli.md)')
    .addOption(new Option('--format <format>', 'csv or jsonl').choices(['csv', 'jsonl']).default('csv'))
    .option('--query <query>', "a search's filters and sort as a query string, e.g. 'status=all&tld=ai&max_price=500'", '')
    .option('-o, --output <file>', 'the file to write; - for stdout', '-')
    .action(async (options: { format: 'csv' | 'jsonl'; query: string; output: string }) => (await modules.export()).exportCommand(options));

  program
    .command('sources')
    .description('list the configured marketplaces and their last sync')
    .action(withConfig(async (config) => (await modules.sources()).sourcesCommand(config)));

  return program;
}

/** The command ran inside the process that owns the embedded database, which set its exit code. */
class RanInOwner extends Error {}

/**
 * Whether a command works on the database in a way the running embedded server can do for it:
 * everything but serving, migrating (the server migrates when it starts), the sync worker
 * (the server runs the schedule itself) and checking a feed (no database).
 */
function runsThroughOwner(action: Command): boolean {
  const path = commandPath(action);
  if (path === 'serve' || path === 'migrate' || path === 'mcp' || path === 'export' || path.startsWith('feeds ')) return false;
  if (path === 'sync') return action.opts<{ once?: boolean }>().once === true;
  return true;
}

/** `keys create`: a command's words after `domain-index`. */
function commandPath(action: Command): string {
  const names: string[] = [];
  for (let command: Command | null = action; command?.parent != null; command = command.parent) {
    names.unshift(command.name());
  }
  return names.join(' ');
}

/**
 * Runs one command line (the words after `domain-index`) and ends it as the CLI does: a known
 * failure is one line on stderr and exit code 2, anything else one line and exit code 1.
 */
export async function runCommandLine(args: readonly string[]): Promise<void> {
  try {
    await buildProgram().parseAsync([...args], { from: 'user' });
  } catch (error) {
    if (error instanceof RanInOwner) return;
    if (error instanceof CommanderError) {
      io().setExitCode(error.exitCode);
    } else if (error instanceof ConfigError || error instanceof CliError) {
      io().stderr.write(`domain-index: ${error.message}\n`);
      io().setExitCode(2);
    } else {
      io().stderr.write(`domain-index: unexpected failure: ${failureLine(error)}\n`);
      io().setExitCode(1);
    }
  }
}
