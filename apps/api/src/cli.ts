import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, type Config } from './config';
import { migrate } from './commands/migrate';
import { serve } from './commands/serve';
import { createLogger } from './logger';
import { CliError } from './runtime';

/** Runs a command with the validated configuration; known failures end as one line. */
function withConfig(run: (config: Config) => Promise<void>) {
  return async () => {
    await run(loadConfig());
  };
}

const program = new Command()
  .name('domain-index')
  .description('Domain Index: the API server and the operator commands.')
  .showHelpAfterError()
  .exitOverride();

program
  .command('serve', { isDefault: true })
  .description('start the API (embedded database with demo data unless DATABASE_URL is set)')
  .action(withConfig((config) => serve(config, createLogger(config.logLevel))));

program
  .command('migrate')
  .description('apply pending database migrations')
  .action(withConfig(migrate));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else if (error instanceof ConfigError || error instanceof CliError) {
    process.stderr.write(`domain-index: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`domain-index: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
