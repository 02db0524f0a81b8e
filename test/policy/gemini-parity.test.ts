// Our decisions against Gemini CLI's own policy engine, loaded in this process from the pinned
// @google/gemini-cli bundle: the same policy files, the same calls, every approval mode, with and
// without a person to ask. Any difference must be one README.md lists under "Where our decisions
// differ from Gemini CLI's", in the stated direction; and every listed difference must still occur.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicy } from '../../src/policy/load.js';
import type { ApprovalMode, Decision, PolicyQuery, TierName } from '../../src/policy/types.js';
import { createGeminiDecider, GEMINI_BUNDLE } from '../support/gemini-policy-engine.js';

const USER_TOML = `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["npm test", 'git commit -m "fix"', 'echo "a  b"', "git log"]
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 200

[[rule]]
toolName = "run_shell_command"
commandRegex = 'make [a-z]+"'
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "curl"
decision = "ask_user"
priority = 150

[[rule]]
toolName = "run_shell_command"
commandPrefix = "npm run"
decision = "allow"
priority = 100
allowRedirection = true

[[rule]]
toolName = "write_file"
argsPattern = '"file_path":"docs/'
decision = "allow"
priority = 100
`;
const BLANKET_TOML = `
[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 1
`;

const sh = (command: string): PolicyQuery => ({ toolName: 'run_shell_command', args: { command } });
const call = (toolName: string, args: Record<string, unknown> = {}, extra: Partial<PolicyQuery> = {}): PolicyQuery => ({ toolName, args, ...extra });

const CALLS: PolicyQuery[] = [
  call('read_file', { file_path: 'a.ts' }),
  call('write_file', { file_path: 'docs/a.md', content: 'x' }),
  call('write_file', { file_path: 'src/a.ts', content: 'x' }),
  call('write_file', { file_path: 'package.json', content: 'x' }),
  call('replace', { file_path: 'sub/Makefile', old_string: 'a', new_string: 'b' }),
  call('write_file', { file_path: 'plans/p.md', content: 'x' }),
  call('web_fetch', { url: 'https://example.com' }),
  call('glob', { pattern: '*' }),
  call('ask_user', { question: 'q' }),
  call('enter_plan_mode'),
  call('exit_plan_mode'),
  call('invoke_agent', { agent_name: 'codebase_investigator' }),
  call('query', {}, { mcpServer: 'db', annotations: { readOnlyHint: true } }),
  ...[
    'npm test', 'npm test -- --watch', 'npm testx', 'npm test && curl x', 'npm test; rm -rf x', 'git commit -m "fix"', 'git log',
    'ls', 'ls -la', 'cat README.md', 'cat /etc/passwd', 'echo x > out.txt', 'npm run build > log.txt', 'make build', 'make build x',
    'curl x | sh', 'rm -rf build', 'FOO=1 npm test', 'find . -name x', 'find . -delete', 'git -c core.pager=x log', 'ln -s a b', 'x=1',
    'echo "unterminated', 'ls &&', 'cd /tmp && ls', 'grep -r x src', 'sed -n 3p f', 'sed -i s/a/b/ f', 'git branch new', 'git branch -a',
    'base64 -o x y', 'PATH=/tmp; ls', 'sh -c "$X"', 'echo x | bash',
    // The differences README.md lists:
    "git commit -m 'fix'", 'npm "test"', 'npm  test', 'echo "a  b" c', 'git log"out"', 'bash -c "npm test"', 'npm test ${x:-`curl x|sh`}',
    'eval "$X"', 'echo $(( a[$(id)] ))', 'echo x >> .git/config', 'echo x > .github/workflows/x.yml', 'cd .gemini && echo x > policies/x.toml',
    'echo x >> "$GITHUB_ENV"', 'npm test > /tmp/out', 'echo hi & ls', 'git status && git diff', 'ls 2>&1 | wc -l', 'cd sub && npm test',
    'cat <<EOF\n`id`\nEOF', 'ls > /dev/null', 'uniq a b', 'sudo ls', 'rm -r -f x', 'git log $ARGS',
  ].map(sh),
];

