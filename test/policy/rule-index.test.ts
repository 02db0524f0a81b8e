// The rule index (candidates per tool name, mode and context; command rules picked by how a
// sub-command begins; patterns tried only where their literal start occurs) must decide exactly
// as testing every rule in order does. A bucket key that is too narrow would skip a deny rule and
// allow what the policy denies. fast-check writes policies and calls; every verdict is compared
// with the linear lookup's, on the one decision path.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import { placeRules } from '../../src/policy/engine.js';
import { parsePolicyToml } from '../../src/policy/load-toml.js';
import { createLinearRuleIndex, createRuleIndex } from '../../src/policy/rule-index.js';
import type { ApprovalMode, PolicyContext, PolicyQuery, TierName } from '../../src/policy/types.js';

const toolName = fc.constantFrom(
  'run_shell_command',
  'read_file',
  'write_file',
  '*',
  'mcp_*',
  'mcp_s1_*',
  'read_*',
  'search',
  'grep_search',
  'search_file_content',
  'invoke_agent',
  'helper',
);
const prefix = fc.constantFrom(
  'git',
  'git log',
  'git status',
  'npm test',
  'npm',
  'g',
  'gi',
  'ls -la',
  'ls',
  '"git" log',
  "echo 'a b'",
  'git"',
  'echo',
  'rm -rf',
  'cd',
  'make4 build',
  'PATH=/x',
  '$HOME/bin/x',
  'bash -c',
  '$HOME/x y',
  'git "log',
);
const regex = fc.constantFrom(
  'git .*',
  'ls( |$)',
  'rm -rf',
  'g',
  '.*',
  'git log',
  'make4 [a-z]+',
  'echo \\$',
  'npm (test|run)',
  'git"',
  '[a-z]+ -la',
  '(?:git|npm) status',
  '\\\\',
  'l',
);
const argsPattern = fc.constantFrom(
  '\\x00"command":"git',
  '"file_path":"src/',
  '\\x00"file_path":"src/[^"]*"\\x00',
  '"command":"ls',
  'secret',
  '\\x00"dir_path":"sub"',
  '"command":"[a-z]+ -',
  '"nested":\\{"command":"rm',
);

const rule = fc
  .record({
    toolName,
    decision: fc.constantFrom('allow', 'deny', 'ask_user'),
    priority: fc.integer({ min: 0, max: 999 }),
    tier: fc.constantFrom<TierName>('default', 'workspace', 'user', 'admin'),
    modes: fc.option(fc.subarray(['default', 'autoEdit', 'yolo', 'plan'], { minLength: 1 }), { nil: undefined }),
    interactive: fc.option(fc.boolean(), { nil: undefined }),
    mcpName: fc.option(fc.constantFrom('s1', 's2', '*'), { nil: undefined, freq: 6 }),
    command: fc.oneof(
      fc.constant(undefined),
      fc.array(prefix, { minLength: 1, maxLength: 3 }).map((ps) => ({ commandPrefix: ps })),
      regex.map((r) => ({ commandRegex: r })),
      argsPattern.map((a) => ({ argsPattern: a })),
    ),
  })
  .map((r) => (r.command && !('argsPattern' in r.command) ? { ...r, toolName: 'run_shell_command' } : r)); // command rules name the shell tool

type RuleSpec = typeof rule extends fc.Arbitrary<infer T> ? T : never;

function toml(r: RuleSpec): string {
  const lines = [
    '[[rule]]',
    `toolName = ${JSON.stringify(r.toolName)}`,
    `decision = "${r.decision}"`,
    `priority = ${r.priority}`,
  ];
  if (r.modes) lines.push(`modes = ${JSON.stringify(r.modes)}`);
  if (r.interactive !== undefined) lines.push(`interactive = ${r.interactive}`);
  if (r.mcpName) lines.push(`mcpName = "${r.mcpName}"`);
  if (r.command && 'commandPrefix' in r.command)
    lines.push(`commandPrefix = ${JSON.stringify(r.command.commandPrefix)}`);
  if (r.command && 'commandRegex' in r.command) lines.push(`commandRegex = ${JSON.stringify(r.command.commandRegex)}`);
  // Literal TOML strings: the pattern's backslashes stay as written.
  if (r.command && 'argsPattern' in r.command) lines.push(`argsPattern = '${r.command.argsPattern}'`);
  return `${lines.join('\n')}\n`;
}

