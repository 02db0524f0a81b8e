import { escapesWorkspace, type ShellPlace } from './paths.js';

/**
 * Gemini CLI's shell heuristics, applied per sub-command to literal argv:
 * known read-only commands may be raised from ask_user to allow; destructive forms are forced to
 * ask_user outside yolo. Pure functions of argv; a command whose name is not literal is neither.
 */

/** Commands that only read, whatever their arguments (no flag of theirs writes or executes). */
const READ_ONLY = new Set([
  'cat',
  'cd',
  'cut',
  'echo',
  'expr',
  'false',
  'grep',
  'head',
  'id',
  'ls',
  'nl',
  'paste',
  'pwd',
  'rev',
  'seq',
  'stat',
  'tail',
  'tr',
  'true',
  'uname',
  'wc',
  'which',
  'whoami',
  'numfmt',
  'tac',
]);
/** Of those, the ones whose operands are files (or, for cd, a directory): every operand must stay in the workspace. */
const PATH_OPERANDS = new Set([
  'cat',
  'cd',
  'cut',
  'grep',
  'head',
  'ls',
  'nl',
  'paste',
  'rev',
  'stat',
  'tail',
  'wc',
  'numfmt',
  'tac',
  'uniq',
  'base64',
  'find',
]);
const FIND_ACTIONS = new Set([
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  '-delete',
  '-fls',
  '-fprint',
  '-fprint0',
  '-fprintf',
]);
const GIT_READ_SUBCOMMANDS = new Set(['status', 'log', 'diff', 'show', 'branch']);
const GIT_UNSAFE_FLAGS = new Set(['--output', '--ext-diff', '--textconv', '--exec', '--paginate']);
const GIT_BRANCH_LISTING = new Set([
  '--list',
  '-l',
  '--show-current',
  '-a',
  '--all',
  '-r',
  '--remotes',
  '-v',
  '-vv',
  '--verbose',
]);
/** git global options that take the next word as their value (-c and --config-env too, but gitOverridesConfig refuses those first). */
const GIT_OPTS_WITH_VALUE = new Set(['-C', '--exec-path', '--git-dir', '--namespace', '--super-prefix', '--work-tree']);

const base = (cmd: string): string => cmd.slice(cmd.lastIndexOf('/') + 1);

/** True when argv (all literal) only reads, and only inside the workspace. */
export function isKnownReadOnly(argv: readonly string[], place: ShellPlace): boolean {
  // Stryker disable next-line ConditionalExpression: an empty argv has no name; no list holds undefined and the switch falls to false
  if (argv.length === 0) return false;
  const cmd = argv[0]!;
  const args = argv.slice(1);
  if (PATH_OPERANDS.has(cmd) && !operandsStayInside(cmd, args, place)) return false;
  if (READ_ONLY.has(cmd)) return true;
  switch (cmd) {
    case 'uniq':
      // `uniq in out` writes out: one operand at most.
      return args.filter((a) => !a.startsWith('-') || a === '-').length <= 1;
    case 'find':
      return !args.some((a) => FIND_ACTIONS.has(a));
    case 'base64':
      return !base64Writes(args);
    case 'sed':
      // Only `sed -n 12p` / `sed -n 3,9p [file]`: anything else can write (-i) or run (e).
      // Stryker disable next-line StringLiteral: a missing script fails the test whatever string stands in for it
      return (
        argv.length <= 4 &&
        args[0] === '-n' &&
        /^\d+(,\d+)?p$/.test(args[1] ?? '') &&
        (args[2] === undefined || !escapesWorkspace(args[2], place))
      );
    case 'git': {
      if (gitOverridesConfig(args)) return false;
      const sub = gitSubcommand(args);
      if (!sub || !GIT_READ_SUBCOMMANDS.has(sub.name)) return false;
      const rest = args.slice(sub.index + 1);
      if (!gitArgsReadOnly(rest)) return false;
      return sub.name !== 'branch' || gitBranchListing(rest);
    }
    default:
      return false;
  }
}

/** Commands whose arguments can make them destructive: an argument known only at run time might be `-rf`. */
const ARGUMENT_SENSITIVE = new Set(['rm', 'find', 'git', 'base64', 'ln', 'rg']);

