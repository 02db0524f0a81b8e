import { defineConfig } from 'vitest/config';

/**
 * The suite Stryker runs against each mutant: unit tests only. End-to-end tests run the bundles in
 * dist/, which a mutant in src/ never reaches, so they could never kill one and would only slow
 * each mutant down. No global setup: the temp-dir census belongs to the full suite.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/support/remove-temp-dirs.ts'],
  },
});
