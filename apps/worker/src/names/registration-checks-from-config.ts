import type { Config } from '@domain-index/config/config';
import type { Database } from '@domain-index/db';
import { createRdapClient, type RdapClient } from '@domain-index/rdap';
import { BackgroundLoop } from '@domain-index/runtime/background-loop';
import type { Clock } from '@domain-index/runtime/clock';
import type { Logger } from '@domain-index/runtime/logger';
import type { Registry } from 'prom-client';
import { RegistrationChecks } from './registration-checks';
import { RegistrationMetrics } from './registration-metrics';

/** The registration checks of a worker process: started and stopped by its caller. */
export interface RunningChecks {
  checks: RegistrationChecks;
  rdap: RdapClient;
  start(): void;
  stop(): Promise<void>;
}

/** The RDAP client as the configuration says: its bootstrap (fetched, or the shipped copy only) and its limits. */
export function rdapFromConfig(config: Config, logger: Logger): RdapClient {
  return createRdapClient({
    ...(config.rdap.bootstrapUrl === null ? { fetchBootstrapAtStart: false, bootstrapRefreshMs: 2 ** 31 - 1 } : { bootstrapUrl: config.rdap.bootstrapUrl }),
    ...(config.rdap.limits === undefined ? {} : { limits: config.rdap.limits }),
    log: (line) => logger.info(line),
  });
}

/**
 * The worker's registration checks (REGISTRATION_CHECKS=on): a turn every 30 s checks the watched
 * names that are due, with their metrics in `registry`. Undefined when they are turned off.
 */
export function registrationChecksFromConfig(options: { config: Config; database: Database; clock: Clock; logger: Logger; registry: Registry }): RunningChecks | undefined {
  const { config, database, clock, logger, registry } = options;
  if (!config.rdap.checks) return undefined;
  const rdap = rdapFromConfig(config, logger);
  const metrics = new RegistrationMetrics(registry, database, clock);
  const checks = new RegistrationChecks({ database, clock, rdap, onChecked: (checked) => metrics.checked(checked) });
  const loop = new BackgroundLoop([{ name: 'registration checks', run: async () => { await checks.run(); } }], logger, 30_000);
  return {
    checks,
    rdap,
    start: () => loop.start(),
    stop: async () => {
      await loop.stop();
      await rdap.close();
    },
  };
}
