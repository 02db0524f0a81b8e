// Our decisions against Gemini CLI's own policy engine, loaded in this process from the pinned
// @google/gemini-cli bundle: the same policy files, the same calls, every approval mode, with and
// without a person to ask. Any difference must be one README.md lists under "Where our decisions
// differ from Gemini CLI's", in the stated direction; and every listed difference must still occur.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

[[rule]]
toolName = "mcp_gh_*"
decision = "allow"
priority = 100

[[rule]]
toolName = "search"
mcpName = "db"
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
const call = (toolName: string, args: Record<string, unknown> = {}, extra: Partial<PolicyQuery> = {}): PolicyQuery => ({
  toolName,
  args,
  ...extra,
});

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
  // MCP tools as the scheduler asks about them: the registered name, the server from our registry.
  // A server's tool called read_file is not the built-in read_file: no rule for that one allows it.
  call('mcp_evil_read_file', { file_path: 'a.ts' }, { mcpServer: 'evil' }),
  call('mcp_gh_search', { q: 'x' }, { mcpServer: 'gh' }),
  call('mcp_db_search', { q: 'x' }, { mcpServer: 'db' }),
  call('mcp_evil_search', { q: 'x' }, { mcpServer: 'evil' }),
  // A name that claims one server while the registry says another: the registry's server decides.
  call('mcp_gh_search', { q: 'x' }, { mcpServer: 'evil' }),
  ...[
    'npm test',
    'npm test -- --watch',
    'npm testx',
    'npm test && curl x',
    'npm test; rm -rf x',
    'git commit -m "fix"',
    'git log',
    'ls',
    'ls -la',
    'cat README.md',
    'cat /etc/passwd',
    'echo x > out.txt',
    'npm run build > log.txt',
    'make build',
    'make build x',
    'curl x | sh',
    'rm -rf build',
    'FOO=1 npm test',
    'find . -name x',
    'find . -delete',
    'git -c core.pager=x log',
    'ln -s a b',
    'x=1',
    'echo "unterminated',
    'ls &&',
    'cd /tmp && ls',
    'grep -r x src',
    'sed -n 3p f',
    'sed -i s/a/b/ f',
    'git branch new',
    'git branch -a',
    'base64 -o x y',
    'PATH=/tmp; ls',
    'sh -c "$X"',
    'echo x | bash',
    // The differences README.md lists:
    "git commit -m 'fix'",
    'npm "test"',
    'npm  test',
    'echo "a  b" c',
    'git log"out"',
    'bash -c "npm test"',
    'npm test ${x:-`curl x|sh`}',
    'eval "$X"',
    'echo $(( a[$(id)] ))',
    'echo x >> .git/config',
    'echo x > .github/workflows/x.yml',
    'cd .gemini && echo x > policies/x.toml',
    'echo x >> "$GITHUB_ENV"',
    'npm test > /tmp/out',
    'echo hi & ls',
    'git status && git diff',
    'ls 2>&1 | wc -l',
    'cd sub && npm test',
    'cat <<EOF\n`id`\nEOF',
    'ls > /dev/null',
    'uniq a b',
    'sudo ls',
    'rm -r -f x',
    'git log $ARGS',
  ].map(sh),
];

