import { defineConfig } from 'vitest/config';
import FastFirstSequencer from './test/support/fast-first-sequencer.js';

/**
 * The suite Stryker runs against each mutant: unit tests only. End-to-end tests run the bundles in
 * dist/, which a mutant in src/ never reaches, so they could never kill one and would only slow
 * each mutant down. No global setup: the temp-dir census belongs to the full suite.
 *
 * The splitter-against-bash property test (test/policy/shell/split-bash.test.ts) is left out: it
 * covers nearly every policy mutant and spends seconds running bash per mutant (hours over the
 * policy folder), and fewer generated lines than its default make its own coverage checks fail.
 * The splitter's unit tests (test/policy/shell-*.test.ts) pin each construct it exercises with a
 * literal expected split, and those are what kill the splitter's mutants; the property test still
 * runs in `npm test`.
 */
export default defineConfig({
  test: {
    // `npm run mutate -- --tests=GLOB,...` narrows the suite (scripts/mutate.mjs passes it on).
    include: process.env.MUTATE_TESTS ? process.env.MUTATE_TESTS.split(',') : ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', '**/node_modules/**', 'test/policy/shell/split-bash.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/support/remove-temp-dirs.ts'],
    // A mutant stops at its first failing test: run the files likely to fail it, and the fast ones, first.
    sequence: { sequencer: FastFirstSequencer },
  },
});
