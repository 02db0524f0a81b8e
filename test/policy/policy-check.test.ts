import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPolicyCheck } from '../../src/cli/policy-check.js';
import { makeTempDir } from '../support/git-repo.js';

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runPolicyCheck(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

function policyFile(text: string): string {
  const dir = makeTempDir('policy-check-');
  const file = join(dir, 'p.toml');
  writeFileSync(file, text);
  return file;
}

describe('agent-action policy check', () => {
  it('prints the decision first, then the rule with file, line, tier and final priority', async () => {
    const file = policyFile(
      '# c\n\n[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "npm test"\ndecision = "allow"\npriority = 250\n',
    );
    const r = await run('--tool', 'run_shell_command', '--args', '{"command":"npm test"}', '--policy', file);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('allow');
    expect(lines[1]).toBe(`rule: ${file}:3 (tier user, priority 4.250)`);
    expect(lines[2]).toMatch(/^reason: /);
  });

  it('--json', async () => {
    const r = await run('--tool', 'read_file', '--args', '{"file_path":"a"}', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      decision: 'allow',
      rule: { source: expect.stringMatching(/policies\/read-only\.toml$/), line: 6, tier: 'default', priority: 1.05 },
      reason: expect.any(String),
    });
  });

  it.each([
    [['--context', 'action'], 'deny'],
    [['--context', 'interactive'], 'ask_user'],
    [['--context', 'headless'], 'deny'],
  ])('no rule matched (%j): says which default applied', async (flags, want) => {
    const r = await run('--tool', 'mystery', '--no-defaults', ...flags);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(want);
    expect(r.stdout).toMatch(/rule: none matched; the \w+ context's default applied/);
  });

  it('--mode auto_edit maps to autoEdit; headless prints the effective decision', async () => {
    expect((await run('--tool', 'write_file', '--args', '{"file_path":"a"}', '--mode', 'auto_edit')).stdout).toMatch(
      /^allow\n/,
    );
    expect((await run('--tool', 'write_file', '--args', '{"file_path":"a"}', '--context', 'headless')).stdout).toMatch(
      /^deny\n/,
    );
  });

  it('tiers from flags: an admin deny beats a workspace allow', async () => {
    const allow = policyFile('[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 999\n');
    const deny = policyFile('[[rule]]\ntoolName = "x"\ndecision = "deny"\npriority = 0\n');
    const r = await run('--tool', 'x', '--no-defaults', '--workspace-policy', allow, '--admin-policy', deny, '--json');
    expect(JSON.parse(r.stdout)).toMatchObject({
      decision: 'deny',
      rule: { source: deny, tier: 'admin', priority: 5 },
    });
  });

  it('MCP server, annotations and subagent flags reach the query', async () => {
    const file = policyFile(
      '[[rule]]\ntoolName = "*"\nmcpName = "db"\nsubagent = "s"\ntoolAnnotations = { readOnlyHint = true }\ndecision = "allow"\npriority = 1\n',
    );
    const r = await run(
      '--tool',
      'query',
      '--server',
      'db',
      '--annotations',
      '{"readOnlyHint":true}',
      '--subagent',
      's',
      '--no-defaults',
      '--policy',
      file,
    );
    expect(r.stdout).toMatch(/^allow\n/);
  });

  it('exit 52 with every diagnostic for a bad policy file', async () => {
    const file = policyFile(
      '[[rule]]\ntoolName = "x"\npriority = 5\n\n[[rule]]\ntoolName = "y"\ndecision = "allow"\npriority = 1000\n',
    );
    const r = await run('--tool', 'x', '--policy', file);
    expect(r.code).toBe(52);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${file}:1:1: error: rule #1: decision is missing`);
    expect(r.stderr).toContain(`${file}:8:1: error: rule #2: priority`);
  });

  it.each([
    [[], '--tool'],
    [['--tool', 'x', '--args', '{nope'], '--args'],
    [['--tool', 'x', '--args', '[1]'], '--args'],
    [['--tool', 'x', '--annotations', '3'], '--annotations'],
    [['--tool', 'x', '--mode', 'fast'], '--mode'],
    [['--tool', 'x', '--context', 'cloud'], '--context'],
    [['--tool', 'x', '--frobnicate'], '--frobnicate'],
    [['--tool'], '--tool'],
  ])('exit 42 naming the flag: %j', async (argv, flag) => {
    const r = await run(...argv);
    expect(r.code).toBe(42);
    expect(r.stderr).toContain(flag);
  });
});
