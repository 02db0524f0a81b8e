/**
 * "Always" approvals and loading, in detail: which rule an approval adds (and for which modes),
 * where it sits among the loaded rules, how a saved one is checked when a session resumes, and how
 * policy files and folders are read and refused.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { narrowedRule } from '../../src/policy/engine.js';
import { builtinPoliciesDir, loadPolicy } from '../../src/policy/load.js';
import { loadBashGrammar } from '../../src/policy/shell/split.js';
import type { PolicyQuery } from '../../src/policy/types.js';
import { makeTempDir } from '../support/git-repo.js';

beforeAll(() => loadBashGrammar());

const shell = (command: string): PolicyQuery => ({ toolName: 'run_shell_command', args: { command } });
const rule = (fields: string, decision = 'allow', priority = 100) =>
  `[[rule]]\n${fields}\ndecision = "${decision}"\npriority = ${priority}\n`;
const FROM_DEFAULT = ['default', 'autoEdit', 'yolo'];

describe('narrowedRule: what an "always" approval allows from now on', () => {
  it.each([
    'git',
    'npm',
    'npx',
    'pnpm',
    'yarn',
    'cargo',
    'go',
    'docker',
    'kubectl',
    'gh',
    'pip',
    'pip3',
    'make',
    'dotnet',
    'mvn',
    'gradle',
    'bundle',
    'rake',
    'poetry',
    'uv',
    'deno',
    'bun',
  ])('%s: the command and its sub-command', (tool) => {
    expect(narrowedRule(shell(`${tool} build --all`), 'default')).toEqual({
      toolName: 'run_shell_command',
      commandPrefix: `${tool} build`,
      modes: FROM_DEFAULT,
    });
  });

  it.each<[string, string | string[] | undefined]>([
    ['ls -la', 'ls'],
    ['npm -v', 'npm'],
    ['npm', 'npm'],
    ['npm run:build', 'npm run:build'],
    ['npm 1x', 'npm'],
    ['npm "$X"', 'npm'],
    ['/usr/bin/git push', '/usr/bin/git'],
    ['ls && ls -l', 'ls'],
    ['ls && git log', ['ls', 'git log']],
  ])('%j -> commandPrefix %j', (command, prefix) => {
    expect(narrowedRule(shell(command), 'default').commandPrefix).toEqual(prefix);
  });

  it.each<[string, string]>([
    ['A=1 make', '\\x00"command":"A=1 make"\\x00'],
    ['PATH=x; make', '\\x00"command":"PATH=x; make"\\x00'],
    ['eval "$X"', '\\x00"command":"eval \\\\"\\$X\\\\""\\x00'],
    ['$CMD x', '\\x00"command":"\\$CMD x"\\x00'],
    ['', '\\x00"command":""\\x00'],
  ])('%j is approved exactly: %s', (command, argsPattern) => {
    expect(narrowedRule(shell(command), 'default')).toEqual({
      toolName: 'run_shell_command',
      argsPattern,
      modes: FROM_DEFAULT,
    });
  });

  it.each([
    ['plan', ['plan', 'default', 'autoEdit', 'yolo']],
    ['default', ['default', 'autoEdit', 'yolo']],
    ['autoEdit', ['autoEdit', 'yolo']],
    ['yolo', ['yolo']],
  ] as const)('approved in %s: holds in %j', (mode, modes) => {
    expect(narrowedRule({ toolName: 'x', args: {} }, mode)).toEqual({ toolName: 'x', modes });
  });

  it('files by their exact path; MCP tools by their full name', () => {
    expect(
      narrowedRule({ toolName: 'write_file', args: { file_path: 'a.b(c)[1]+$.ts', content: 'x' } }, 'default'),
    ).toEqual({
      toolName: 'write_file',
      argsPattern: '\\x00"file_path":"a\\.b\\(c\\)\\[1\\]\\+\\$\\.ts"\\x00',
      modes: FROM_DEFAULT,
    });
    expect(narrowedRule({ toolName: 'list_directory', args: { dir_path: 'src/' } }, 'yolo')).toEqual({
      toolName: 'list_directory',
      argsPattern: '\\x00"dir_path":"src\\/"\\x00',
      modes: ['yolo'],
    });
    expect(narrowedRule({ toolName: 'search', mcpServer: 'srv', args: {} }, 'yolo')).toEqual({
      toolName: 'mcp_srv_search',
      modes: ['yolo'],
    });
    expect(narrowedRule({ toolName: 'mcp_srv_search', mcpServer: 'srv', args: {} }, 'yolo')).toEqual({
      toolName: 'mcp_srv_search',
      modes: ['yolo'],
    });
    expect(narrowedRule({ toolName: 'run_shell_command', args: { command: 5 } }, 'yolo')).toEqual({
      toolName: 'run_shell_command',
      modes: ['yolo'],
    });
  });

  it("a sub-agent's call: narrowed exactly as the main agent's, and scoped to that sub-agent", () => {
    const asChild = (q: PolicyQuery): PolicyQuery => ({ ...q, subagent: 'codebase_investigator' });
    expect(narrowedRule(asChild(shell('npm test -- --watch=false && git log -1')), 'default')).toEqual({
      toolName: 'run_shell_command',
      commandPrefix: ['npm test', 'git log'],
      modes: FROM_DEFAULT,
      subagent: 'codebase_investigator',
    });
    expect(narrowedRule(asChild(shell('PATH=x; make')), 'default')).toEqual({
      toolName: 'run_shell_command',
      argsPattern: '\\x00"command":"PATH=x; make"\\x00',
      modes: FROM_DEFAULT,
      subagent: 'codebase_investigator',
    });
    expect(
      narrowedRule(asChild({ toolName: 'write_file', args: { file_path: 'a.md', content: 'x' } }), 'autoEdit'),
    ).toEqual({
      toolName: 'write_file',
      argsPattern: '\\x00"file_path":"a\\.md"\\x00',
      modes: ['autoEdit', 'yolo'],
      subagent: 'codebase_investigator',
    });
  });

  it('invoke_agent: the agent it named, not every agent', () => {
    expect(
      narrowedRule({ toolName: 'invoke_agent', args: { agent_name: 'writer', prompt: 'Write NOTES.md' } }, 'default'),
    ).toEqual({
      toolName: 'invoke_agent',
      argsPattern: '\\x00"agent_name":"writer"\\x00',
      modes: FROM_DEFAULT,
    });
  });
});

describe('approved rules in the engine', () => {
  const load = (toml: string) =>
    loadPolicy({
      context: 'interactive',
      useBuiltinDefaults: false,
      tiers: { workspace: [{ inline: toml, label: 'ws.toml' }] },
    });

  it('an approval does not outrank a workspace rule of the same priority loaded before it', async () => {
    const e = await load(
      rule('toolName = "write_file"', 'deny', 950) +
        rule('toolName = "write_file"\nargsPattern = "never"', 'ask_user', 1),
    );
    await e.allowAlways({ toolName: 'write_file', args: { file_path: 'a' } }, 'default');
    expect((await e.decide({ toolName: 'write_file', args: { file_path: 'a' } }, 'default')).decision).toBe('deny');
  });

  it('an approval ranks after every loaded rule of the same priority, not only the first', async () => {
    // The deny is loaded second (order 1): an approval numbered from 0 again would tie it and win.
    const e = await load(rule('toolName = "other"', 'allow', 1) + rule('toolName = "write_file"', 'deny', 950));
    await e.allowAlways({ toolName: 'write_file', args: { file_path: 'a' } }, 'default');
    expect(await e.decide({ toolName: 'write_file', args: { file_path: 'a' } }, 'default')).toMatchObject({
      decision: 'deny',
      rule: { source: 'ws.toml', line: 5 },
    });
  });

  it('an approval is a workspace rule at priority 950, from the approval source', async () => {
    const e = await load(rule('toolName = "x"', 'ask_user', 1));
    await e.allowAlways({ toolName: 'x', args: {} }, 'default');
    expect(await e.decide({ toolName: 'x', args: {} }, 'default')).toEqual({
      decision: 'allow',
      rule: { source: 'always-approval', line: 0, tier: 'workspace', priority: 3.95, decision: 'allow' },
      reason: 'allow by rule at always-approval (workspace tier, priority 3.950)',
    });
    expect((await e.decide({ toolName: 'x', args: {} }, 'plan')).decision).toBe('ask_user');
    expect(e.context).toBe('interactive');
  });

  it('restoring several saved rules adds each, in order', async () => {
    const e = await load(rule('toolName = ["x", "y"]', 'ask_user', 1));
    e.restoreAdded([
      { toolName: 'x', modes: ['default'] },
      { toolName: 'y', modes: ['yolo'] },
    ]);
    expect(e.added).toEqual([
      { toolName: 'x', modes: ['default'] },
      { toolName: 'y', modes: ['yolo'] },
    ]);
    expect([
      (await e.decide({ toolName: 'x', args: {} }, 'default')).decision,
      (await e.decide({ toolName: 'y', args: {} }, 'default')).decision,
      (await e.decide({ toolName: 'y', args: {} }, 'yolo')).decision,
    ]).toEqual(['allow', 'ask_user', 'allow']);
  });

  it('outranks a workspace rule of lower priority', async () => {
    const e = await load(rule('toolName = "write_file"', 'ask_user', 949));
    await e.allowAlways({ toolName: 'write_file', args: { file_path: 'a' } }, 'default');
    expect((await e.decide({ toolName: 'write_file', args: { file_path: 'a' } }, 'default')).decision).toBe('allow');
    expect(e.added).toEqual([
      { toolName: 'write_file', argsPattern: '\\x00"file_path":"a"\\x00', modes: FROM_DEFAULT },
    ]);
  });

  it.each<[string, unknown, string]>([
    [
      'no tool name',
      { toolName: '', modes: ['default'] },
      'a saved "always" rule is malformed: {"toolName":"","modes":["default"]}',
    ],
    [
      'a tool name that is not a string',
      { toolName: 5, modes: ['default'] },
      'a saved "always" rule is malformed: {"toolName":5,"modes":["default"]}',
    ],
    ['no modes', { toolName: 'x' }, 'a saved "always" rule is malformed: {"toolName":"x"}'],
    [
      'a catastrophic pattern',
      { toolName: 'x', argsPattern: '(a+)+', modes: ['default'] },
      'a saved "always" rule has a bad argsPattern: catastrophic regular expression /(a+)+/: a repeated group contains another repetition (like (a+)+), which can take exponential time; rewrite it without nested quantifiers',
    ],
  ])('a saved rule with %s is refused, not guessed at', async (_name, saved, message) => {
    const e = await load(rule('toolName = "x"', 'ask_user'));
    expect(() => e.restoreAdded([saved as never])).toThrow(message);
    expect(e.added).toEqual([]);
  });

  it("a sub-agent's approval allows that sub-agent's identical call only: the main agent and other sub-agents are still asked", async () => {
    const e = await load(rule('toolName = "run_shell_command"', 'ask_user'));
    const added = await e.allowAlways({ ...shell('npm test'), subagent: 'writer' }, 'default');
    expect(added).toEqual({
      toolName: 'run_shell_command',
      commandPrefix: 'npm test',
      modes: FROM_DEFAULT,
      subagent: 'writer',
    });
    expect((await e.decide({ ...shell('npm test'), subagent: 'writer' }, 'default')).decision).toBe('allow');
    expect((await e.decide({ ...shell('npm test -- a'), subagent: 'writer' }, 'default')).decision).toBe('allow');
    expect((await e.decide({ ...shell('npm test && curl x'), subagent: 'writer' }, 'default')).decision).toBe(
      'ask_user',
    );
    expect((await e.decide(shell('npm test'), 'default')).decision).toBe('ask_user');
    expect((await e.decide({ ...shell('npm test'), subagent: 'helper' }, 'default')).decision).toBe('ask_user');
    // Saved with the session and restored in the next process: still that sub-agent's only.
    const next = await load(rule('toolName = "run_shell_command"', 'ask_user'));
    next.restoreAdded(JSON.parse(JSON.stringify(e.added)));
    expect((await next.decide({ ...shell('npm test'), subagent: 'writer' }, 'default')).decision).toBe('allow');
    expect((await next.decide(shell('npm test'), 'default')).decision).toBe('ask_user');
  });

  it('a saved sub-agent scope that is not a name is refused', async () => {
    const e = await load(rule('toolName = "x"', 'ask_user'));
    expect(() => e.restoreAdded([{ toolName: 'x', modes: ['default'], subagent: '' }])).toThrow(
      'a saved "always" rule is malformed',
    );
    expect(() => e.restoreAdded([{ toolName: 'x', modes: ['default'], subagent: 5 as never }])).toThrow(
      'a saved "always" rule is malformed',
    );
    expect(e.added).toEqual([]);
  });

  it('a saved prefix list restores as a list', async () => {
    const e = await load(rule('toolName = "run_shell_command"', 'ask_user'));
    e.restoreAdded([{ toolName: 'run_shell_command', commandPrefix: ['ls', 'git log'], modes: ['default'] }]);
    expect((await e.decide(shell('git log -1'), 'default')).decision).toBe('allow');
    expect((await e.decide(shell('ls x'), 'default')).decision).toBe('allow');
    expect((await e.decide(shell('git push'), 'default')).decision).toBe('ask_user');
  });
});

describe('loading policy files', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('agent-action-policies-');
    mkdirSync(join(dir, 'p'));
    // Loaded by name: b.toml's rule, loaded after a.toml's at the same priority, loses the tie.
    writeFileSync(join(dir, 'p', 'b.toml'), rule('toolName = "x"', 'deny', 5));
    writeFileSync(join(dir, 'p', 'a.toml'), rule('toolName = "x"', 'allow', 5));
    writeFileSync(join(dir, 'p', 'c.toml.bak'), 'not toml');
    mkdirSync(join(dir, 'p', 'sub.toml'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const errorOf = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );

  it('a folder: its .toml files, in name order, nothing else', async () => {
    const e = await loadPolicy({ context: 'action', useBuiltinDefaults: false, tiers: { user: [join(dir, 'p')] } });
    expect(await e.decide({ toolName: 'x', args: {} }, 'default')).toMatchObject({
      decision: 'allow',
      rule: { source: join(dir, 'p', 'a.toml') },
    });
  });

  it('a path that is neither a file nor a folder is an error naming it', async () => {
    const err = await errorOf(
      loadPolicy({ context: 'action', useBuiltinDefaults: false, tiers: { user: ['/dev/null'] } }),
    );
    expect(isAgentError(err) && err.message).toBe('bad policy: /dev/null:0:0: error: not a file or a folder');
  });

  it('a missing path is an error unless optional; several errors are counted', async () => {
    const err = await errorOf(
      loadPolicy({
        context: 'action',
        useBuiltinDefaults: false,
        tiers: { user: [join(dir, 'none.toml'), { inline: 'x = = 1', label: 'i.toml' }] },
      }),
    );
    expect(isAgentError(err) && err.message).toMatch(
      new RegExp(`^bad policy: ${join(dir, 'none.toml')}:0:0: error: cannot read policy: ENOENT[^(]*\\(and 1 more\\)$`),
    );
    expect(isAgentError(err) && err.site).toEqual({ file: join(dir, 'none.toml'), line: 0, column: 0 });
  });

  it('warnings do not stop loading', async () => {
    const e = await loadPolicy({
      context: 'action',
      useBuiltinDefaults: false,
      tiers: { user: [{ inline: `${rule('toolName = "x"')}colour = 1\n`, label: 'w.toml' }] },
    });
    expect((await e.decide({ toolName: 'x', args: {} }, 'default')).decision).toBe('allow');
  });

  it("the shipped policies are found only inside agent-action's own package, the nearest folder first", () => {
    const elsewhere = join(dir, 'pkg', 'src');
    mkdirSync(join(dir, 'pkg', 'policies'), { recursive: true });
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(dir, 'pkg', 'package.json'), '{"name": "other"}');
    writeFileSync(join(dir, 'package.json'), 'not json');
    const missing = `cannot find agent-action's policies/ folder above ${elsewhere}`;
    expect(() => builtinPoliciesDir(join(elsewhere, 'x.js'))).toThrow(missing);
    writeFileSync(join(dir, 'pkg', 'package.json'), '{"name": "agent-action"}');
    expect(builtinPoliciesDir(join(elsewhere, 'x.js'))).toBe(join(dir, 'pkg', 'policies'));
    // Beside the running file wins (the bundle's dist/policies/).
    mkdirSync(join(elsewhere, 'policies'));
    expect(builtinPoliciesDir(join(elsewhere, 'x.js'))).toBe(join(elsewhere, 'policies'));
    // A policies/ folder above the package is never taken, nor a file of that name.
    rmSync(join(elsewhere, 'policies'), { recursive: true });
    rmSync(join(dir, 'pkg', 'policies'), { recursive: true });
    writeFileSync(join(dir, 'pkg', 'policies'), '');
    mkdirSync(join(dir, 'policies'));
    expect(() => builtinPoliciesDir(join(elsewhere, 'x.js'))).toThrow(missing);
  });
});
