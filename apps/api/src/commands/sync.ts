import { systemClock } from '../clock';
import type { Config } from '../config';
import { runSyncWorker } from '../indexing/sync-worker';
import type { Logger } from '../logger';
import { openMigratedDatabase } from '../runtime';
import { loadSources } from '../sources';
import type { Database } from '@domain-index/db';
import { openAdmin, ownMetrics, stopAdminServer } from '../ops/admin-server';
import { Health } from '../ops/health';
import { processRegistry } from '../ops/process-registry';
import { openProbeDatabase } from '../ops/probe-database';
import { Readiness } from '../ops/readiness';
import { SyncMetrics } from '../ops/sync-metrics';

/** `domain-index sync`: the long-running worker; stops after the batch in flight on SIGTERM/SIGINT. */
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
    await metrics.initialise(database, sources);
  } catch (error) {
    await stopAdminServer(admin);
    throw error;
  }
  // an import keeps the pool busy for minutes: the probes have a connection of their own
  const probe = await openProbeDatabase(config.databaseUrl, database);
  readiness.useDatabase(probe.database);
  health.useDatabase(probe.database);
  const stop = new AbortController();
  const onSignal = (signal: string) => {
    readiness.markDraining();
    logger.info({ signal }, 'stopping the sync worker after the batch in flight');
    stop.abort();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    await runSyncWorker({
      database,
      sources,
      clock: systemClock,
      logger,
      retentionDays: config.retentionDays,
      signal: stop.signal,
      metrics,
      onStarted: () => {
        readiness.markReady();
      },
    });
  } finally {
    await health.close();
    await probe.close();
    await database.close();
    await stopAdminServer(admin);
    logger.flush();
  }
}
