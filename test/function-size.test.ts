/**
 * Issue 27's rule on function size, which ESLint's max-lines-per-function cannot say alone: none over
 * 150 lines (eslint.config.mjs refuses those), and at most three over 100. Lines as ESLint counts
 * them, without blank lines and comments.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

async function longFunctions(files: string[], max: number): Promise<string[]> {
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    allowInlineConfig: false,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        rules: { 'max-lines-per-function': ['error', { max, skipBlankLines: true, skipComments: true }] },
      },
    ],
  });
  const results = await eslint.lintFiles(files);
  return results.flatMap((r) =>
    r.messages
      .filter((m) => m.ruleId === 'max-lines-per-function')
      .map((m) => `${r.filePath.slice(ROOT.length + 1)}:${m.line} ${m.message}`),
  );
}

describe('function size in src/', () => {
  it('has at most three functions over 100 lines', async () => {
    const found = await longFunctions(['src/**/*.ts'], 100);
    expect(found.length, found.join('\n')).toBeLessThanOrEqual(3);
  });

  it('counts a function over the limit (the check sees what it should)', async () => {
    const found = await longFunctions(['src/session/file-store.ts', 'src/common/text.ts'], 20);
    expect(found.some((f) => f.startsWith('src/session/file-store.ts:'))).toBe(true);
    expect(found.some((f) => f.startsWith('src/common/text.ts:'))).toBe(false);
  });
});
