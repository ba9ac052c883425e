import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Hang guards, not timing checks (see apps/api/vitest.config.ts).
  test: { testTimeout: 120_000, hookTimeout: 180_000 },
});
