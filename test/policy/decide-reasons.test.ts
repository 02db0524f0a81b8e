/**
 * Every verdict says why, in words a maintainer reads in the approval comment, the job log and
 * `agent-action policy check`: which rule (name, file, line, tier, final priority), which
 * sub-command, and which guard turned the rule's decision into another. One row per path.
 */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../src/policy/load.js';
import type {
  ApprovalMode,
  Decision,
  PolicyContext,
  PolicyQuery,
  PolicyVerdict,
  RuleRef,
} from '../../src/policy/types.js';

const rule = (fields: string, decision = 'allow', priority = 100) =>
  `[[rule]]\n${fields}\ndecision = "${decision}"\npriority = ${priority}\n`;
const engine = (toml: string, context: PolicyContext = 'action') =>
  loadPolicy({
    context,
    useBuiltinDefaults: false,
    workspace: '/ws',
    tiers: { user: [{ inline: toml, label: 'user.toml' }] },
  });
const shell = (command: string): PolicyQuery => ({ toolName: 'run_shell_command', args: { command } });
const tool = (toolName: string, args: Record<string, unknown> = {}): PolicyQuery => ({ toolName, args });
const ref = (decision: Decision, priority = 4.1, line = 1): RuleRef => ({
  source: 'user.toml',
  line,
  tier: 'user',
  priority,
  decision,
});
const SHELL_ALLOW = rule('toolName = "run_shell_command"');
const by = (decision: string, priority = '4.100', line = 1) =>
  `${decision} by rule at user.toml:${line} (user tier, priority ${priority})`;

