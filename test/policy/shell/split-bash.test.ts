// The splitter against bash itself. fast-check composes command lines from a grammar (separators,
// pipes, background jobs, substitutions in every position, parameter expansions, here-documents,
// subshells, functions, `bash -c`, `eval`, wrappers, quoting); bash runs each one in a scratch
// folder where every command name is a stub that records its argv; and each recorded command must
// be among the sub-commands the policy checked (same name, same static arguments), unless the
// splitter said it could not account for the line, in which case the policy must not allow it.
// Deterministic seed; a failure prints the seed and the shrunk command line to replay it.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load.js';
import { loadBashGrammar, splitShell, type ShellPart } from '../../../src/policy/shell/split.js';
import type { PolicyEngine } from '../../../src/policy/types.js';

const SEED = Number(process.env.SHELL_PROPERTY_SEED ?? 20260101);
const RUNS = Number(process.env.SHELL_PROPERTY_RUNS ?? 300);
const STUBS = 60;
const BWRAP = '/usr/bin/bwrap';

let root: string;
let bin: string;
let engine: PolicyEngine;
/** bubblewrap's namespace flags, when it can run here (hosts that restrict user namespaces refuse them). */
let isolation: string[] = [];
const NAMESPACES = [
  '--unshare-user',
  '--unshare-ipc',
  '--unshare-net',
  '--unshare-uts',
  '--die-with-parent',
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
];

beforeAll(async () => {
  await loadBashGrammar(); // what engine.prepare does for a shell call
  root = mkdtempSync(join(tmpdir(), 'shell-split-bash-'));
  bin = join(root, 'bin');
  mkdirSync(bin);
  // Each stub writes its own record (name and argv, NUL-separated) to a fresh file: no interleaving.
  const stub = '#!/bin/sh\nf=$(mktemp "$TRACE_DIR/t.XXXXXX") && printf \'%s\\0\' "${0##*/}" "$@" > "$f"\n';
  for (let i = 0; i < STUBS; i++) {
    writeFileSync(join(bin, `c${i}`), stub);
    chmodSync(join(bin, `c${i}`), 0o755);
  }
  const names = [
    ...Array.from({ length: STUBS }, (_, i) => `c${i}`),
    'env',
    'nohup',
    'timeout',
    'command',
    'xargs',
    'find',
    'exec',
    'f',
  ];
  // Every stub and wrapper is allowed by prefix, with redirections: only the splitter stands between
  // a command line and "allow".
  const toml = `[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ${JSON.stringify(names)}\ndecision = "allow"\npriority = 100\nallowRedirection = true\n`;
  engine = await loadPolicy({
    context: 'interactive',
    useBuiltinDefaults: false,
    tiers: { user: [{ inline: toml, label: 'stubs.toml' }] },
  });
  // The generated lines only call the stubs and a few harmless tools; bubblewrap is a second fence.
  if (existsSync(BWRAP) && spawnSync(BWRAP, [...NAMESPACES, 'true']).status === 0) isolation = [BWRAP, ...NAMESPACES];
  else
    console.warn(`shell-split-bash: ${BWRAP} cannot make namespaces here; running bash in a scratch folder without it`);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs `command` with bash in a scratch folder (in bubblewrap: no network, read-only /) and returns every stub's argv. */
async function trace(command: string, n: number): Promise<string[][]> {
  const dir = join(root, `case${n}`);
  const work = join(dir, 'work');
  const traces = join(dir, 'trace');
  mkdirSync(work, { recursive: true });
  mkdirSync(traces);
  const env = { PATH: `${bin}:/usr/bin:/bin`, TRACE_DIR: traces, HOME: '/nonexistent', LANG: 'C' };
  const bash = ['bash', '-c', command];
  const argv = isolation.length > 0 ? [...isolation, '--bind', dir, dir, '--chdir', work, ...bash] : bash;
  // fd 9 is a pipe every process inherits; its end-of-file means the last one (background jobs too) has exited.
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: work,
    env,
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore', 'ignore', 'ignore', 'ignore', 'ignore', 'ignore', 'ignore', 'pipe'],
  });
  const lastHolder = (child.stdio as unknown as Readable[])[9]!;
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    lastHolder.on('close', () => resolve());
    lastHolder.resume();
  });
  const guard = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 20_000);
  await done;
  clearTimeout(guard);
  const records = readdirSync(traces).map((f) => readFileSync(join(traces, f), 'utf8').split('\0').slice(0, -1));
  rmSync(dir, { recursive: true, force: true });
  return records;
}

