import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Hang guards, not timing checks: generous, so that a loaded 2-core runner (a browser, a
 * PostgreSQL of a test's own, a benchmark beside the suite) is slow, never failed.
 */
const hangGuards = {
  testTimeout: 120_000,
  hookTimeout: 180_000,
  // expect.poll waits 1 s by default: a state that a child process, a database round trip or a
  // browser reaches is polled for 15 s, and a poll still ends as soon as its state is reached
  expect: { poll: { timeout: 15_000 } },
};

/** Suites of pure code and of a package's own parts. */
export const unitSuites = defineConfig({ test: hangGuards });

// vitest runs cores - 1 files at a time: one on a 2-core runner, which then sat half idle while
// a suite waited on the processes it started (the CLI, serve, PostgreSQL, a browser). Two at
// least; as many as vitest's default where there are more cores. As many kept alive as may run,
// or tinypool starts no second fork for the last queued file while one is still busy.
const files = Math.max(2, availableParallelism() - 1);

/** The apps' suites: servers, databases and browsers of their own, two files at a time at least. */
export const appSuites = defineConfig({
  test: {
    ...hangGuards,
    maxWorkers: files,
    minWorkers: files,
    // fails a run that leaves test databases on the shared PostgreSQL server; gives the run
    // its migrated PGlite templates, copied where a suite wants a fresh database
    globalSetup: ['@domain-index/db/test-database-leaks', '@domain-index/db/pglite-templates'],
  },
});
