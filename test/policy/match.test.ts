/**
 * One rule against one call, piece by piece: the names a call answers to (aliases, MCP server and
 * short name, the agent an invoke_agent names), the arguments' text argsPattern sees, and each
 * field of a rule. A rule that matches too much allows what the policy denies; one that matches too
 * little lets a deny rule miss.
 */
import { describe, expect, it } from 'vitest';
import { callMatch, compileRule, LazyArgsText, staticMatch, subjectOf, type Subject } from '../../src/policy/match.js';
import type { Rule, TieredRule } from '../../src/policy/rule.js';
import type { ShellPart } from '../../src/policy/shell/split.js';
import type { ApprovalMode, PolicyContext, PolicyQuery } from '../../src/policy/types.js';

const tiered = (fields: Partial<Rule>): TieredRule => ({
  toolNames: ['*'],
  decision: 'allow',
  priority: 1,
  source: 'p.toml',
  line: 1,
  tier: 'user',
  finalPriority: 4.001,
  order: 0,
  ...fields,
});
const matches = (
  fields: Partial<Rule>,
  s: Subject,
  mode: ApprovalMode = 'default',
  context: PolicyContext = 'action',
): boolean => {
  const c = compileRule(tiered(fields), 0);
  return staticMatch(c, s, { mode, context }) && callMatch(c, s, new LazyArgsText(s.args));
};
const part = (text: string, words: string[], extra: Partial<ShellPart> = {}): ShellPart => ({
  text,
  words,
  literal: words.map(() => true),
  assignments: [],
  redirected: false,
  writesFile: false,
  ...extra,
});

describe('subjectOf', () => {
  it.each<[string, PolicyQuery, Subject]>([
    ['a plain tool', { toolName: 'read_file', args: { a: 1 } }, { names: ['read_file'], args: { a: 1 } }],
    [
      'grep_search is also search_file_content',
      { toolName: 'grep_search', args: {} },
      { names: ['grep_search', 'search_file_content'], args: {} },
    ],
    [
      'search_file_content is also grep_search',
      { toolName: 'search_file_content', args: {} },
      { names: ['search_file_content', 'grep_search'], args: {} },
    ],
    [
      'a short MCP name with its server',
      { toolName: 'search', mcpServer: 'gh', args: {} },
      { names: ['search', 'mcp_gh_search'], mcpServer: 'gh', args: {} },
    ],
    [
      'a full MCP name with its server',
      { toolName: 'mcp_gh_search', mcpServer: 'gh', args: {} },
      { names: ['mcp_gh_search'], mcpServer: 'gh', mcpShortName: 'search', args: {} },
    ],
    [
      'a full MCP name says its server',
      { toolName: 'mcp_gh_search', args: {} },
      { names: ['mcp_gh_search'], mcpServer: 'gh', mcpShortName: 'search', args: {} },
    ],
    [
      'the server is up to the first _',
      { toolName: 'mcp_a_b_c', args: {} },
      { names: ['mcp_a_b_c'], mcpServer: 'a', mcpShortName: 'b_c', args: {} },
    ],
    ['no tool after the server: no server', { toolName: 'mcp_gh_', args: {} }, { names: ['mcp_gh_'], args: {} }],
    ['an empty server is no server', { toolName: 'mcp__x', args: {} }, { names: ['mcp__x'], args: {} }],
    ['mcp_ must lead the name', { toolName: 'xmcp_gh_search', args: {} }, { names: ['xmcp_gh_search'], args: {} }],
    [
      'invoke_agent is also the agent it names',
      { toolName: 'invoke_agent', args: { agent_name: 'helper' } },
      { names: ['invoke_agent', 'helper'], args: { agent_name: 'helper' } },
    ],
    [
      'an agent name that is not text names nothing',
      { toolName: 'invoke_agent', args: { agent_name: 5 } },
      { names: ['invoke_agent'], args: { agent_name: 5 } },
    ],
    [
      'only invoke_agent names an agent',
      { toolName: 'run_agent', args: { agent_name: 'helper' } },
      { names: ['run_agent'], args: { agent_name: 'helper' } },
    ],
    [
      'annotations and sub-agent are kept',
      { toolName: 't', args: {}, annotations: { readOnlyHint: true }, subagent: 'helper' },
      { names: ['t'], annotations: { readOnlyHint: true }, subagent: 'helper', args: {} },
    ],
  ])('%s', (_n, q, want) => {
    expect(subjectOf(q)).toStrictEqual(want);
  });
});

describe('the arguments as argsPattern sees them', () => {
  it('keys sorted at every level, each top-level pair framed by NULs, functions, symbols and undefined left out', () => {
    const text = new LazyArgsText({
      b: 1,
      a: 'x',
      o: { y: 2, x: [1, { d: 4, c: 3 }] },
      u: undefined,
      f: () => 1,
      s: Symbol('s'),
      n: null,
    });
    expect(text.get().text).toBe(
      '{\u0000"a":"x"\u0000,\u0000"b":1\u0000,\u0000"n":null\u0000,\u0000"o":{"x":[1,{"c":3,"d":4}],"y":2}\u0000}',
    );
  });

  it('no arguments: braces only', () => {
    expect(new LazyArgsText({}).get().text).toBe('{}');
  });

  it('is built once and kept', () => {
    const text = new LazyArgsText({ a: 1 });
    expect(text.get()).toBe(text.get());
  });
});

