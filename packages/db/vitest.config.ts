import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Hang guards, not timing checks (see tooling/vitest).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // fails a run that leaves test databases on the shared PostgreSQL server
    globalSetup: ['./src/test-database-leaks.ts'],
  },
});
