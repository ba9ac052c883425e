import type { Config } from '../config';
import { openMigratedDatabase } from '../runtime';

/** Applies pending migrations and exits. */
export async function migrate(config: Config): Promise<void> {
  const database = await openMigratedDatabase(config);
  await database.close();
  process.stdout.write(`migrations applied (${database.kind})\n`);
}