type Direction = 'stricter' | 'looser';
/** The bold lead of each entry in README.md's "Where our decisions differ from Gemini CLI's". */
const PREFIX = "`commandPrefix` matches the command's words, not its text.";
const WRAPPERS = "`bash -c '...'`, `sh -c`, `eval '...'`";
const UNACCOUNTED = 'What the splitter cannot account for';
const REDIRECTIONS = 'Redirections.';
const PER_PART = 'Read-only heuristics apply per sub-command.';
const UNIQ = '`uniq in out`';
const DESTRUCTIVE = 'More destructive forms are asked about:';
const YOLO_PARTS = 'In yolo mode, a deny or ask_user rule that matches any sub-command still applies.';
const NO_COMMAND = 'A line that runs no command';
/** Every command whose decision may differ from Gemini CLI's, the README entry that says why, and which way. */
const DIFFERENCES: Readonly<Record<string, { entry: string; direction: Direction }>> = {
  "git commit -m 'fix'": { entry: PREFIX, direction: 'looser' },
  'npm "test"': { entry: PREFIX, direction: 'looser' },
  'npm  test': { entry: PREFIX, direction: 'looser' },
  'git log"out"': { entry: PREFIX, direction: 'stricter' },
  'bash -c "npm test"': { entry: WRAPPERS, direction: 'looser' },
  'npm test ${x:-`curl x|sh`}': { entry: UNACCOUNTED, direction: 'stricter' },
  'eval "$X"': { entry: UNACCOUNTED, direction: 'stricter' },
  'echo $(( a[$(id)] ))': { entry: UNACCOUNTED, direction: 'stricter' },
  'sh -c "$X"': { entry: UNACCOUNTED, direction: 'stricter' },
  'echo x | bash': { entry: UNACCOUNTED, direction: 'stricter' },
  'curl x | sh': { entry: UNACCOUNTED, direction: 'stricter' },
  'x=1': { entry: NO_COMMAND, direction: 'looser' },
  'echo x >> .git/config': { entry: REDIRECTIONS, direction: 'stricter' },
  'echo x > .github/workflows/x.yml': { entry: REDIRECTIONS, direction: 'stricter' },
  'cd .gemini && echo x > policies/x.toml': { entry: REDIRECTIONS, direction: 'stricter' },
  'echo x >> "$GITHUB_ENV"': { entry: REDIRECTIONS, direction: 'stricter' },
  'npm test > /tmp/out': { entry: REDIRECTIONS, direction: 'stricter' },
  'ls > /dev/null': { entry: REDIRECTIONS, direction: 'looser' },
  'echo hi & ls': { entry: PER_PART, direction: 'looser' },
  'git status && git diff': { entry: PER_PART, direction: 'looser' },
  'ls 2>&1 | wc -l': { entry: PER_PART, direction: 'looser' },
  'cd sub && npm test': { entry: PER_PART, direction: 'looser' },
  'cat <<EOF\n`id`\nEOF': { entry: PER_PART, direction: 'looser' },
  'uniq a b': { entry: UNIQ, direction: 'stricter' },
  'sudo ls': { entry: DESTRUCTIVE, direction: 'stricter' },
  'rm -r -f x': { entry: DESTRUCTIVE, direction: 'stricter' },
  'git log $ARGS': { entry: DESTRUCTIVE, direction: 'stricter' },
  'npm test; rm -rf x': { entry: YOLO_PARTS, direction: 'stricter' },
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
  it('README.md explains every difference this test allows', () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const start = readme.indexOf("#### Where our decisions differ from Gemini CLI's");
    expect(start).toBeGreaterThan(0);
    const section = readme.slice(start, readme.indexOf('\n#', start + 5));
    for (const { entry } of Object.values(DIFFERENCES)) expect(section, entry).toContain(`- **${entry}`);
  });

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
            const mine = (await ours.decide(q, mode)).decision;
            compared++;
            if (theirs === mine) continue;
            const command = typeof q.args.command === 'string' ? q.args.command : undefined;
            const listed = command !== undefined ? DIFFERENCES[command] : undefined;
            const way: Direction = STRICTNESS[mine] > STRICTNESS[theirs] ? 'stricter' : 'looser';
            if (listed && listed.direction === way) seen.add(command!);
            else
              unexplained.push(
                `${name} / ${context} / ${mode}: ${q.toolName} ${JSON.stringify(command ?? q.args)}: Gemini CLI ${theirs}, ours ${mine}`,
              );
          }
        }
      }
    }
    expect(compared).toBe(sets.length * CONTEXTS.length * MODES.length * CALLS.length);
    expect(unexplained).toEqual([]);
    expect([...seen].sort()).toEqual(Object.keys(DIFFERENCES).sort());
  }, 300_000);
});
