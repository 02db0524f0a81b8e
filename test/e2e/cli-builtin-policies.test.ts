/**
 * The built-in policies are data the bundle reads at run time from dist/policies/ (the build copies
 * policies/*.toml there). A broken file among them stops the CLI with an error that names the file
 * and the line, never a stack trace, and no decision is made without it. Build first.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/git-repo.js';

const ROOT = join(import.meta.dirname, '../..');
const NODE24 = join(ROOT, 'test/node24/node_modules/.bin/node');

/** The whole bundle in a fresh package folder, so that its dist/policies/ can be changed. */
function installedCopy(): string {
  const root = makeTempDir('cli-builtin-policies-');
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'agent-action', version: '0.1.0', type: 'module' }));
  cpSync(join(ROOT, 'dist'), join(root, 'dist'), { recursive: true });
  return root;
}

const check = (root: string) =>
  spawnSync(
    NODE24,
    [
      join(root, 'dist/cli/index.js'),
      'policy',
      'check',
      '--tool',
      'write_file',
      '--args',
      '{"file_path":".github/workflows/ci.yml","content":"x"}',
      '--json',
    ],
    {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    },
  );

describe('the built-in policies beside the bundle', () => {
  it('are the ones decided by, read from dist/policies/', () => {
    const root = installedCopy();
    const r = check(root);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({
      decision: 'deny',
      rule: { source: join(root, 'dist/policies/edits.toml'), tier: 'default' },
    });
  });

  it('a broken one is a configuration error naming the file and line, not a stack trace', () => {
    const root = installedCopy();
    const file = join(root, 'dist/policies/edits.toml');
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, [...lines.slice(0, 2), 'decision = "allow', ...lines.slice(2)].join('\n'));
    const r = check(root);
    expect(r.status).toBe(52);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`agent-action's own policies are broken (reinstall the action): ${file}:3:`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
