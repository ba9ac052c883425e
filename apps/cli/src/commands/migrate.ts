import type { Config } from '@domain-index/config/config';
import { describeLeftovers, removeLeftovers } from '@domain-index/worker/indexing/leftovers';
import { describeDatabase, openAndMigrate } from '../runtime';

/**
 * `domain-index migrate`: applies pending migrations, says which (or that none was pending),
 * and removes what an interrupted import left behind.
 */
export async function migrate(config: Config): Promise<void> {
  const { database, applied } = await openAndMigrate(config);
  try {
    process.stdout.write(
      applied.length === 0
        ? `no migration pending; the ${describeDatabase(config)} is up to date\n`
        : `applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to the ${describeDatabase(config)}: ${applied.join(', ')}\n`,
    );
    const leftovers = describeLeftovers(await removeLeftovers(database));
    if (leftovers !== undefined) process.stdout.write(`${leftovers}\n`);
  } finally {
    await database.close();
  }
}