/** The recorded argv matches a checked part: same name, and the same words up to the first one known only at run time. */
function checkedBy(record: readonly string[], parts: readonly ShellPart[]): boolean {
  return parts.some((p) => {
    if (!p.literal[0] || p.words[0] !== record[0]) return false;
    for (let i = 1; i < p.words.length; i++) {
      if (!p.literal[i]) return true;
      if (record[i] !== p.words[i]) return false;
    }
    return record.length === p.words.length;
  });
}

// ---- the grammar ----
const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
/** Text placed inside backticks: bash removes one level of backslashes before each \\ and ` there. */
const bt = (s: string): string => s.replace(/[\\`]/g, (c) => `\\${c}`);

const word = fc.constantFrom(
  'a',
  "'b c'",
  '"d e"',
  'f\\ g',
  '--x=1',
  '"$HOME"',
  '-n',
  '{}',
  '2',
  "$'h\\ti'",
  'x"y"z',
  'p{q,r}',
  '*.none',
  '~/t',
  '$((1+2))',
  'l\\\nm',
  '\\\n',
  'a#b',
  '"a\\"b"',
  "'('",
  '\\;',
);
const stubCall = fc.array(word, { maxLength: 3 }).map((ws) => ['@', ...ws].join(' '));

const grammar = fc.letrec<{ cmd: string; simple: string; arg: string; subst: string; compound: string }>((tie) => ({
  cmd: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('simple'), tie('compound')),
  simple: fc
    .tuple(
      fc.constantFrom('', 'v=1 ', 'V=2 '),
      fc.constantFrom('@', "'@'", '"@"', '\\@', '@\\\n'),
      fc.array(tie('arg'), { maxLength: 3 }),
      fc.constantFrom('', ' > out.txt', ' 2>&1', ' < /dev/null', ' >/dev/null', ' >> log.txt'),
    )
    .map(([assign, name, args, redir]) => `${assign}${name}${args.map((a) => ` ${a}`).join('')}${redir}`),
  arg: fc.oneof({ depthSize: 'small' }, word, tie('subst')),
  subst: fc.oneof(
    tie('cmd').map((c) => `$(${c})`),
    tie('cmd').map((c) => `"$(${c})"`),
    tie('cmd').map((c) => `\`${bt(c)}\``),
    tie('cmd').map((c) => `"a\`${bt(c)}\`b"`),
    tie('cmd').map((c) => `\${x:-$(${c})}`),
    tie('cmd').map((c) => `\${x:-\`${bt(c)}\`}`),
    tie('cmd').map((c) => `"\${x:=$(${c})}"`),
    tie('cmd').map((c) => `\${x:+$(${c})}`),
    tie('cmd').map((c) => `\${x:-'$(${c})'}`),
    tie('cmd').map((c) => `"\${x:-'\`${bt(c)}\`'}"`),
    tie('cmd').map((c) => `<(${c})`),
    tie('cmd').map((c) => `>(${c})`),
    tie('cmd').map((c) => `$(( $(${c}) + 1 ))`),
  ),
  compound: fc.oneof(
    fc
      .tuple(tie('cmd'), fc.constantFrom('; ', ' && ', ' || ', ' | ', ' & ', '\n', ' |& '), tie('cmd'))
      .map(([a, op, b]) => `${a}${op}${b}`),
    tie('cmd').map((c) => `( ${c} )`),
    tie('cmd').map((c) => `{ ${c}\n}`),
    fc.tuple(tie('cmd'), tie('cmd')).map(([a, b]) => `if @; then ${a}\nelse ${b}\nfi`),
    tie('cmd').map((c) => `for v in a b; do ${c}\ndone`),
    tie('cmd').map((c) => `while false; do ${c}\ndone; @`),
    tie('cmd').map((c) => `case a in a) ${c};; esac`),
    tie('cmd').map((c) => `f() { ${c}\n}; f`),
    tie('cmd').map((c) => `bash -c ${sq(c)}`),
    tie('cmd').map((c) => `sh -ec ${sq(c)} name arg`),
    tie('cmd').map((c) => `eval ${sq(c)}`),
    tie('cmd').map((c) => `x=$(${c}); @ "$x"`),
    tie('cmd').map((c) => `! ${c}`),
    stubCall.map((s) => `{ ${s} <<EOF\nx $(@ a) \`@ b\` \${y:-$(@)} \${z:-\`@\`}\nEOF\n}`),
    stubCall.map((s) => `{ ${s} <<-'EOF'\n\tx $(@) \`@\`\n\tEOF\n}`),
    stubCall.map((s) => `{ ${s} <<< "$(@) \`@\`"\n}`),
    stubCall.map((s) => `env A=1 ${s}`),
    stubCall.map((s) => `nice -n 5 ${s}`),
    stubCall.map((s) => `stdbuf -o0 ${s}`),
    stubCall.map((s) => `time ${s}`),
    stubCall.map((s) => `echo a | xargs ${s}`),
    stubCall.map((s) => `echo a | xargs -I{} ${s} x{}`),
    tie('cmd').map((c) => `trap ${sq(c)} EXIT; @`),
    stubCall.map((s) => `nohup ${s} 2>/dev/null`),
    stubCall.map((s) => `timeout 5 ${s}`),
    stubCall.map((s) => `command ${s}`),
    stubCall.map((s) => `( exec ${s} )`),
    stubCall.map((s) => `xargs ${s} < /dev/null`),
    stubCall.map((s) => `find . -maxdepth 0 -exec ${s} {} \\;`),
    stubCall.map((s) => `${s} # @`),
    stubCall.map((s) => `${s} a#b`),
    stubCall.map((s) => `{ bash <<'EOF'\n${s}\nEOF\n}`),
    // Here-document ends spelled the ways bash accepts: the line after the end runs.
    fc
      .tuple(
        stubCall,
        fc.constantFrom<[string, string]>(
          ['EOF', 'E\\\nOF'],
          ["'E F'", 'E F'],
          ['"EOF"', 'EOF'],
          ['E\\OF', 'EOF'],
          ['-EOF', '\tEOF'],
          ['EOF', 'EOF '],
          ['E$x', 'E$x'],
          ['EOF', '\tEOF'],
        ),
      )
      .map(
        ([s, [start, end]]) =>
          `{ ${s} <<${start}\nx $(@)\n${end}\n@ after\n${start.replace(/^-/, '').replace(/['"\\]/g, '')}\n}`,
      ),
    stubCall.map((s) => `{ ${s} <<A <<'B'\na $(@)\nA\nb\nB\n@\n}`),
    stubCall.map((s) => `${s} # x \\\n@`),
  ),
}));

