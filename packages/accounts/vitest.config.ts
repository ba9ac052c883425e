import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Hang guards, not timing checks (see apps/cli/vitest.config.ts).
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
