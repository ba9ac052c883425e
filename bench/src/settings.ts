/** The benchmark's fixed settings; the database can be overridden with BENCH_DATABASE_URL. */
export const BENCH = {
  databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/di_bench',
  importDatabaseUrl: process.env.BENCH_IMPORT_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/di_bench_import',
  redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  rows: Number(process.env.BENCH_ROWS ?? 5_000_000),
  /**
   * Where a run's figures go: results.json for the standard 5M run that BENCHMARKS.md is made
   * from, results-<millions>m.json for another size (set beside it in BENCHMARKS.md).
   */
  resultsFile:
    process.env.BENCH_RESULTS_FILE ?? (Number(process.env.BENCH_ROWS ?? 5_000_000) === 5_000_000 ? 'results.json' : `results-${Number(process.env.BENCH_ROWS) / 1_000_000}m.json`),
  seed: 42,
  /** Requests per shape at concurrency 1. */
  sequentialRequests: Number(process.env.BENCH_SEQUENTIAL ?? 200),
  /** Seconds of load per shape at concurrency 32. */
  loadSeconds: Number(process.env.BENCH_LOAD_SECONDS ?? 5),
  concurrency: 32,
  /** Change-feed events a day, 14 days of them in the same database: 5 % of the listings changing a day. */
  eventsPerDay: Number(process.env.BENCH_EVENTS_PER_DAY ?? Number(process.env.BENCH_ROWS ?? 5_000_000) / 20),
  /** Watched names (watchlists of 1,000), each with a year of history, in the same database. */
  watched: Number(process.env.BENCH_WATCHED ?? 100_000),
  /** API processes (WORKERS): one per core of this 2-core machine, as an operator would run it. */
  workers: Number(process.env.BENCH_WORKERS ?? 2),
} as const;
