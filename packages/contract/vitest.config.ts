import { defineConfig } from 'vitest/config';

export default defineConfig({
  // A hang guard, not a timing check: the OpenAPI samples' test starts a dozen shells, which
  // takes longer than vitest's default 5 s on a loaded 2-core runner.
  test: { testTimeout: 120_000 },
});
