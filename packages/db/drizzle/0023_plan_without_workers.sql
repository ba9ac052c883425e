-- A marker that keeps PostgreSQL from planning a statement with parallel workers. A statement
-- that calls a function marked PARALLEL UNSAFE is never given a parallel plan; this one is
-- IMMUTABLE and returns true, so the planner folds it away and the statement runs exactly as it
-- would have. Searches with terms and exact counts call it (packages/db/src/plan-without-workers.ts): those
-- statements end before workers repay their start and shared bitmap (at 30 million listings a
-- two-character term's page took 92 ms with them and 18 ms without). The setting
-- max_parallel_workers_per_gather would do the same, but only as a separate statement before
-- the query (a round trip), or as a connection parameter, which PgBouncer refuses.
CREATE FUNCTION plan_without_workers() RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL UNSAFE
  AS $$ select true $$;
