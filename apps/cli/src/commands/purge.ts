import { systemClock } from '@domain-index/runtime/clock';
import type { Config } from '@domain-index/config/config';
import { purgeEnded } from '@domain-index/worker/indexing/purge';
import { openMigratedDatabase } from '../runtime';
import { io } from '../embedded/cli-io';

/** `domain-index purge`: removes listings ended longer ago than RETENTION_DAYS. */
export async function purgeCommand(config: Config): Promise<void> {
  const database = await openMigratedDatabase(config);
  try {
    const purged = await purgeEnded(database, systemClock.now(), config.retentionDays);
    io().stdout.write(`purged ${purged} listings ended more than ${config.retentionDays} days ago\n`);
  } finally {
    await database.close();
  }
}