describe('tool names', () => {
  const s = (q: PolicyQuery) => subjectOf(q);
  it.each<[string, string[], Partial<Rule>, PolicyQuery, boolean]>([
    ['* matches anything', ['*'], {}, { toolName: 'x', args: {} }, true],
    ['exact', ['read_file'], {}, { toolName: 'read_file', args: {} }, true],
    ['exact is not a prefix', ['read'], {}, { toolName: 'read_file', args: {} }, false],
    ['any one of several', ['a', 'read_file'], {}, { toolName: 'read_file', args: {} }, true],
    ['none of several', ['a', 'b'], {}, { toolName: 'read_file', args: {} }, false],
    ['a glob is a prefix', ['read_*'], {}, { toolName: 'read_file', args: {} }, true],
    ['a glob anchors at the start', ['read_*'], {}, { toolName: 'xread_file', args: {} }, false],
    ['a glob is its whole head, not its first letter', ['read_*'], {}, { toolName: 'rm_file', args: {} }, false],
    [
      'a glob that is not mcp_ does not name a server',
      ['xmcp_a_*'],
      {},
      { toolName: 't', mcpServer: 'a', args: {} },
      false,
    ],
    ['mcp_<server>_* must end with _*', ['mcp_a_*x'], {}, { toolName: 't', mcpServer: 'a', args: {} }, false],
    [
      'mcp_<server>_*: a server whose name only starts the same',
      ['mcp_ab_*'],
      {},
      { toolName: 't', mcpServer: 'ab_c', args: {} },
      false,
    ],
    [
      'with mcpName, a short call: no short name to add',
      ['zz*'],
      { mcpName: 'gh' },
      { toolName: 'search', mcpServer: 'gh', args: {} },
      false,
    ],
    ['mcp_* needs a server', ['mcp_*'], {}, { toolName: 'mcp_tool', args: {} }, false],
    ['mcp_* with a server', ['mcp_*'], {}, { toolName: 't', mcpServer: 'a', args: {} }, true],
    ['mcp_<server>_*: that server', ['mcp_a_b_*'], {}, { toolName: 't', mcpServer: 'a_b', args: {} }, true],
    ['mcp_<server>_*: not another', ['mcp_a_*'], {}, { toolName: 't', mcpServer: 'a_b', args: {} }, false],
    ['mcp_<server>_*: not a plain tool', ['mcp_a_*'], {}, { toolName: 'a_t', args: {} }, false],
    [
      'a short name matches a full MCP name only with mcpName',
      ['search'],
      {},
      { toolName: 'mcp_gh_search', args: {} },
      false,
    ],
    ['with mcpName it does', ['search'], { mcpName: 'gh' }, { toolName: 'mcp_gh_search', args: {} }, true],
    ['a short-name glob with mcpName', ['sea*'], { mcpName: 'gh' }, { toolName: 'mcp_gh_search', args: {} }, true],
    ['the full name of a short call', ['mcp_gh_search'], {}, { toolName: 'search', mcpServer: 'gh', args: {} }, true],
    ['mcpName: other server', ['*'], { mcpName: 'gh' }, { toolName: 't', mcpServer: 'jira', args: {} }, false],
    ['mcpName: no server', ['*'], { mcpName: 'gh' }, { toolName: 't', args: {} }, false],
    ['mcpName *: any server', ['*'], { mcpName: '*' }, { toolName: 't', mcpServer: 'jira', args: {} }, true],
    ['mcpName *: still a server', ['*'], { mcpName: '*' }, { toolName: 't', args: {} }, false],
  ])('%s', (_n, toolNames, fields, q, want) => {
    expect(matches({ toolNames, ...fields }, s(q))).toBe(want);
  });
});

describe('modes and interactivity', () => {
  const x = subjectOf({ toolName: 'x', args: {} });
  it.each<[string, Partial<Rule>, ApprovalMode, PolicyContext, boolean]>([
    ['no modes: every mode', {}, 'plan', 'action', true],
    ['an empty modes list: every mode', { modes: [] }, 'yolo', 'action', true],
    ['listed mode', { modes: ['default', 'plan'] }, 'plan', 'action', true],
    ['unlisted mode', { modes: ['default', 'plan'] }, 'autoEdit', 'action', false],
    ['interactive = true in the action (a maintainer is asked)', { interactive: true }, 'default', 'action', true],
    ['interactive = true at a terminal', { interactive: true }, 'default', 'interactive', true],
    ['interactive = true headless', { interactive: true }, 'default', 'headless', false],
    ['interactive = false headless', { interactive: false }, 'default', 'headless', true],
    ['interactive = false in the action', { interactive: false }, 'default', 'action', false],
    ['interactive = false at a terminal', { interactive: false }, 'default', 'interactive', false],
  ])('%s', (_n, fields, mode, context, want) => {
    expect(matches(fields, x, mode, context)).toBe(want);
  });
});

