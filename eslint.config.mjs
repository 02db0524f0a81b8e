// @ts-check
/**
 * ESLint (issue #12): typescript-eslint's recommended set plus the type-aware rules that catch
 * the bugs this codebase can have and a type check cannot: a promise nobody awaits (a tool run or
 * a comment post that fails silently), a promise passed where a callback returns void, a switch
 * over a union that misses a new variant. Type information comes from tsconfig.json through the
 * project service; the .mjs scripts and hooks are plain JS and are linted without it.
 */
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['dist/', 'coverage/', 'reports/', '.stryker-tmp/', 'test/node24/', '**/node_modules/'],
  },
  tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        // scripts/demo.ts and the root configs are outside tsconfig.json's `include`.
        projectService: { allowDefaultProject: ['scripts/*.ts', '*.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A few of ESLint's own recommended rules (@eslint/js is not installed; these need no plugin).
      'no-debugger': 'error',
      'no-dupe-keys': 'error',
      'no-duplicate-case': 'error',
      'no-self-assign': 'error',
      'no-unsafe-finally': 'error',
      'no-unreachable': 'error',
      'no-cond-assign': ['error', 'except-parens'],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-useless-catch': 'error',
      // A `let` that a callback built before the value exists reads later (run-task.ts's checkpoint
      // hook reads the prepared run) cannot be a `const`: the read comes first in the source.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        // A `default` that handles the rest on purpose is fine; a missing case without one is not.
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // STYLE.md: more than three parameters take an options object (issue #12). Tests are exempt:
    // `it.each` rows and helpers that mirror a table's columns read better positionally.
    files: ['src/**/*.ts'],
    rules: {
      'max-params': ['error', 3],
      // Issue 27: a function fits one screenful of reading. Over 100 lines is allowed in at most three
      // places (test/function-size.test.ts counts them); over 150 in none.
      'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }],
      // TypeBox's type builders are a ~450 KB module: a value import from its root would load them
      // before the first model request (issue #16). Schemas are plain JSON Schema; `typebox/value`
      // and `typebox/schema` (the validators, loaded when first needed) stay allowed.
      // src/common/time.ts says why: Date's string methods load ICU's time zone data on Node 24.
      'no-restricted-properties': [
        'error',
        { property: 'toISOString', message: 'Use isoTime() from src/common/time.ts.' },
        { property: 'toUTCString', message: 'Use isoTime() from src/common/time.ts.' },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'typebox',
              allowTypeImports: true,
              message: 'Write the schema as a plain JSON-Schema literal (`as const`); import only types from typebox.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests forge what the types forbid (a tampered session, a payload missing a field) to check
    // that the code refuses it: `as any` there is the point of the test.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Plain JavaScript: no type information, so no type-aware rules.
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