export function isDestructive(argv: readonly string[], literal: readonly boolean[] = argv.map(() => true)): boolean {
  if (argv.length === 0) return false;
  const cmd = base(argv[0]!);
  const args = argv.slice(1);
  if (ARGUMENT_SENSITIVE.has(cmd) && literal.slice(1).some((l) => !l)) return true;
  switch (cmd) {
    case 'ln':
      // A symlink can point a harmless-looking path into .git/ or outside the workspace.
      return args.some((a) => a === '--symbolic' || /^-[a-zA-Z]*s/.test(a));
    case 'rg':
      // --pre runs a program on every file searched; -z runs decompressors.
      return args.some((a) => a === '-z' || a === '--search-zip' || /^--(pre|hostname-bin)(=|$)/.test(a));
    case 'rm':
      // Forcing or recursive removal in any spelling: -rf, -fr, -r -f, -Rf, --force, --recursive.
      return args.some((a) => /^-[a-zA-Z]*[rRf]/.test(a) || a === '--force' || a === '--recursive');
    case 'sudo':
    case 'doas':
      return true;
    case 'find':
      return args.some((a) => FIND_ACTIONS.has(a));
    case 'git': {
      if (gitOverridesConfig(args)) return true;
      const sub = gitSubcommand(args);
      if (!sub || !GIT_READ_SUBCOMMANDS.has(sub.name)) return false;
      const rest = args.slice(sub.index + 1);
      return !gitArgsReadOnly(rest) || (sub.name === 'branch' && !gitBranchListing(rest));
    }
    case 'base64':
      return base64Writes(args);
    default:
      return false;
  }
}

/**
 * Gemini CLI's isPathEscapingWorkspace without the file system: flags are skipped (their `=value`
 * is checked, and for grep the file attached to -f), and every other operand must resolve inside the workspace. For grep the pattern is
 * checked too, as Gemini CLI does (over-strict, never lax).
 */
function operandsStayInside(cmd: string, args: readonly string[], place: ShellPlace): boolean {
  if (cmd === 'cd' && args.every((a) => a.startsWith('-'))) return false; // `cd` alone goes home
  let operands = true;
  for (const a of args) {
    if (operands && a === '--') {
      operands = false;
      continue;
    }
    if (operands && a.startsWith('-')) {
      const eq = a.indexOf('=');
      // Stryker disable next-line EqualityOperator: a flag starts with `-`, so `=` is never at index 0
      if (eq >= 0 && escapesWorkspace(a.slice(eq + 1), place)) return false;
      // `grep -f/etc/x` (or `-rf/etc/x`) reads its patterns from the file attached to -f.
      // Stryker disable next-line Regex: (.+) runs to the end of the word anyway, and unanchored it only adds long options (`--x-f/y`), which grep refuses
      const attached = cmd === 'grep' ? /^-[^-]*?f(.+)$/.exec(a) : null;
      if (attached && escapesWorkspace(attached[1]!, place)) return false;
      continue;
    }
    if (escapesWorkspace(a, place)) return false;
  }
  return true;
}

const base64Writes = (args: readonly string[]): boolean =>
  args.some((a) => a.startsWith('-o') || a === '--output' || a.startsWith('--output='));

/** `git -c core.pager=...` and friends can run any program through configuration. */
const gitOverridesConfig = (args: readonly string[]): boolean =>
  args.some((a) => a.startsWith('-c') || a === '--config-env' || a.startsWith('--config-env='));

function gitSubcommand(args: readonly string[]): { name: string; index: number } | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (GIT_OPTS_WITH_VALUE.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return { name: a, index: i };
  }
  return undefined;
}

const gitArgsReadOnly = (args: readonly string[]): boolean =>
  !args.some((a) => GIT_UNSAFE_FLAGS.has(a) || a.startsWith('--output=') || a.startsWith('--exec='));

/** `git branch` with no arguments or only listing flags; a name would create or change a branch. */
const gitBranchListing = (args: readonly string[]): boolean =>
  args.every((a) => GIT_BRANCH_LISTING.has(a) || a.startsWith('--format='));
