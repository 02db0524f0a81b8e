import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { displayRuleSource } from '../../src/action/rule-source.js';
import { REPO_ROOT } from '../support/e2e-runner.js';

describe('displayRuleSource', () => {
  const ws = '/home/runner/work/hello/hello';
  it.each([
    [join(REPO_ROOT, 'policies/shell.toml'), 'agent-action/policies/shell.toml'],
    [`${ws}/.gemini/policies/deps.toml`, '.gemini/policies/deps.toml'],
    [`${ws}/ci/agent-policy.toml`, 'ci/agent-policy.toml'],
    ['/tmp/agent-action-trusted-Ab12/.gemini/policies/deps.toml', '.gemini/policies/deps.toml'],
    ['/etc/agent/admin.toml', 'admin.toml'],
    ["input 'policy'", "input 'policy'"],
    ['always-approval', 'always-approval'],
  ])('%s -> %s', (source, shown) => {
    expect(displayRuleSource(source, ws)).toBe(shown);
  });

  it('never shows a runner path', () => {
    for (const p of [
      `${ws}/x.toml`,
      '/home/runner/work/_actions/org/agent-action/v1/policies/shell.toml',
      '/tmp/a/b.toml',
    ])
      expect(displayRuleSource(p, ws)).not.toMatch(/^\//);
  });
});
