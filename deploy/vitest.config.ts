import { defineConfig } from 'vitest/config';

// One file at a time: the image suite builds and runs containers, the others start servers of
// their own, on a 2-core machine. Hang guards only: a cold image build takes minutes.
export default defineConfig({
  test: {
    testTimeout: 300_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
