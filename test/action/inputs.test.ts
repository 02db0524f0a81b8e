import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { parseDurationMs, parseInputs, parsePolicyInput, readInputs } from '../../src/action/inputs.js';

/** Every input with action.yml's default, as a runner sets them, plus the runner's own variables. */
function runnerEnv(overrides: Record<string, string> = {}): Record<string, string> {
  const yml = readFileSync(new URL('../../action.yml', import.meta.url), 'utf8');
  const env: Record<string, string> = { GITHUB_REPOSITORY: 'octo/hello', GITHUB_EVENT_NAME: 'issue_comment', GITHUB_WORKSPACE: '/tmp/ws' };
  const inputs = yml.slice(yml.indexOf('inputs:'), yml.indexOf('outputs:'));
  for (const m of inputs.matchAll(/^ {2}([a-z-]+):\n(?: {4}.*\n)*? {4}default: (.*)$/gm)) {
    const raw = m[2].trim();
    env[`INPUT_${m[1].toUpperCase()}`] = raw === "''" ? '' : raw.startsWith('${{') ? 'ghs_workflowtoken123' : raw.replace(/^'(.*)'$/, '$1');
  }
  env['INPUT_GEMINI-API-KEY'] = 'AIza-test-key-123456';
  return { ...env, ...overrides };
}

describe('parseInputs', () => {
  it('reads action.yml defaults into settings', () => {
    const r = parseInputs(runnerEnv());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.settings).toMatchObject({
      model: 'gemini-2.5-pro',
      trigger: '/agent',
      approvalMode: undefined,
      maxTurns: 40,
      timeoutMs: 30 * 60_000,
      triageLabel: 'needs-triage',
      fixLabel: 'agent-fix',
      approvalTimeoutMs: 7 * 86_400_000,
      contextFileNames: ['GEMINI.md'],
      githubToken: 'ghs_workflowtoken123',
    });
    expect(r.runner.repository).toEqual({ owner: 'octo', repo: 'hello' });
  });

  it.each([
    ['INPUT_GEMINI-API-KEY', '', 'gemini-api-key'],
    ['INPUT_GITHUB-TOKEN', '', 'github-token'],
    ['INPUT_APPROVAL-MODE', 'always', 'approval-mode'],
    ['INPUT_MAX-TURNS', '0', 'max-turns'],
    ['INPUT_MAX-TURNS', 'ten', 'max-turns'],
    ['INPUT_TIMEOUT-MINUTES', '-5', 'timeout-minutes'],
    ['INPUT_MAX-COST-USD', 'lots', 'max-cost-usd'],
    ['INPUT_POLICY', '[[rule]\ntoolName = "x"', 'policy'],
    ['INPUT_ADMIN-POLICY', 'rules.json', 'admin-policy'],
    ['INPUT_APPROVAL-TIMEOUT', 'a week', 'approval-timeout'],
    ['INPUT_TRIGGER', '/agent please', 'trigger'],
    ['INPUT_GEMINI-BASE-URL', 'ftp://x', 'gemini-base-url'],
    ['INPUT_ISSUE-NUMBER', '#12', 'issue-number'],
  ])('%s=%j is an error naming %s and quoting the value', (key, value, input) => {
    const r = parseInputs(runnerEnv({ [key]: value }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].input).toBe(input);
    expect(r.errors[0].message).toContain(`'${input}'`);
    expect(r.errors[0].message).toContain(JSON.stringify(value));
    expect(r.errors[0].message).toMatch(/expected/);
  });

  it('collects every error at once', () => {
    const r = parseInputs(runnerEnv({ 'INPUT_GEMINI-API-KEY': '', 'INPUT_APPROVAL-MODE': 'x', 'INPUT_MAX-TURNS': 'y' }));
    expect(r.ok ? [] : r.errors.map((e) => e.input)).toEqual(['gemini-api-key', 'approval-mode', 'max-turns']);
  });

  it.each([
    ['auto_edit', 'autoEdit'],
    ['default', 'default'],
    ['yolo', 'yolo'],
    ['plan', 'plan'],
  ])('approval-mode %s maps to %s', (value, mode) => {
    const r = parseInputs(runnerEnv({ 'INPUT_APPROVAL-MODE': value }));
    expect(r.ok && r.settings.approvalMode).toBe(mode);
  });

  it('reads a missing GITHUB_REPOSITORY as an error', () => {
    const r = parseInputs(runnerEnv({ GITHUB_REPOSITORY: '' }));
    expect(r.ok ? [] : r.errors.map((e) => e.input)).toEqual(['GITHUB_REPOSITORY']);
  });

  it('splits allowed-bots and lower-cases them', () => {
    const r = parseInputs(runnerEnv({ 'INPUT_ALLOWED-BOTS': 'Dependabot[bot],\nrenovate[bot]' }));
    expect(r.ok && r.settings.allowedBots).toEqual(['dependabot[bot]', 'renovate[bot]']);
  });
});

describe('readInputs', () => {
  it('masks secrets before parsing, even when other inputs are wrong', () => {
    const masked: string[] = [];
    let thrown: unknown;
    try {
      readInputs(runnerEnv({ 'INPUT_MAX-TURNS': 'nope' }), (s) => masked.push(s));
    } catch (e) {
      thrown = e;
    }
    expect(masked).toEqual(['AIza-test-key-123456', 'ghs_workflowtoken123']);
    expect(isAgentError(thrown) && thrown.kind).toBe('input');
    expect(isAgentError(thrown) && thrown.site.input).toBe('max-turns');
  });
});

describe('parsePolicyInput', () => {
  it.each([
    ['', { kind: 'none' }],
    ['policies/a.toml, policies/b.toml', { kind: 'paths', paths: ['policies/a.toml', 'policies/b.toml'] }],
    ['[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 10\n', { kind: 'inline' }],
  ])('%j', (raw, expected) => {
    expect(parsePolicyInput(raw)).toMatchObject(expected);
  });
});

describe('parseDurationMs', () => {
  it.each([
    ['30s', 30_000],
    ['90m', 5_400_000],
    ['12h', 43_200_000],
    ['7d', 604_800_000],
    ['45', 2_700_000],
    ['0d', undefined],
    ['soon', undefined],
  ])('%s', (raw, ms) => expect(parseDurationMs(raw)).toBe(ms));
});
