import type { Database } from '@domain-index/db';

/** A statement as the API sends it: text and parameters, as Drizzle renders them. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** Runs statements straight through postgres.js, as the API's driver does, with no HTTP. */
export function floorRunner(database: Database): (statements: Statement[]) => Promise<void> {
  if (database.driver.kind !== 'postgres') throw new Error('the floor is measured on PostgreSQL');
  const client = database.driver.client;
  return async (statements) => {
    await Promise.all(statements.map((statement) => client.unsafe(statement.sql, statement.params as never[])));
  };
}
