import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every temp dir a test file makes is removed after it; the census fails a run that leaks one.
    setupFiles: ['test/support/remove-temp-dirs.ts'],
    globalSetup: ['test/support/temp-census.ts'],
    // The built CLI keeps its compile caches in the user's ~/.cache (scripts/cli-bin.mjs); the
    // runs a test starts keep it where Node does by default, shared by the suite (the census allows it).
    env: { NODE_COMPILE_CACHE: join(tmpdir(), 'node-compile-cache') },
    // Shared 2-core machines: keep a few files at once, never assert times.
    maxWorkers: 2,
  },
});
