import { defineConfig } from 'vitest/config';

// Two files at a time: the image suite spends minutes building (in dockerd, not here) while
// the nginx, upgrade and systemd suites run beside it. Hang guards only: a cold image build
// takes minutes.
export default defineConfig({
  test: {
    testTimeout: 300_000,
    hookTimeout: 900_000,
    maxWorkers: 2,
    minWorkers: 2,
  },
});
