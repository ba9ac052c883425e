import { systemClock } from '../clock';
import type { Config } from '../config';
import { runSyncWorker } from '../indexing/sync-worker';
import type { Logger } from '../logger';
import { openMigratedDatabase } from '../runtime';
import { loadSources } from '../sources';

/** `domain-index sync`: the long-running worker; stops after the batch in flight on SIGTERM/SIGINT. */
export async function syncCommand(config: Config, logger: Logger): Promise<void> {
  const sources = loadSources(config.sourcesFile);
  const database = await openMigratedDatabase(config);
  const stop = new AbortController();
  const onSignal = (signal: string) => {
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
    });
  } finally {
    await database.close();
    logger.flush();
  }
}
