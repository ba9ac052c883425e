import { sourceBatches, sql } from '@domain-index/db';

/**
 * A listing's `last_checked_at`: the time its source's current batch was applied. Selected as
 * a correlated subquery rather than a join, so that it never changes how PostgreSQL plans the
 * search itself; it is evaluated for the returned rows only. Written out qualified: Drizzle
 * leaves columns of a single-table select unqualified, which would bind to the subquery's table.
 */
export const lastCheckedAt = sql<Date>`(select b.applied_at from source_batches b where b.source = "listings"."source")`.mapWith(
  sourceBatches.appliedAt,
);
