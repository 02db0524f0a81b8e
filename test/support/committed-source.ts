import { readFileSync } from 'node:fs';

/**
 * What a staleness test compares: a generator's fresh text and the committed file's text, as
 * `sourceText(fresh)` and `readCommittedSource(path)`. Under mutation testing Stryker copies the sources
 * into its sandbox with a `// @ts-nocheck` line put first and every `@ts-nocheck` the file already had
 * taken out of its comment (its disableTypeChecks); there both sides lose those, so only what the
 * generator wrote is compared. Elsewhere the texts are compared as they are.
 */
const underStryker = process.env.STRYKER_MUTATOR_WORKER !== undefined;

export function sourceText(text: string): string {
  return underStryker ? text.replace(/^\/\/ @ts-nocheck\n/, '').replaceAll('@ts-nocheck', '') : text;
}

export function readCommittedSource(path: string): string {
  return sourceText(readFileSync(path, 'utf8'));
}
