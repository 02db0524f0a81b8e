/**
 * Every YAML file git tracks (or would: new files not ignored) parses strictly with a real YAML 1.2 parser (the `yaml` package), as
 * GitHub's runner and local-action parse action.yml and workflows: one `key: value` too many in a
 * plain scalar and this fails, naming the file, line and column.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseYamlStrict } from './support/action-yml.js';
import { REPO_ROOT } from './support/e2e-runner.js';

const tracked = execFileSync(
  'git',
  ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '*.yml', '*.yaml'],
  { cwd: REPO_ROOT, encoding: 'utf8' },
)
  .split('\0')
  .filter(Boolean);

describe('every tracked YAML file', () => {
  it('includes action.yml and the workflows', () => {
    expect(tracked).toEqual(
      expect.arrayContaining(['action.yml', '.github/workflows/agent.yml', '.github/workflows/release.yml']),
    );
  });

  it.each(tracked)('%s parses strictly', (file) => {
    const docs = parseYamlStrict(readFileSync(join(REPO_ROOT, file), 'utf8'), file);
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.every((d) => d !== null && typeof d === 'object')).toBe(true);
  });
});
