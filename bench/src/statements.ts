import { openDatabase, sql, type Database } from '@domain-index/db';
import { BENCH } from './settings';
import { pageStatement } from './page-statement';
import { SEARCH_SHAPES } from './shapes';

/** A statement as the API sends it, named for a results table. */
export interface NamedStatement {
  name: string;
  sql: string;
  params: unknown[];
}

/** Every search shape's page statement, as the API would send it now. */
export async function shapeStatements(database: Database): Promise<NamedStatement[]> {
  const statements: NamedStatement[] = [];
  for (const shape of SEARCH_SHAPES)
    statements.push({ name: shape.name, ...(await pageStatement(database, shape.query ?? {})) });
  return statements;
}

/** Something that runs SQL text: the postgres.js client or one of its transactions. */
export interface Runner {
  unsafe(text: string, params?: never[]): PromiseLike<unknown>;
}

/** Client-side time of one run of a statement, ms. */
export async function timed(runner: Runner, statement: Pick<NamedStatement, 'sql' | 'params'>): Promise<number> {
  const started = performance.now();
  await runner.unsafe(statement.sql, statement.params as never[]);
  return performance.now() - started;
}

/** The median of some times (sorts them in place). */
export const median = (times: number[]): number => times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;

/** The benchmark's PostgreSQL database on one connection, its driver, and how many listings it holds. */
export async function openBenchPostgres() {
  const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
  if (database.driver.kind !== 'postgres') throw new Error('PostgreSQL only');
  const [{ n } = { n: '0' }] = await database.rows<{ n: string }>(sql`select count(*)::text as n from listings`);
  return { database, client: database.driver.client, listings: Number(n) };
}