describe('verdict reasons', () => {
  it.each<[string, string, PolicyContext, PolicyQuery, ApprovalMode, PolicyVerdict]>([
    [
      'a named rule',
      rule('name = "tests"\ntoolName = "run_shell_command"\ncommandPrefix = "npm test"'),
      'action',
      shell('npm test'),
      'default',
      {
        decision: 'allow',
        rule: ref('allow'),
        reason: '"npm test": allow by rule "tests" at user.toml:1 (user tier, priority 4.100)',
      },
    ],
    [
      'sub-commands are numbered',
      SHELL_ALLOW,
      'action',
      shell('ls x && ls y'),
      'default',
      { decision: 'allow', rule: ref('allow'), reason: `sub-command 1 of 2 ("ls x"): ${by('allow')}` },
    ],
    [
      'no rule, in the action',
      rule('toolName = "y"'),
      'action',
      tool('x'),
      'default',
      { decision: 'deny', rule: null, reason: 'no rule matched; the action denies unmatched calls' },
    ],
    [
      'no rule, in the action, yolo',
      rule('toolName = "y"'),
      'action',
      tool('x'),
      'yolo',
      { decision: 'deny', rule: null, reason: 'no rule matched; the action denies unmatched calls' },
    ],
    [
      'no rule, interactive',
      rule('toolName = "y"'),
      'interactive',
      tool('x'),
      'default',
      { decision: 'ask_user', rule: null, reason: 'no rule matched; unmatched calls are asked about' },
    ],
    [
      'no rule, interactive, yolo',
      rule('toolName = "y"'),
      'interactive',
      tool('x'),
      'yolo',
      {
        decision: 'allow',
        rule: null,
        reason: 'no rule matched; yolo mode allows unmatched calls (as Gemini CLI does)',
      },
    ],
    [
      'no rule, headless',
      rule('toolName = "y"'),
      'headless',
      tool('x'),
      'default',
      { decision: 'deny', rule: null, reason: 'no rule matched; headless runs deny unmatched calls' },
    ],
    [
      'no rule, headless, yolo',
      rule('toolName = "y"'),
      'headless',
      tool('x'),
      'yolo',
      {
        decision: 'allow',
        rule: null,
        reason: 'no rule matched; yolo mode allows unmatched calls (as Gemini CLI does)',
      },
    ],
    [
      'ask_user where nobody can be asked',
      rule('toolName = "x"', 'ask_user'),
      'headless',
      tool('x'),
      'default',
      {
        decision: 'deny',
        rule: ref('ask_user'),
        reason: `${by('ask_user')}; nobody can be asked in a headless run, so it is denied`,
      },
    ],
    [
      'a deny message',
      rule('toolName = "x"\ndenyMessage = "use the release script"', 'deny'),
      'action',
      tool('x'),
      'default',
      {
        decision: 'deny',
        rule: { ...ref('deny'), denyMessage: 'use the release script' },
        reason: `${by('deny')}: use the release script`,
      },
    ],
    [
      'a deny message is not shown when the rule allows',
      rule('toolName = "x"\ndenyMessage = "m"'),
      'action',
      tool('x'),
      'default',
      { decision: 'allow', rule: { ...ref('allow'), denyMessage: 'm' }, reason: by('allow') },
    ],
    [
      'a build file edit',
      rule('toolName = "write_file"'),
      'action',
      tool('write_file', { file_path: 'package.json' }),
      'default',
      {
        decision: 'ask_user',
        rule: null,
        reason: `package.json is a build file (it says what build and test commands run), so editing it needs a person's confirmation, as in Gemini CLI (${by('allow')})`,
      },
    ],
    [
      'a destructive command',
      SHELL_ALLOW,
      'action',
      shell('rm -rf x'),
      'default',
      {
        decision: 'ask_user',
        rule: ref('allow'),
        reason: `"rm -rf x": destructive command, always asked outside yolo mode (${by('allow')})`,
      },
    ],
    [
      'a known read-only command',
      rule('toolName = "run_shell_command"', 'ask_user', 1),
      'interactive',
      shell('ls'),
      'default',
      {
        decision: 'allow',
        rule: ref('ask_user', 4.001),
        reason: `"ls": known read-only command, raised from ask_user to allow (${by('ask_user', '4.001')})`,
      },
    ],
    [
      'a redirection',
      SHELL_ALLOW,
      'action',
      shell('echo a > f.txt'),
      'default',
      {
        decision: 'ask_user',
        rule: ref('allow'),
        reason: `"echo a": redirection needs approval unless the rule sets allowRedirection (${by('allow')})`,
      },
    ],
    [
      'a write outside the workspace',
      SHELL_ALLOW,
      'action',
      shell('echo a > /etc/x'),
      'default',
      {
        decision: 'deny',
        rule: null,
        reason:
          'a redirection writes "/etc/x", and it is outside the workspace; only yolo mode lets a command write there',
      },
    ],
    [
      'a write into .git',
      SHELL_ALLOW,
      'action',
      shell('echo a > .git/config'),
      'autoEdit',
      {
        decision: 'deny',
        rule: null,
        reason:
          'a redirection writes ".git/config", and it is inside .git/, which only people change; only yolo mode lets a command write there',
      },
    ],
    [
      'what the splitter cannot account for',
      SHELL_ALLOW,
      'action',
      shell('eval "$X"'),
      'default',
      {
        decision: 'ask_user',
        rule: ref('allow'),
        reason: `the policy cannot tell everything this command runs (\`eval\` of a string built at run time: "eval \\"$X\\""), so no rule can allow it by its text (${by('allow')})`,
      },
    ],
    [
      'two things it cannot account for',
      SHELL_ALLOW,
      'action',
      shell('eval "$X"; eval "$Y"'),
      'default',
      {
        decision: 'ask_user',
        rule: ref('allow'),
        reason: `the policy cannot tell everything this command runs (\`eval\` of a string built at run time: "eval \\"$X\\"", and 1 more), so no rule can allow it by its text (${by('allow')})`,
      },
    ],
    [
      '…in yolo, under a rule for every command',
      SHELL_ALLOW,
      'action',
      shell('eval "$X"'),
      'yolo',
      {
        decision: 'allow',
        rule: ref('allow'),
        reason: `the policy cannot tell everything this command runs (\`eval\` of a string built at run time: "eval \\"$X\\""); yolo mode: ${by('allow')}`,
      },
    ],
    [
      '…in yolo, under a rule that allows by the command text',
      rule('toolName = "run_shell_command"\nargsPattern = "eval"'),
      'action',
      shell('eval "$X"'),
      'yolo',
      {
        decision: 'ask_user',
        rule: ref('allow'),
        reason: `the policy cannot tell everything this command runs (\`eval\` of a string built at run time: "eval \\"$X\\""), so no rule can allow it by its text (${by('allow')})`,
      },
    ],
    [
      '…under a deny rule',
      rule('toolName = "run_shell_command"', 'deny'),
      'action',
      shell('eval "$X"'),
      'default',
      {
        decision: 'deny',
        rule: ref('deny'),
        reason: `the policy cannot tell everything this command runs (\`eval\` of a string built at run time: "eval \\"$X\\""); ${by('deny')}`,
      },
    ],
    [
      '…with no rule at all',
      rule('toolName = "run_shell_command"\ncommandPrefix = "eval"'),
      'action',
      shell('eval "$X"'),
      'yolo',
      {
        decision: 'deny',
        rule: null,
        reason:
          'the policy cannot tell everything this command runs (`eval` of a string built at run time: "eval \\"$X\\""); no rule matched; the action denies unmatched calls',
      },
    ],
    [
      'an argsPattern rule on the whole line',
      SHELL_ALLOW + rule('toolName = "run_shell_command"\nargsPattern = "ls && cat"', 'deny', 200),
      'action',
      shell('ls && cat x'),
      'default',
      {
        decision: 'deny',
        rule: ref('deny', 4.2, 5),
        reason: 'deny for the whole command by rule at user.toml:5 (user tier, priority 4.200)',
      },
    ],
  ])('%s', async (_name, toml, context, q, mode, verdict) => {
    expect(await (await engine(toml, context)).decide(q, mode)).toEqual(verdict);
  });

  it('a person\'s "always" approval of exactly this line', async () => {
    const e = await engine(rule('toolName = "run_shell_command"', 'ask_user'), 'interactive');
    await e.allowAlways(shell('eval "$X"'), 'default');
    expect(await e.decide(shell('eval "$X"'), 'default')).toEqual({
      decision: 'allow',
      rule: { source: 'always-approval', line: 0, tier: 'workspace', priority: 3.95, decision: 'allow' },
      reason: 'allow by rule at always-approval (workspace tier, priority 3.950), an approval of exactly this command',
    });
  });

  it('an error while deciding denies, and says what went wrong', async () => {
    const e = await engine(SHELL_ALLOW);
    const q = {
      toolName: 'run_shell_command',
      args: {
        command: 'ls',
        get dir_path(): string {
          throw new Error('boom');
        },
      },
    };
    expect(await e.decide(q, 'default')).toEqual({
      decision: 'deny',
      rule: null,
      reason: 'policy check failed, so the call is denied: boom',
    });
  });
});
