import { sql, type SQL } from 'drizzle-orm/sql';

/**
 * `where`, and a condition that is always true and keeps PostgreSQL from giving its statement
 * parallel workers: it calls `plan_without_workers()`, a function marked PARALLEL UNSAFE (migration
 * 0023), which the planner folds to `true` once it has ruled parallel plans out. For statements
 * that end within milliseconds on a bitmap of few rows, where workers cost more to start and to
 * share the bitmap with than they save (bench/notes/99). Unlike setting
 * max_parallel_workers_per_gather, it costs no statement of its own and holds through PgBouncer.
 */
export function withoutWorkers(where: SQL): SQL {
  return sql`${where} and plan_without_workers()`;
}
