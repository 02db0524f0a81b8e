/**
 * Decision paths the reason table (decide-reasons.test.ts) does not walk: which calls take the shell
 * path at all, the whole-line argsPattern check and when it is skipped, redirections that write
 * protected or build files, and guards that apply to one decision only. Literal verdicts throughout.
 */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../src/policy/load.js';
import type { ApprovalMode, PolicyContext, PolicyQuery, PolicyVerdict } from '../../src/policy/types.js';

const rule = (fields: string, decision = 'allow', priority = 100) =>
  `[[rule]]\n${fields}\ndecision = "${decision}"\npriority = ${priority}\n`;
const engine = (toml: string, context: PolicyContext = 'action') =>
  loadPolicy({
    context,
    useBuiltinDefaults: false,
    workspace: '/ws',
    tiers: { user: [{ inline: toml, label: 'user.toml' }] },
  });
const shell = (command: string, extra: Record<string, unknown> = {}): PolicyQuery => ({
  toolName: 'run_shell_command',
  args: { command, ...extra },
});
const by = (decision: string, priority = '4.100', line = 1) =>
  `${decision} by rule at user.toml:${line} (user tier, priority ${priority})`;
const decide = async (
  toml: string,
  q: PolicyQuery,
  mode: ApprovalMode = 'default',
  context: PolicyContext = 'action',
): Promise<PolicyVerdict> => (await engine(toml, context)).decide(q, mode);

describe('which calls are shell calls', () => {
  it('another tool with a command argument is decided as a whole, not split', async () => {
    const v = await decide(rule('toolName = "mcp_x_run"'), { toolName: 'mcp_x_run', args: { command: 'rm -rf /' } });
    expect(v).toEqual({
      decision: 'allow',
      rule: { source: 'user.toml', line: 1, tier: 'user', priority: 4.1, decision: 'allow' },
      reason: by('allow'),
    });
  });

  it('a shell call whose command is not a string is decided as a whole', async () => {
    const v = await decide(rule('toolName = "run_shell_command"'), {
      toolName: 'run_shell_command',
      args: { command: 5 },
    });
    expect(v.reason).toBe(by('allow'));
  });

  it('a command that splits into nothing is decided by the rules for the whole call', async () => {
    expect((await decide(rule('toolName = "run_shell_command"'), shell(' '))).reason).toBe(by('allow'));
  });
});

describe('the whole-line argsPattern check', () => {
  const toml =
    rule('toolName = "run_shell_command"\ncommandPrefix = "git"', 'allow', 200) +
    rule('toolName = "run_shell_command"\nargsPattern = "git"', 'deny', 100);
  it('is skipped when the one sub-command is the whole line: the higher rule decides', async () => {
    expect(await decide(toml, shell('git status'))).toMatchObject({
      decision: 'allow',
      reason: `"git status": ${by('allow', '4.200')}`,
    });
  });

  it('is skipped when the line only has blanks around the one sub-command', async () => {
    expect((await decide(toml, shell('  git status  '))).decision).toBe('allow');
  });

  it('runs when the line has several sub-commands', async () => {
    expect(await decide(toml, shell('git status && git log'))).toMatchObject({
      decision: 'deny',
      reason: 'deny for the whole command by rule at user.toml:6 (user tier, priority 4.100)',
    });
  });
});

describe('redirections that write', () => {
  const echo = rule('toolName = "run_shell_command"\ncommandPrefix = "echo"\nallowRedirection = true');
  it('into .git/ is denied outside yolo, allowed in yolo', async () => {
    expect(await decide(echo, shell('echo x > .git/config'))).toMatchObject({
      decision: 'deny',
      rule: null,
      reason:
        'a redirection writes ".git/config", and it is inside .git/, which only people change; only yolo mode lets a command write there',
    });
    expect((await decide(echo, shell('echo x > .git/config'), 'yolo')).decision).toBe('allow');
  });

  it('a build file is asked about, and says why', async () => {
    expect(await decide(echo, shell('echo x > package.json'))).toEqual({
      decision: 'ask_user',
      rule: null,
      reason:
        'a redirection writes "package.json", a build file (it says what build and test commands run), so it needs a person\'s confirmation like an edit of it',
    });
  });

  it('a directory that is not text counts as the workspace root', async () => {
    expect((await decide(echo, shell('echo x > out.txt', { dir_path: 5 }))).decision).toBe('allow');
    expect((await decide(echo, shell('echo x > out.txt', { dir_path: '' }))).decision).toBe('allow');
    expect((await decide(echo, shell('echo x > ../out.txt', { dir_path: 'sub' }))).decision).toBe('allow');
    expect((await decide(echo, shell('echo x > ../../out.txt', { dir_path: 'sub' }))).decision).toBe('deny');
  });

  it('unmatched in yolo at a terminal: allowed, redirection or not', async () => {
    expect(await decide(rule('toolName = "other"'), shell('echo x > out.txt'), 'yolo', 'interactive')).toMatchObject({
      decision: 'allow',
      rule: null,
    });
  });
});

describe('guards that apply to one decision only', () => {
  it('a denyMessage is shown only when the rule denies', async () => {
    expect((await decide(rule('toolName = "x"\ndenyMessage = "not this"'), { toolName: 'x', args: {} })).reason).toBe(
      by('allow'),
    );
  });

  it('an ask for a destructive command keeps its own reason', async () => {
    expect(
      (await decide(rule('toolName = "run_shell_command"', 'ask_user'), shell('rm -rf x'), 'default', 'interactive'))
        .reason,
    ).toBe(`"rm -rf x": ${by('ask_user')}`);
  });

  it('an ask for a redirected command keeps its own reason', async () => {
    expect(
      (await decide(rule('toolName = "run_shell_command"', 'ask_user'), shell('curl x 2>&1'), 'default', 'interactive'))
        .reason,
    ).toBe(`"curl x": ${by('ask_user')}`);
  });

  it('a rule that asks about a read-only command by its text is not overridden', async () => {
    expect(
      await decide(
        rule('toolName = "run_shell_command"\ncommandPrefix = "ls"', 'ask_user'),
        shell('ls -la'),
        'default',
        'interactive',
      ),
    ).toMatchObject({
      decision: 'ask_user',
      reason: `"ls -la": ${by('ask_user')}`,
    });
  });

  it('an ask for a command the policy cannot see into stays an ask outside yolo', async () => {
    expect(
      (await decide(rule('toolName = "run_shell_command"', 'ask_user'), shell('eval "$X"'), 'default', 'interactive'))
        .reason,
    ).toBe(
      `the policy cannot tell everything this command runs (\`eval\` of a string built at run time: "eval \\"$X\\""), so no rule can allow it by its text (${by('ask_user')})`,
    );
  });
});
