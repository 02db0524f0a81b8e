import { readFileSync } from 'node:fs';

/**
 * A committed source file's text, as a generator would write it. Under mutation testing, Stryker
 * copies the sources into its sandbox with a `// @ts-nocheck` line put first (its
 * disableTypeChecks); that line is not the file's, so a staleness check leaves it out.
 */
export function readCommittedSource(path: string): string {
  const text = readFileSync(path, 'utf8');
  return process.env.STRYKER_MUTATOR_WORKER !== undefined ? text.replace(/^\/\/ @ts-nocheck\n/, '') : text;
}
