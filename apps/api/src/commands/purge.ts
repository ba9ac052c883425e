import { systemClock } from '../clock';
import type { Config } from '../config';
import { purgeEnded } from '../indexing/purge';
import { openMigratedDatabase } from '../runtime';

/** `domain-index purge`: removes listings ended longer ago than RETENTION_DAYS. */
export async function purgeCommand(config: Config): Promise<void> {
  const database = await openMigratedDatabase(config);
  try {
    const purged = await purgeEnded(database, systemClock.now(), config.retentionDays);
    process.stdout.write(`purged ${purged} listings ended more than ${config.retentionDays} days ago\n`);
  } finally {
    await database.close();
  }
}
