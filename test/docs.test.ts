/**
 * README stays true to the repository: its inputs and outputs tables are what action.yml says
 * (scripts/readme-inputs.mjs, also run by .ci/run), and it links only to files that are here.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { parseActionYml, renderTables, withTables } from '../scripts/readme-inputs.mjs';
import { REPO_ROOT } from './support/e2e-runner.js';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const actionText = readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8');

describe('README', () => {
  it('has the inputs and outputs tables action.yml gives (npm run docs --check)', () => {
    const r = spawnSync(process.execPath, ['scripts/readme-inputs.mjs', '--check'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
  });

  it('the check notices a new input, a changed default and a changed description', () => {
    const fresh = withTables(readme, renderTables(parseActionYml(actionText)));
    expect(fresh).toBe(readme);
    const added = actionText.replace(
      '\noutputs:\n',
      "\n  new-input:\n    description: Something new.\n    default: 'x'\n\noutputs:\n",
    );
    expect(withTables(readme, renderTables(parseActionYml(added)))).not.toBe(readme);
    expect(
      withTables(readme, renderTables(parseActionYml(actionText.replace("default: '40'", "default: '41'")))),
    ).not.toBe(readme);
    expect(
      withTables(readme, renderTables(parseActionYml(actionText.replace('The Gemini model to use.', 'The model.')))),
    ).not.toBe(readme);
  });

  it('a broken action.yml is an error naming its line, not a table', () => {
    expect(() => parseActionYml('inputs:\n  a:\n    description: per command: x\n')).toThrow(/^action\.yml:3: /);
  });

  it('links only to files in this repository (or to web pages)', () => {
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1])
      .filter((t) => !/^(https?:|#|mailto:)/.test(t));
    expect(targets.filter((t) => t.startsWith('..') || !existsSync(join(REPO_ROOT, t.split('#')[0])))).toEqual([]);
    expect(readme).not.toMatch(/\.\.\/shared|steering repo/);
  });

  it('names the test command and the demo command it promises first', () => {
    expect(readme.split('\n').slice(2, 5).join('\n')).toMatch(/npm ci && npm run demo[\s\S]*npm ci && npm test/);
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      engines: { node: string };
    };
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(['demo', 'test', 'docs']));
    expect(pkg.engines.node).toBe('>=22');
  });
});