describe('per-call fields', () => {
  it.each<[string, Partial<Rule>, Subject, boolean]>([
    ['subagent: the same', { subagent: 'h' }, { names: ['x'], args: {}, subagent: 'h' }, true],
    ['subagent: another', { subagent: 'h' }, { names: ['x'], args: {}, subagent: 'g' }, false],
    ['subagent: the main agent', { subagent: 'h' }, { names: ['x'], args: {} }, false],
    ['no subagent: every agent', {}, { names: ['x'], args: {}, subagent: 'h' }, true],
    [
      'annotations: all wanted present',
      { toolAnnotations: { a: true, b: 1 } },
      { names: ['x'], args: {}, annotations: { a: true, b: 1, c: 2 } },
      true,
    ],
    [
      'annotations: one differs',
      { toolAnnotations: { a: true, b: 1 } },
      { names: ['x'], args: {}, annotations: { a: true, b: 2 } },
      false,
    ],
    [
      'annotations: one missing',
      { toolAnnotations: { a: true, b: 1 } },
      { names: ['x'], args: {}, annotations: { a: true } },
      false,
    ],
    ['annotations: none given', { toolAnnotations: { a: true } }, { names: ['x'], args: {} }, false],
    ['argsPattern: found', { argsPattern: /"p":"a\/b"/ }, { names: ['x'], args: { p: 'a/b' } }, true],
    ['argsPattern: not found', { argsPattern: /"p":"a\/b"/ }, { names: ['x'], args: { p: 'a/c' } }, false],
    [
      'commandPrefix: not a shell sub-command',
      { commandPrefixes: ['git'] },
      { names: ['x'], args: { command: 'git' } },
      false,
    ],
    [
      'commandPrefix: one of several',
      { commandPrefixes: ['ls', 'git'] },
      { names: ['x'], args: {}, part: part('git log', ['git', 'log']) },
      true,
    ],
    [
      'commandPrefix: none of several',
      { commandPrefixes: ['ls', 'git'] },
      { names: ['x'], args: {}, part: part('cat x', ['cat', 'x']) },
      false,
    ],
    [
      'commandRegex: not a shell sub-command',
      { commandRegex: /"command":"git/ },
      { names: ['x'], args: { command: 'git' } },
      false,
    ],
    [
      'commandRegex: a sub-command',
      { commandRegex: /"command":"git/ },
      { names: ['x'], args: { command: 'git' }, part: part('git', ['git']) },
      true,
    ],
    [
      'commandRegex: a sub-command that does not match',
      { commandRegex: /"command":"git/ },
      { names: ['x'], args: { command: 'ls' }, part: part('ls', ['ls']) },
      false,
    ],
  ])('%s', (_n, fields, s, want) => {
    expect(matches(fields, s)).toBe(want);
  });

  // `PATH=/tmp/x; git log`: what runs as `git` is no longer known, so no allow rule vouches by text.
  it.each<[string, Partial<Rule>, boolean]>([
    ['an allow by prefix', { commandPrefixes: ['git'] }, false],
    ['an allow by regex', { commandRegex: /"command":"git/ }, false],
    ['an allow by argsPattern', { argsPattern: /git/ }, false],
    ['an allow of every command', {}, true],
    ['a deny by prefix', { commandPrefixes: ['git'], decision: 'deny' }, true],
    ['an ask by regex', { commandRegex: /"command":"git/, decision: 'ask_user' }, true],
  ])('after the environment changed: %s matches: %s', (_n, fields, want) => {
    const s: Subject = {
      names: ['run_shell_command'],
      args: { command: 'git log' },
      part: part('git log', ['git', 'log']),
      environmentChanged: true,
    };
    expect(matches(fields, s)).toBe(want);
  });

  it('the environment only matters for a sub-command: the whole line is tested by argsPattern as it is', () => {
    expect(
      matches(
        { argsPattern: /git/ },
        { names: ['run_shell_command'], args: { command: 'PATH=x; git' }, environmentChanged: true },
      ),
    ).toBe(true);
  });

  it('a compiled rule keeps what the per-call test needs', () => {
    const r = tiered({ decision: 'deny', subagent: 'h', toolAnnotations: { a: 1 }, commandPrefixes: ['git log'] });
    const c = compileRule(r, 7);
    expect({
      at: c.at,
      decision: c.decision,
      subagent: c.subagent,
      annotations: c.annotations,
      allowsByText: c.allowsByText,
      prefixes: c.prefixes?.length,
      rule: c.rule === r,
    }).toEqual({
      at: 7,
      decision: 'deny',
      subagent: 'h',
      annotations: { a: 1 },
      allowsByText: false,
      prefixes: 1,
      rule: true,
    });
    expect(compileRule(tiered({ commandPrefixes: ['git'] }), 0).allowsByText).toBe(true);
    expect(compileRule(tiered({}), 0).allowsByText).toBe(false);
  });
});
