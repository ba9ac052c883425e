import type { Total } from '@domain-index/contract';
import { classifyDatabaseFailure, listings, withoutWorkers, resultRows, sql, type Database, type SQL } from '@domain-index/db';
import type { ReadNodes } from '../replicas/read-nodes';

/**
 * Above this planner estimate an exact count cannot finish within any sensible budget
 * (PostgreSQL counts a few million index entries per second here), so it is not attempted:
 * trying would burn the whole budget of database time on every such request.
 */
export const EXACT_COUNT_CEILING = 2_000_000;

/** SQLSTATE of a statement cancelled by its statement_timeout. */
const QUERY_CANCELED = '57014';

/**
 * `total` of a search: an exact count when it finishes within the budget, else the planner's
 * estimate for the same filters (`planned`). The estimate that decides whether to count at all
 * needs only its order of magnitude, and is asked of the search's own conditions; the one a
 * caller is given is asked of `plannedWhere` when there is one: the same rows, written for the
 * planner (plannedConditions), whose finer statistics cost a term a millisecond of planning,
 * paid only when the answer is planned. A count that fails for another reason also falls back to
 * the estimate when the database was unavailable; when both fail, or the database refused the
 * statement, the error propagates (503 or 500), never a made-up number.
 * PGlite runs one statement at a time and has no statement timeout, so there the count is
 * always exact (the embedded database holds demo-sized data).
 */
export async function countMatches(reads: ReadNodes, where: SQL, budgetMs: number, plannedWhere?: SQL): Promise<Total> {
  const countSql = countStatement(where);
  if (reads.engine === 'pglite') {
    const [row] = await reads.read('search_count', (database) => database.rows<{ n: number }>(countSql));
    return { value: row?.n ?? 0, accuracy: 'exact' };
  }
  const estimate = await reads.read('search_estimate', (database) => plannedCount(database, where));
  const planned = async (): Promise<Total> => ({ value: plannedWhere === undefined ? estimate : await finerEstimate(reads, plannedWhere, estimate), accuracy: 'planned' });
  if (estimate > EXACT_COUNT_CEILING) return planned();
  try {
    const value = await reads.read('search_count', (database) =>
      database.db
        .transaction(async (tx) => {
          await tx.execute(sql`select set_config('statement_timeout', ${String(Math.round(budgetMs))}, true)`);
          const [row] = resultRows<{ n: number }>(await tx.execute(countSql));
          return row?.n ?? 0;
        })
        // Running out of the budget is how this count is meant to end on a large set, not a
        // failure of the database (the metrics count no error for it): the estimate answers.
        .catch((error: unknown) => {
          if (classifyDatabaseFailure(error).sqlstate === QUERY_CANCELED) return undefined;
          throw error;
        }),
    );
    return value === undefined ? await planned() : { value, accuracy: 'exact' };
  } catch (error) {
    // The database briefly gone: the estimate stands in. A statement the database refused is
    // a defect, and the estimate must not hide it.
    if (classifyDatabaseFailure(error).kind === 'unavailable') return planned();
    throw error;
  }
}

/**
 * The planner's estimate of `plannedWhere`; the first estimate when the database is unavailable
 * for this one too (it answered a moment ago), so that a planned total still stands in.
 */
async function finerEstimate(reads: ReadNodes, plannedWhere: SQL, estimate: number): Promise<number> {
  try {
    return await reads.read('search_estimate', (database) => plannedCount(database, plannedWhere));
  } catch (error) {
    if (classifyDatabaseFailure(error).kind === 'unavailable') return estimate;
    throw error;
  }
}

/**
 * The exact count of a search's matches, without parallel workers: a count that fits a budget
 * of this size is over before workers pay for their start and their shared bitmap. At 30M
 * listings a two-character term's count took 93 ms with them and 11 ms without; no benchmark
 * shape counted faster with them, at 5M or 30M (bench/notes/99).
 */
export function countStatement(where: SQL): SQL {
  return sql`select count(*)::int as n from ${listings} where ${withoutWorkers(where)}`;
}

/** The planner's row estimate for the filters, from EXPLAIN without running the query. */
export async function plannedCount(database: Database, where: SQL): Promise<number> {
  const rows = await database.rows<{ 'QUERY PLAN': unknown }>(
    sql`explain (format json) select 1 from ${listings} where ${where}`,
  );
  const plan = rows[0]?.['QUERY PLAN'];
  const parsed: unknown = typeof plan === 'string' ? JSON.parse(plan) : plan;
  const estimate = (parsed as [{ Plan?: { 'Plan Rows'?: unknown } }] | undefined)?.[0]?.Plan?.['Plan Rows'];
  if (typeof estimate !== 'number' || !Number.isFinite(estimate)) throw new Error('the planner gave no estimate');
  return Math.max(0, Math.round(estimate));
}

/**
 * Totals per filter set, kept for a short while: a walk through many pages of one query is
 * counted once, not once per page. The total does not depend on sort, order or cursor.
 */
export class CountCache {
  private readonly entries = new Map<string, { total: Total; at: number }>();

  constructor(
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 5_000,
  ) {}

  get(key: string, now: number): Total | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || now - entry.at >= this.ttlMs) return undefined;
    return entry.total;
  }

  set(key: string, total: Total, now: number): void {
    this.entries.delete(key);
    this.entries.set(key, { total, at: now });
    // Map keeps insertion order: the first key is the oldest.
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
