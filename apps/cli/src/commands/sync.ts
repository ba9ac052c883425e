import { systemClock } from '@domain-index/runtime/clock';
import type { Config } from '@domain-index/config/config';
import { runSyncWorker } from '@domain-index/worker/indexing/sync-worker';
import { flushRepeats, type Logger } from '@domain-index/runtime/logger';
import { openMigratedDatabase } from '../runtime';
import { loadSources } from '../sources';
import type { Database } from '@domain-index/db';
import { openAdmin, ownMetrics, stopAdminServer } from '../ops/admin-server';
import { Health } from '../ops/health';
import { processRegistry } from '@domain-index/runtime/process-registry';
import { openProbeDatabase } from '@domain-index/runtime/probe-database';
import { Readiness } from '@domain-index/runtime/readiness';
import { onShutdownSignals } from '@domain-index/runtime/shutdown';
import { SyncMetrics } from '@domain-index/worker/ops/sync-metrics';
import { registerPoolMetrics } from '@domain-index/runtime/pool-metrics';
import { describeLeftovers, removeLeftovers } from '@domain-index/worker/indexing/leftovers';
import { syncSource, type SyncResult } from '@domain-index/worker/indexing/sync-source';
import { EventHousekeeping } from '@domain-index/worker/events/event-housekeeping';
import { deliveriesFromConfig, mailerFromConfig } from '@domain-index/worker/alerts/deliveries-from-config';
import { registrationChecksFromConfig } from '@domain-index/worker/names/registration-checks-from-config';
import { CliError } from '../cli-error';
import { formatSummary } from './summary';
import { io } from '../embedded/cli-io';

/**
 * `domain-index sync`: the long-running worker; stops after the batch in flight on SIGTERM/SIGINT,
 * within SHUTDOWN_TIMEOUT_MS or with exit code 1, and at once on a second signal.
 */
export async function syncCommand(config: Config, logger: Logger): Promise<void> {
  const sources = loadSources(config.sourcesFile);
  const registry = processRegistry();
  const metrics = new SyncMetrics(registry);
  const readiness = new Readiness(undefined);
  const health = new Health({ redisUrl: undefined, sources, clock: systemClock, description: 'Domain Index sync worker' });
  // The worker is long-running too: the same admin listener as `serve`, with the sync metrics.
  const admin = await openAdmin(config, { readiness, metrics: ownMetrics(registry), health: () => health.report() }, logger);
  let database: Database;
  try {
    database = await openMigratedDatabase(config);
    const pool = database;
    registerPoolMetrics(registry, () => [{ node: 'primary', database: pool }]);
    await metrics.initialise(database, sources);
  } catch (error) {
    await stopAdminServer(admin);
    throw error;
  }
  try {
    const leftovers = describeLeftovers(await removeLeftovers(database));
    if (leftovers !== undefined) logger.info({ removed: leftovers }, leftovers);
  } catch (error) {
    logger.warn({ err: error }, 'could not look for what interrupted imports left behind; the next start tries again');
  }
  // an import keeps the pool busy for minutes: the probes have a connection of their own
  const probe = await openProbeDatabase(config.databaseUrl, database);
  readiness.useDatabase(probe.database);
  health.useDatabase(probe.database);
  const stop = new AbortController();
  // A batch still running at the deadline is abandoned: its transaction rolls back with the
  // connection, the previous batch stays served, and the next start removes its staging tables.
  onShutdownSignals(
    (signal) => {
      readiness.markDraining();
      logger.info({ signal, deadlineMs: config.shutdownTimeoutMs }, 'stopping the sync worker after the batch in flight');
      stop.abort();
    },
    { logger, deadlineMs: config.shutdownTimeoutMs, secondSignalExits: true },
  );
  // Webhooks and digests go out beside the syncs (a sync can take minutes): loops of their own.
  const mailer = mailerFromConfig(config, logger);
  const deliveries = await deliveriesFromConfig({ config, database, clock: systemClock, logger, registry, mailer });
  deliveries.start();
  // and watched names' registration checks, on a clock of their own
  const checks = registrationChecksFromConfig({ config, database, clock: systemClock, logger, registry });
  checks?.start();
  try {
    await runSyncWorker({
      database,
      sources,
      clock: systemClock,
      logger,
      retentionDays: config.retentionDays,
      signal: stop.signal,
      metrics,
      events: new EventHousekeeping(database, systemClock, logger, { retentionDays: config.eventRetentionDays }),
      onStarted: () => {
        readiness.markReady();
      },
    });
  } finally {
    await Promise.all([deliveries.stop(), checks?.stop()]);
    mailer?.close();
    await health.close();
    await probe.close();
    await database.close();
    await stopAdminServer(admin);
    flushRepeats(logger);
    logger.flush();
  }
}

/**
 * `domain-index sync --once [--source ID]`: syncs the chosen sources (all by default) now, one
 * after the other, prints one line per source and exits 0 when every one was applied or found
 * unchanged, 1 otherwise (rejected, failed, or skipped because a worker was syncing it).
 */
export async function syncOnceCommand(config: Config, logger: Logger, only: string | undefined): Promise<void> {
  const configured = loadSources(config.sourcesFile);
  const chosen = only === undefined ? configured : configured.filter((source) => source.id === only.toLowerCase());
  if (chosen.length === 0) throw new CliError(`unknown source ${only ?? ''}; configured: ${configured.map((source) => source.id).join(', ')}`);
  const database = await openMigratedDatabase(config);
  try {
    const leftovers = describeLeftovers(await removeLeftovers(database));
    if (leftovers !== undefined) io().stderr.write(`${leftovers}\n`);
    let allGood = true;
    for (const source of chosen) {
      const result = await syncSource(source, { database, clock: systemClock, logger });
      io().stdout.write(`${syncLine(source.id, result)}\n`);
      if (result.status !== 'applied' && result.status !== 'unchanged') allGood = false;
    }
    if (!allGood) io().setExitCode(1);
  } finally {
    await database.close();
    logger.flush();
  }
}

/** One line for a source's sync, in the words of `import`'s summary. */
function syncLine(sourceId: string, result: SyncResult): string {
  switch (result.status) {
    case 'applied':
    case 'rejected':
      return formatSummary(result.summary);
    case 'unchanged':
      return `${sourceId}: unchanged: ${result.reason}`;
    case 'failed':
      return `${sourceId}: FAILED after ${result.attempts} attempt${result.attempts === 1 ? '' : 's'}, previous batch kept: ${result.reason}`;
    case 'skipped':
      return `${sourceId}: SKIPPED: another worker is syncing it`;
  }
}
