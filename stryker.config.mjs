// @ts-check
/**
 * Mutation testing of the modules that guard users (issue #12). `npm run mutate` runs this config
 * and then prints the per-module table and writes bench/mutation.md (scripts/mutate.mjs). To mutate
 * only some modules: `npm run mutate -- src/core/retry.ts src/policy/`.
 *
 * Survivors judged equivalent are marked in the source, next to the code, with
 * `// Stryker disable next-line <Mutator>: <reason>`; the report counts them as ignored.
 */

/** The guarded modules: a folder (every .ts file under it) or one file. Add new guards here. */
export const GUARDED_MODULES = [
  'src/policy/',
  'src/action/approval/',
  'src/action/authorize.ts',
  'src/tools/workspace.ts',
  'src/tools/confined-fs.ts',
  'src/context/untrusted.ts',
  'src/context/untrusted-markdown.ts',
  'src/context/linear-scan.ts',
  'src/core/retry.ts',
  'src/core/loop-guard.ts',
  'src/core/content-loop.ts',
  'src/sandbox/',
  'src/session/sign.ts',
  'src/git/env.ts',
  'src/action/publish/inert-text.ts',
  'src/tools/linear-regex.ts',
  'src/tools/shell-env.ts',
];

/** A module as Stryker's `mutate` globs. */
export const globsOf = (module) => (module.endsWith('/') ? [`${module}**/*.ts`] : [module]);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: true },
  // `npm run mutate -- --no-check` (MUTATE_NO_CHECK) skips the type checker: several times faster on a
  // busy machine, but mutants that would not compile are then run and counted like any other.
  checkers: process.env.MUTATE_NO_CHECK ? [] : ['typescript'],
  // Equivalent mutants by rule rather than line: the WorkMeter counts of the linear-time scanners.
  plugins: ['@stryker-mutator/*', './scripts/stryker-work-meter.mjs'],
  ignorers: ['work-meter'],
  // The checker type-checks src/ only (tsconfig.mutate.json): tests are transpiled, never type-checked,
  // when vitest runs them, and leaving them out of the program roughly halves the checker's work per
  // mutant, which is most of a run's time on two shared cores.
  tsconfigFile: 'tsconfig.mutate.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: GUARDED_MODULES.flatMap(globsOf),
  // The machine is shared: one or two test processes at a time.
  concurrency: 2,
  // Fake servers and real git make some tests take seconds; a mutant that hangs the loop is a timeout.
  timeoutMS: 10_000,
  // The first run (all related tests, with coverage) takes minutes when other work shares the cores.
  dryRunTimeoutMinutes: 60,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: null },
  // Not needed to run the unit tests, and large: the bundles, the Node 24 install, the e2e tests.
  ignorePatterns: ['/dist', '/test/node24/node_modules', '/test/e2e', '/coverage', '/.vitest-report.json'],
  // Reuse the results of mutants whose code and tests did not change since the last run (the full
  // set is ~3,400 mutants, hours on two cores). `npm run mutate -- --force` re-tests everything.
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
