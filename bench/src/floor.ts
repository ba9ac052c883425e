import type { Database, RenderedStatement } from '@domain-index/db';

/**
 * Runs statements straight through postgres.js with no HTTP, by the very call the API makes
 * (`Database.values`), so prepared statements are prepared here too.
 */
export function floorRunner(database: Database): (statements: RenderedStatement[]) => Promise<void> {
  if (database.driver.kind !== 'postgres') throw new Error('the floor is measured on PostgreSQL');
  return async (statements) => {
    await Promise.all(statements.map((statement) => database.values(statement)));
  };
}
