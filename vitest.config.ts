import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Shared 2-core machines: keep a few files at once, never assert times.
    maxWorkers: 2,
  },
});
