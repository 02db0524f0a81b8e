/**
 * The engine's own contracts, beside test/policy/engine.test.ts: how an "always" approval is
 * narrowed in the corners (commands that split into nothing, half-narrowable lines, other tools'
 * `command` and `agent_name` arguments), that a restored approval keeps its narrowing, and that
 * rules handed in out of order are still sorted by priority, then load order.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { createPolicyEngine, narrowedRule } from '../../src/policy/engine.js';
import type { TieredRule } from '../../src/policy/rule.js';
import { loadBashGrammar } from '../../src/policy/shell/split.js';
import type { AddedRule, ApprovalMode, PolicyQuery } from '../../src/policy/types.js';

beforeAll(() => loadBashGrammar());

const shell = (command: string): PolicyQuery => ({ toolName: 'run_shell_command', args: { command } });
const FROM_DEFAULT: ApprovalMode[] = ['default', 'autoEdit', 'yolo'];
const tiered = (fields: Partial<TieredRule>): TieredRule => ({
  toolNames: ['x'],
  decision: 'allow',
  priority: 5,
  source: 'p.toml',
  line: 1,
  tier: 'user',
  finalPriority: 4.005,
  order: 0,
  ...fields,
});

describe('narrowedRule corners', () => {
  it.each<[string, PolicyQuery, AddedRule]>([
    ['no sub-agent: no subagent key at all', { toolName: 'x', args: {} }, { toolName: 'x', modes: FROM_DEFAULT }],
    [
      'a command that splits into nothing is approved exactly',
      shell(' '),
      { toolName: 'run_shell_command', argsPattern: '\\x00"command":" "\\x00', modes: FROM_DEFAULT },
    ],
    [
      'one sub-command without a prefix: the whole line exactly',
      shell('ls && A=1 make'),
      { toolName: 'run_shell_command', argsPattern: '\\x00"command":"ls && A=1 make"\\x00', modes: FROM_DEFAULT },
    ],
    [
      'a line with something the splitter cannot see into is approved exactly, though its one sub-command has a prefix',
      shell('ls && eval "$X"'),
      {
        toolName: 'run_shell_command',
        argsPattern: '\\x00"command":"ls && eval \\\\"\\$X\\\\""\\x00',
        modes: FROM_DEFAULT,
      },
    ],
    [
      'another tool with a command argument is not a shell call',
      { toolName: 'mcp_tool', args: { command: 'ls -la' } },
      { toolName: 'mcp_tool', modes: FROM_DEFAULT },
    ],
    [
      'another tool with an agent_name argument',
      { toolName: 'x', args: { agent_name: 'writer' } },
      { toolName: 'x', modes: FROM_DEFAULT },
    ],
    [
      'invoke_agent without an agent name',
      { toolName: 'invoke_agent', args: { agent_name: 5 } },
      { toolName: 'invoke_agent', modes: FROM_DEFAULT },
    ],
  ])('%s', (_n, q, want) => {
    expect(narrowedRule(q, 'default')).toStrictEqual(want);
  });

  it.each<[string, string]>([
    ['npm a/b', 'npm'],
    ['npm run@x', 'npm'],
    ['git log*', 'git'],
    ['git Log.x:y-z_1', 'git Log.x:y-z_1'],
  ])('%j: the sub-command counts only when it is a plain name -> %j', (command, prefix) => {
    expect(narrowedRule(shell(command), 'default').commandPrefix).toBe(prefix);
  });
});

describe('restored approvals keep their narrowing', () => {
  const ask = [
    tiered({
      toolNames: ['write_file', 'run_shell_command'],
      decision: 'ask_user',
      tier: 'default',
      finalPriority: 1.005,
    }),
  ];

  it('an approved file path allows that path only', async () => {
    const e = createPolicyEngine(ask, 'interactive');
    e.restoreAdded([{ toolName: 'write_file', argsPattern: '\\x00"file_path":"a"\\x00', modes: ['default'] }]);
    expect((await e.decide({ toolName: 'write_file', args: { file_path: 'a' } }, 'default')).decision).toBe('allow');
    expect((await e.decide({ toolName: 'write_file', args: { file_path: 'b' } }, 'default')).decision).toBe('ask_user');
  });

  it('an approved prefix list allows those commands only', async () => {
    const e = createPolicyEngine(ask, 'interactive');
    // Not read-only commands: those would be raised to allow without any approval.
    e.restoreAdded([{ toolName: 'run_shell_command', commandPrefix: ['npm test', 'make build'], modes: ['default'] }]);
    expect(
      await Promise.all(
        ['npm test -- a', 'make build', 'npm install', 'curl x'].map(
          async (c) => (await e.decide(shell(c), 'default')).decision,
        ),
      ),
    ).toEqual(['allow', 'allow', 'ask_user', 'ask_user']);
  });

  it('an approved single prefix allows that command only', async () => {
    const e = createPolicyEngine(ask, 'interactive');
    e.restoreAdded([{ toolName: 'run_shell_command', commandPrefix: 'npm test', modes: ['default'] }]);
    expect(
      await Promise.all(
        ['npm test -- a', 'npm install'].map(async (c) => (await e.decide(shell(c), 'default')).decision),
      ),
    ).toEqual(['allow', 'ask_user']);
  });

  it('a malformed saved rule is a general error', () => {
    const e = createPolicyEngine(ask, 'interactive');
    const kindOf = (a: unknown) => {
      try {
        e.restoreAdded([a as AddedRule]);
      } catch (err) {
        return isAgentError(err) && err.kind;
      }
      return 'no error';
    };
    expect([kindOf({ toolName: '', modes: [] }), kindOf({ toolName: 'x', argsPattern: '(', modes: [] })]).toEqual([
      'general',
      'general',
    ]);
  });
});

describe('order', () => {
  it('rules handed in out of order: highest priority first, then load order', async () => {
    const e = createPolicyEngine(
      [
        tiered({ decision: 'allow', order: 2, source: 'c.toml' }),
        tiered({ decision: 'deny', order: 1, source: 'b.toml' }),
        tiered({ decision: 'ask_user', order: 0, source: 'a.toml', finalPriority: 4.004 }),
      ],
      'action',
    );
    expect(await e.decide({ toolName: 'x', args: {} }, 'default')).toMatchObject({
      decision: 'deny',
      rule: { source: 'b.toml' },
    });
  });

  it('approvals are numbered after the last loaded rule, one after another', async () => {
    // The deny has the highest load order; approvals tie it on priority (workspace 950) and must rank after it.
    const e = createPolicyEngine(
      [
        tiered({ toolNames: ['other'], order: 0 }),
        tiered({
          toolNames: ['write_file'],
          decision: 'deny',
          tier: 'workspace',
          priority: 950,
          finalPriority: 3.95,
          order: 7,
        }),
      ],
      'interactive',
    );
    await e.allowAlways({ toolName: 'y', args: {} }, 'default');
    await e.allowAlways({ toolName: 'z', args: {} }, 'default');
    await e.allowAlways({ toolName: 'write_file', args: { file_path: 'a' } }, 'default');
    expect(await e.decide({ toolName: 'write_file', args: { file_path: 'a' } }, 'default')).toMatchObject({
      decision: 'deny',
      rule: { line: 1, source: 'p.toml' },
    });
    expect(await e.decide({ toolName: 'z', args: {} }, 'default')).toMatchObject({
      decision: 'allow',
      rule: { source: 'always-approval' },
    });
  });

  it('with a workspace: redirections may write inside it', async () => {
    const rules = [tiered({ toolNames: ['run_shell_command'], commandPrefixes: ['echo'], allowRedirection: true })];
    const q = shell('echo x > /ws/out.txt');
    expect((await createPolicyEngine(rules, 'action', { workspace: '/ws' }).decide(q, 'default')).decision).toBe(
      'allow',
    );
    expect((await createPolicyEngine(rules, 'action').decide(q, 'default')).decision).toBe('deny');
  });
});