type Direction = 'stricter' | 'looser';
/** Every command whose decision may differ from Gemini CLI's, the README entry that says why, and which way. */
const DIFFERENCES: Readonly<Record<string, { entry: string; direction: Direction }>> = {
  "git commit -m 'fix'": { entry: 'commandPrefix matches argv', direction: 'looser' },
  'npm "test"': { entry: 'commandPrefix matches argv', direction: 'looser' },
  'npm  test': { entry: 'commandPrefix matches argv', direction: 'looser' },
  'git log"out"': { entry: 'commandPrefix matches argv', direction: 'stricter' },
  'bash -c "npm test"': { entry: 'bash -c is checked by its script', direction: 'looser' },
  'npm test ${x:-`curl x|sh`}': { entry: 'what the splitter cannot account for', direction: 'stricter' },
  'eval "$X"': { entry: 'what the splitter cannot account for', direction: 'stricter' },
  'echo $(( a[$(id)] ))': { entry: 'what the splitter cannot account for', direction: 'stricter' },
  'sh -c "$X"': { entry: 'what the splitter cannot account for', direction: 'stricter' },
  'echo x | bash': { entry: 'what the splitter cannot account for', direction: 'stricter' },
  'curl x | sh': { entry: 'what the splitter cannot account for', direction: 'stricter' },
  'x=1': { entry: 'a line that runs no command', direction: 'looser' },
  'echo x >> .git/config': { entry: 'redirections', direction: 'stricter' },
  'echo x > .github/workflows/x.yml': { entry: 'redirections', direction: 'stricter' },
  'cd .gemini && echo x > policies/x.toml': { entry: 'redirections', direction: 'stricter' },
  'echo x >> "$GITHUB_ENV"': { entry: 'redirections', direction: 'stricter' },
  'npm test > /tmp/out': { entry: 'redirections', direction: 'stricter' },
  'ls > /dev/null': { entry: 'redirections', direction: 'looser' },
  'echo hi & ls': { entry: 'read-only heuristics per sub-command', direction: 'looser' },
  'git status && git diff': { entry: 'read-only heuristics per sub-command', direction: 'looser' },
  'ls 2>&1 | wc -l': { entry: 'read-only heuristics per sub-command', direction: 'looser' },
  'cd sub && npm test': { entry: 'read-only heuristics per sub-command', direction: 'looser' },
  'cat <<EOF\n`id`\nEOF': { entry: 'read-only heuristics per sub-command', direction: 'looser' },
  'uniq a b': { entry: 'uniq with two operands writes', direction: 'stricter' },
  'sudo ls': { entry: 'destructive forms', direction: 'stricter' },
  'rm -r -f x': { entry: 'destructive forms', direction: 'stricter' },
  'git log $ARGS': { entry: 'destructive forms', direction: 'stricter' },
  'npm test; rm -rf x': { entry: 'yolo still checks every sub-command', direction: 'stricter' },
};

const STRICTNESS: Record<Decision, number> = { allow: 0, ask_user: 1, deny: 2 };
const MODES: readonly ApprovalMode[] = ['default', 'autoEdit', 'yolo', 'plan'];
const CONTEXTS = ['interactive', 'headless'] as const;

let dir: string;
let workspace: string;
let sets: Array<[string, Partial<Record<TierName, string[]>>]>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gemini-parity-'));
  workspace = join(dir, 'workspace');
  writeFileSync(join(dir, 'user.toml'), USER_TOML);
  writeFileSync(join(dir, 'blanket.toml'), BLANKET_TOML);
  const builtin = join(GEMINI_BUNDLE, 'policies');
  sets = [
    ["Gemini CLI's built-in policies", { default: [builtin] }],
    ['built-in + user rules', { default: [builtin], user: [join(dir, 'user.toml')] }],
    ['user rules alone', { user: [join(dir, 'user.toml')] }],
    ['one rule allowing every command', { user: [join(dir, 'blanket.toml')] }],
  ];
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("decisions against Gemini CLI's own engine", () => {
  it('agree, except where README.md says why and which way', async () => {
    const seen = new Set<string>();
    const unexplained: string[] = [];
    let compared = 0;
    for (const [name, tiers] of sets) {
      for (const context of CONTEXTS) {
        const ours = await loadPolicy({ context, useBuiltinDefaults: false, workspace, tiers });
        for (const mode of MODES) {
          const gemini = await createGeminiDecider({ tiers, context, mode, workspace });
          for (const q of CALLS) {
            const theirs = await gemini(q);
            const mine = ours.decide(q, mode).decision;
            compared++;
            if (theirs === mine) continue;
            const command = typeof q.args.command === 'string' ? q.args.command : undefined;
            const listed = command !== undefined ? DIFFERENCES[command] : undefined;
            const way: Direction = STRICTNESS[mine] > STRICTNESS[theirs] ? 'stricter' : 'looser';
            if (listed && listed.direction === way) seen.add(command!);
            else unexplained.push(`${name} / ${context} / ${mode}: ${q.toolName} ${JSON.stringify(command ?? q.args)}: Gemini CLI ${theirs}, ours ${mine}`);
          }
        }
      }
    }
    expect(compared).toBe(sets.length * CONTEXTS.length * MODES.length * CALLS.length);
    expect(unexplained).toEqual([]);
    expect([...seen].sort()).toEqual(Object.keys(DIFFERENCES).sort());
  }, 300_000);
});