const word = fc.constantFrom(
  'v=1',
  'git',
  'log',
  '$HOME/x',
  'y',
  'git"x"',
  'status',
  'npm',
  'test',
  'ls',
  '-la',
  'echo',
  "'a b'",
  '"git"',
  'make4',
  'build',
  'rm',
  '-rf',
  'x',
  'gi',
  'g',
  '$HOME',
  'PATH=/x',
  'cd',
  'sub',
  '\\\\',
  'a"b',
);
// Sub-commands often begin with a rule's own prefix or pattern text, so that rules do match.
const simple = fc
  .tuple(
    fc.oneof(
      prefix,
      word,
      regex.filter((r) => /^[a-z -]+$/.test(r)),
    ),
    fc.array(word, { maxLength: 2 }),
  )
  .map(([head, ws]) => [head, ...ws].join(' '));
const command = fc
  .array(fc.tuple(simple, fc.constantFrom(' && ', ' | ', '; ', ' || ')), { minLength: 1, maxLength: 3 })
  .map((xs) => xs.map(([s, sep], i) => (i < xs.length - 1 ? s + sep : s)).join(''));
const query: fc.Arbitrary<PolicyQuery> = fc.oneof(
  fc.record({
    toolName: fc.constant('run_shell_command'),
    args: fc.record({ command, dir_path: fc.constantFrom(undefined, 'sub', '.') }, { requiredKeys: ['command'] }),
  }),
  // Another "command" key inside the arguments: patterns see it too.
  command.map((c) => ({ toolName: 'run_shell_command', args: { command: c, nested: { command: 'rm -rf /' } } })),
  fc.record({
    toolName: fc.constantFrom(
      'read_file',
      'write_file',
      'search_file_content',
      'grep_search',
      'helper',
      'mcp_s1_tool',
      'invoke_agent',
    ),
    args: fc.record({
      file_path: fc.constantFrom('src/a.ts', 'package.json', 'secret.txt'),
      agent_name: fc.constantFrom('helper', 'other'),
    }),
  }),
  fc.record({
    toolName: fc.constantFrom('search', 'tool'),
    mcpServer: fc.constantFrom('s1', 's2'),
    args: fc.constant({ q: 'git log' }),
  }),
);

describe('the rule index', () => {
  it('decides every call as the linear lookup over all rules does', () => {
    fc.assert(
      fc.property(
        fc.array(rule, { minLength: 1, maxLength: 30 }),
        fc.array(query, { minLength: 1, maxLength: 6 }),
        fc.constantFrom<ApprovalMode>('default', 'autoEdit', 'yolo', 'plan'),
        fc.constantFrom<PolicyContext>('action', 'interactive', 'headless'),
        (rules, queries, mode, context) => {
          const byTier = new Map<TierName, string[]>();
          for (const r of rules) byTier.set(r.tier, [...(byTier.get(r.tier) ?? []), toml(r)]);
          const entries = [...byTier].map(([tier, texts]) => {
            const parsed = parsePolicyToml(texts.join('\n'), `${tier}.toml`);
            expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
            return { tier, rules: parsed.rules };
          });
          const sorted = placeRules(entries);
          const indexed = createRuleIndex(sorted);
          const linear = createLinearRuleIndex(sorted);
          const setting = { mode, context, workspace: '/work/space' };
          // Twice: the second pass runs on the index's remembered candidate lists.
          for (let pass = 0; pass < 2; pass++) {
            for (const q of queries)
              expect(decide(indexed, setting, q), JSON.stringify(q)).toEqual(decide(linear, setting, q));
          }
        },
      ),
      { seed: 20260116, numRuns: 3000 },
    );
  });

  // The bucket edges, each with a rule the index must not skip (its line is the expected decider).
  it.each<[string, string, string]>([
    [
      'a deny prefix that is not plain words, matched by text past its first token',
      'commandPrefix = ["$HOME/x y"]',
      '$HOME/x y z',
    ],
    [
      'a deny prefix whose words match while the environment changed (text match only)',
      'commandPrefix = ["npm test"]',
      'v=1; npm test',
    ],
    [
      'a commandRegex whose literal has no token end (keyed by its first character)',
      'commandRegex = "gitx"',
      'gitxyz status',
    ],
    ['a commandRegex matching another "command" key inside the arguments', 'commandRegex = "rm -rf"', 'ls'],
  ])('%s', async (_what, match, command) => {
    const rules = `[[rule]]\ntoolName = "*"\ndecision = "allow"\npriority = 1\n[[rule]]\ntoolName = "run_shell_command"\n${match}\ndecision = "deny"\npriority = 9\n`;
    const parsed = parsePolicyToml(rules, 'p.toml');
    const index = createRuleIndex(placeRules([{ tier: 'user', rules: parsed.rules }]));
    const q: PolicyQuery = { toolName: 'run_shell_command', args: { command, nested: { command: 'rm -rf /' } } };
    const verdict = await decide(index, { mode: 'default', context: 'interactive' }, q);
    expect(verdict.decision).toBe('deny');
    expect(verdict.rule?.line).toBe(5); // the deny rule's [[rule]] header
  });
});