/** Gives every `@` its own stub name, so a recorded name points at one place in the line. */
function named(template: string): string {
  let i = 0;
  return template.replace(/@/g, () => `c${i++}`);
}
const commandLine = grammar.cmd.filter((t) => (t.match(/@/g) ?? []).length <= STUBS).map(named);

describe('the splitter against bash', () => {
  it(`every command bash runs was checked, or the line is not allowed (${RUNS} generated lines, seed ${SEED})`, async () => {
    let n = 0;
    const tally = { allowed: 0, accounted: 0, executed: 0 };
    await fc.assert(
      fc.asyncProperty(commandLine, async (command) => {
        const split = splitShell(command);
        const verdict = await engine.decide({ toolName: 'run_shell_command', args: { command } }, 'default');
        const records = await trace(command, n++);
        const missed = records.filter((r) => !checkedBy(r, split.parts));
        tally.executed += records.length;
        if (split.unknowns.length === 0) tally.accounted++;
        if (verdict.decision === 'allow') tally.allowed++;
        const report = `\n${command}\nran: ${JSON.stringify(records)}\nparts: ${JSON.stringify(split.parts.map((p) => p.words))}\nunknowns: ${JSON.stringify(split.unknowns)}\n${verdict.decision}: ${verdict.reason}`;
        if (split.unknowns.length === 0) expect(missed, `not among the parts the policy checked:${report}`).toEqual([]);
        if (verdict.decision === 'allow')
          expect(split.unknowns.length === 0 && missed.length === 0, `allowed, yet:${report}`).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // The property is only worth something if most lines were read in full, run commands, and allowed.
    expect(tally.accounted).toBeGreaterThan(RUNS / 2);
    expect(tally.allowed).toBeGreaterThan(RUNS / 4);
    expect(tally.executed).toBeGreaterThan(RUNS);
  }, 600_000);
});
