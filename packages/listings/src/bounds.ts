import { sql, type AnyPgColumn, type SQL } from '@domain-index/db';
import { inline, type Bind } from './bind';
import { float4Threshold } from './float4-threshold';

/** Which end of a range a parameter bounds. */
export type BoundSide = 'lower' | 'upper';

/**
 * `column >= value` (lower) or `column <= value` (upper), with the value sent in a type that
 * holds every number the contract accepts, and compared as the customer reads it:
 * - whole-number columns: `>= 40.5` is `>= 41` and `<= 37.169` is `<= 37`, sent as bigint, so a
 *   fraction or a 15-digit value never meets a smallint or integer parameter (which PostgreSQL
 *   refuses), and smallint/integer against bigint is still answered by a btree;
 * - numeric (money) columns: the value as numeric, of any size or scale;
 * - real columns: the float4 threshold of float4-threshold.ts, exact against the shown values.
 * A lower bound of 0 is not applied: every bounded column is >= 0, so it could only drop rows
 * whose value is unknown (decisions.md). A bound on a nullable column excludes unknown values.
 * The kind comes from the column's own declaration, so a new bound on a new column type fails
 * here at once instead of reaching the database untyped.
 */
export function bound(column: AnyPgColumn, side: BoundSide, value: number | undefined, bind: Bind = inline): SQL | undefined {
  if (!boundApplies(side, value)) return undefined;
  const operator = side === 'lower' ? sql`>=` : sql`<=`;
  switch (column.columnType) {
    case 'PgSmallInt':
    case 'PgInteger':
    case 'PgBigInt53':
      return sql`${column} ${operator} ${bind(side === 'lower' ? Math.ceil(value) : Math.floor(value))}::bigint`;
    case 'PgNumeric':
    case 'PgNumericNumber':
      return sql`${column} ${operator} ${bind(value)}::numeric`;
    case 'PgReal':
      return sql`${column} ${operator} ${bind(float4Threshold(value, side))}::real`;
    default:
      throw new Error(`no bound is defined for ${column.name}, a ${column.columnType} column`);
  }
}

/** Whether a bound is applied: given, and not a lower bound of 0 (see `bound`). */
export function boundApplies(side: BoundSide, value: number | undefined): value is number {
  return value !== undefined && !(side === 'lower' && value === 0);
}
