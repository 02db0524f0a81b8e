/**
 * Commands that run other commands: `eval`, `bash -c`, `env`, `timeout`, `xargs`, `find -exec`, ...
 * Pure functions of argv saying what else runs, so that it is checked like any other sub-command,
 * or that it cannot be known, so that the whole command is never allowed by its text.
 */

/** argv of one simple command as the splitter sees it: a value per word, undefined when dynamic. */
export type Argv = ReadonlyArray<string | undefined>;

export type WrapAction =
  /** This text is run as a shell script (eval, `bash -c`, trap, alias, watch, `sudo -s`). */
  | { kind: 'script'; script: string }
  /** Words `start..end` of this argv run as a command of their own. */
  | {
      kind: 'command';
      start: number;
      end: number;
      /** `NAME=value` words that set the inner command's environment (`env A=1 cmd`). */
      assignments?: readonly string[];
      /** Words equal to this are replaced at run time (`find -exec rm {} \;`, `xargs -I X`). */
      placeholder?: string;
      /** More arguments are appended at run time (xargs). */
      moreArgs?: boolean;
    }
  /** The shell reads its script from standard input. */
  | { kind: 'stdin-script' }
  /** Something runs that cannot be known statically; the reason, for people. */
  | { kind: 'unknown'; why: string }
  /** The inner command runs in another directory (`env -C`, `find -execdir`, `sudo -D`). */
  | { kind: 'chdir' };

export interface Unwrapped {
  actions: WrapAction[];
  /** The wrapper only stands for what it runs (`eval`, `bash -c`): drop it from the checked parts. */
  replace: boolean;
}

const NONE: Unwrapped = { actions: [], replace: false };
const unknown = (why: string, replace = false): Unwrapped => ({ actions: [{ kind: 'unknown', why }], replace });
const command = (
  argv: Argv,
  start: number,
  extra: Partial<Extract<WrapAction, { kind: 'command' }>> = {},
): Unwrapped =>
  start >= argv.length ? NONE : { actions: [{ kind: 'command', start, end: argv.length, ...extra }], replace: false };

const base = (name: string): string => name.slice(name.lastIndexOf('/') + 1);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'rbash']);

/** What `argv` runs besides itself. argv[0] must be a known value. */
export function unwrapCommand(argv: Argv): Unwrapped {
  const name = base(argv[0]!);
  if (SHELLS.has(name)) return unwrapShell(argv);
  const handler = HANDLERS[name];
  return handler ? handler(argv) : NONE;
}

type Handler = (argv: Argv) => Unwrapped;

const HANDLERS: Readonly<Record<string, Handler>> = {
  eval: (argv) => {
    const args = argv.slice(1);
    if (args.some((a) => a === undefined)) return unknown('`eval` of a string built at run time', true);
    return { actions: args.length > 0 ? [{ kind: 'script', script: args.join(' ') }] : [], replace: true };
  },
  source: unwrapSource,
  '.': unwrapSource,
  exec: (argv) => afterOptions(argv, 1, { flags: 'cl', withValue: 'a' }),
  command: (argv) => {
    const at = skipOptions(argv, 1, { flags: 'pvV' });
    if (typeof at === 'string') return unknown(at);
    // `command -v x` / `-V` only describe x (the options before `at` are -p, -v, -V, `--`).
    if (argv.slice(1, at).some((a) => /[vV]/.test(a!))) return NONE;
    return command(argv, at);
  },
  builtin: (argv) => command(argv, 1),
  nohup: (argv) => command(argv, argv[1] === '--' ? 2 : 1),
  time: (argv) => afterOptions(argv, 1, { flags: 'p' }),
  coproc: (argv) => command(argv, 1),
  busybox: (argv) => command(argv, 1),
  setsid: (argv) => afterOptions(argv, 1, { flags: 'cfw', long: ['ctty', 'fork', 'wait'] }),
  nice: (argv) => afterOptions(argv, 1, { withValue: 'n', longWithValue: ['adjustment'], numericFlag: true }),
  stdbuf: (argv) => afterOptions(argv, 1, { withValue: 'ioe', longWithValue: ['input', 'output', 'error'] }),
  timeout: unwrapTimeout,
  env: unwrapEnv,
  xargs: unwrapXargs,
  find: unwrapFind,
  sudo: unwrapSudo,
  doas: (argv) => afterOptions(argv, 1, { flags: 'nsL', withValue: 'uC' }),
  trap: unwrapTrap,
  alias: (argv) => {
    const actions: WrapAction[] = [];
    for (const a of argv.slice(1)) {
      if (a === undefined) return unknown('`alias` with a value built at run time');
      const eq = a.indexOf('=');
      if (eq > 0) actions.push({ kind: 'script', script: a.slice(eq + 1) });
    }
    return { actions, replace: false };
  },
  mapfile: unwrapMapfile,
  readarray: unwrapMapfile,
  enable: (argv) =>
    argv.slice(1).some((a) => a === undefined || /^-[a-z]*f/.test(a))
      ? unknown('`enable -f` loads code from a shared library')
      : NONE,
  hash: (argv) =>
    argv.slice(1).some((a) => a === undefined || /^-[a-z]*p/.test(a))
      ? unknown('`hash -p` makes a command name run another program')
      : NONE,
  let: () => unknown('`let` evaluates arithmetic, which can run commands through array subscripts'),
  watch: unwrapWatch,
};

function unwrapSource(argv: Argv): Unwrapped {
  if (argv[1] === undefined) return unknown(`\`${argv[0]}\` of a file named at run time`);
  return NONE; // A named script: like running ./script, the rules decide.
}

interface OptionSpec {
  /** Single-letter options without a value. */
  flags?: string;
  /** Single-letter options that take a value (attached or as the next word). */
  withValue?: string;
  long?: readonly string[];
  longWithValue?: readonly string[];
  /** `nice -5`: a dash and digits is an option. */
  numericFlag?: boolean;
}

/** Index of the first operand after the options, or a reason when an option is not understood. */
function skipOptions(argv: Argv, from: number, spec: OptionSpec): number | string {
  let i = from;
  while (i < argv.length) {
    const a = argv[i];
    if (a === undefined) return `\`${argv[0]}\` with an option known only at run time`;
    if (a === '--') return i + 1;
    if (!a.startsWith('-') || a === '-') return i;
    if (a.startsWith('--')) {
      const [key, hasValue] = splitLong(a);
      if (spec.long?.includes(key)) {
        i++;
        continue;
      }
      if (spec.longWithValue?.includes(key)) {
        i += hasValue ? 1 : 2;
        continue;
      }
      return `\`${argv[0]}\` with option ${a}, which the policy does not understand`;
    }
    if (spec.numericFlag && /^-\d+$/.test(a)) {
      i++;
      continue;
    }
    const letters = a.slice(1);
    let consumed = 1;
    for (let k = 0; k < letters.length; k++) {
      const l = letters[k]!;
      if (spec.withValue?.includes(l)) {
        if (k === letters.length - 1) consumed = 2;
        break;
      }
      if (!spec.flags?.includes(l)) return `\`${argv[0]}\` with option -${l}, which the policy does not understand`;
    }
    i += consumed;
  }
  return i;
}

/** `--name=value` or `--name`: the name, and whether the value is attached. */
const splitLong = (a: string): [string, boolean] => {
  const eq = a.indexOf('=');
  // Stryker disable next-line EqualityOperator: a long option starts with `--`, so `=` is never at 0
  return eq < 0 ? [a.slice(2), false] : [a.slice(2, eq), true];
};

function afterOptions(argv: Argv, from: number, spec: OptionSpec): Unwrapped {
  const at = skipOptions(argv, from, spec);
  return typeof at === 'string' ? unknown(at) : command(argv, at);
}

/** bash/sh/zsh: `-c script` is split like a command line; no script operand means stdin is the script. */
function unwrapShell(argv: Argv): Unwrapped {
  let hasC = false;
  let i = 1;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === undefined) return unknown(`\`${argv[0]}\` with an option known only at run time`, true);
    if (a === '--' || a === '-') {
      i++;
      break;
    }
    if (a.startsWith('--')) {
      // bash takes no `--name=value`: `--rcfile=x` is refused, not a file and a script.
      const key = a.slice(2);
      if (key === 'rcfile' || key === 'init-file') i++;
      else if (!SHELL_LONG.has(key))
        return unknown(`\`${argv[0]}\` with option ${a}, which the policy does not understand`, true);
      continue;
    }
    if (!/^[-+]/.test(a)) break;
    for (const l of a.slice(1)) {
      if (l === 'c') hasC = true;
      else if (l === 'o' || l === 'O') i++;
      else if (!SHELL_FLAGS.includes(l))
        return unknown(`\`${argv[0]}\` with option ${a}, which the policy does not understand`, true);
    }
  }
  if (hasC) {
    if (i >= argv.length) return { actions: [], replace: true };
    const script = argv[i];
    if (script === undefined) return unknown(`\`${argv[0]} -c\` of a script built at run time`, true);
    return { actions: [{ kind: 'script', script }], replace: true };
  }
  if (i < argv.length) return argv[i] === undefined ? unknown(`\`${argv[0]}\` of a script named at run time`) : NONE;
  return { actions: [{ kind: 'stdin-script' }], replace: false };
}
const SHELL_FLAGS = 'abefhikmnprstuvxBCDEHPTls';
const SHELL_LONG = new Set([
  'norc',
  'noprofile',
  'posix',
  'login',
  'restricted',
  'verbose',
  'noediting',
  'help',
  'version',
  'debug',
  'protected',
]);

function unwrapTimeout(argv: Argv): Unwrapped {
  const at = skipOptions(argv, 1, {
    flags: 'v',
    withValue: 'sk',
    long: ['preserve-status', 'foreground', 'verbose'],
    longWithValue: ['signal', 'kill-after'],
  });
  if (typeof at === 'string') return unknown(at);
  return command(argv, at + 1); // the operand after the options is the duration
}

function unwrapEnv(argv: Argv): Unwrapped {
  const actions: WrapAction[] = [];
  let i = 1;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === undefined) return unknown('`env` with an argument known only at run time');
    if (a === '--') {
      i++;
      break;
    }
    if (
      a === '-' ||
      a === '-i' ||
      a === '-0' ||
      a === '-v' ||
      ['--ignore-environment', '--null', '--debug'].includes(a)
    )
      continue;
    if (a === '-u' || a === '-C') {
      if (a === '-C') actions.push({ kind: 'chdir' });
      i++;
      continue;
    }
    if (/^-[uC]./.test(a) || a.startsWith('--unset=') || a.startsWith('--chdir=')) {
      if (a.startsWith('-C') || a.startsWith('--chdir=')) actions.push({ kind: 'chdir' });
      continue;
    }
    if (/^--(block|default|ignore)-signal(=|$)/.test(a)) continue;
    if (a.startsWith('-')) return unknown(`\`env\` with option ${a}, which the policy does not understand`);
    break;
  }
  const assignments: string[] = [];
  // Past the end, and for a word known only at run time, the test fails: that ends the assignments.
  // Stryker disable next-line StringLiteral: any text without `=` stands in for a missing word alike
  while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i] ?? '')) assignments.push(argv[i++]!);
  if (i < argv.length) actions.push({ kind: 'command', start: i, end: argv.length, assignments });
  return { actions, replace: false };
}

function unwrapXargs(argv: Argv): Unwrapped {
  let placeholder: string | undefined;
  let i = 1;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === undefined) return unknown('`xargs` with an option known only at run time');
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-')) break;
    if (a === '-I') {
      placeholder = argv[++i];
      if (placeholder === undefined) return unknown('`xargs -I` with a placeholder known only at run time');
      continue;
    }
    if (a.startsWith('-I')) placeholder = a.slice(2);
    else if (a === '-i' || a === '--replace') placeholder = '{}';
    else if (a.startsWith('-i')) placeholder = a.slice(2);
    else if (a.startsWith('--replace=')) placeholder = a.slice('--replace='.length);
    else if (/^-[aEdLnPs]$/.test(a)) i++;
    else if (/^-[0oprtx]+$/.test(a) || /^-[aEdLnPsel]./.test(a) || a === '-e' || a === '-l') continue;
    else if (/^--(null|open-tty|interactive|no-run-if-empty|show-limits|verbose|exit)$/.test(a)) continue;
    else if (/^--(arg-file|delimiter|eof|max-lines|max-args|max-procs|max-chars|process-slot-var)(=|$)/.test(a)) {
      // Stryker disable next-line Regex: `a` is one of the names above exactly (no `=`), so the anchors change nothing
      if (!a.includes('=') && !/^--(eof|max-lines)$/.test(a)) i++;
    } else return unknown(`\`xargs\` with option ${a}, which the policy does not understand`);
  }
  // No command (i at the end) runs `echo`: command() answers NONE.
  return command(argv, i, placeholder !== undefined ? { placeholder } : { moreArgs: true });
}

const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

function unwrapFind(argv: Argv): Unwrapped {
  const actions: WrapAction[] = [];
  // Stryker disable next-line EqualityOperator: argv[argv.length] is undefined, which is skipped
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    // Stryker disable next-line ConditionalExpression: FIND_EXEC does not hold undefined either; the check is for the type
    if (a === undefined || !FIND_EXEC.has(a)) continue;
    let end = i + 1;
    // Stryker disable next-line EqualityOperator: one step past the end is past it all the same (unknown below)
    while (end < argv.length && argv[end] !== ';' && argv[end] !== '+') end++;
    if (end >= argv.length) return unknown(`\`find ${a}\` without its closing ";" or "+"`);
    if (a.endsWith('dir')) actions.push({ kind: 'chdir' });
    if (end > i + 1) actions.push({ kind: 'command', start: i + 1, end, placeholder: '{}' });
    i = end;
  }
  return { actions, replace: false };
}

function unwrapSudo(argv: Argv): Unwrapped {
  const actions: WrapAction[] = [];
  let shell = false;
  let i = 1;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === undefined) return unknown('`sudo` with an option known only at run time');
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-')) break;
    if (/^--(chdir|user|group|host|prompt|chroot|role|type|command-timeout|other-user|close-from)(=|$)/.test(a)) {
      if (a.startsWith('--chdir')) actions.push({ kind: 'chdir' });
      if (!a.includes('=')) i++;
      continue;
    }
    if (/^--(login|shell)$/.test(a)) {
      shell = true;
      continue;
    }
    if (a.startsWith('--')) continue;
    // Stryker disable next-line MethodExpression: the leading `-` is in none of the letter sets below
    const letters = a.slice(1);
    // Stryker disable next-line EqualityOperator: letters[letters.length] is undefined, which matches no option letter
    for (let k = 0; k < letters.length; k++) {
      const l = letters[k]!;
      if ('CDghpRrTtUu'.includes(l)) {
        if (l === 'D') actions.push({ kind: 'chdir' });
        if (k === letters.length - 1) i++;
        break;
      }
      if (l === 'i' || l === 's') shell = true;
      if (l === 'e') return unknown('`sudo -e` edits files as another user');
    }
  }
  if (i >= argv.length) return { actions, replace: false };
  if (shell) {
    const rest = argv.slice(i);
    if (rest.some((a) => a === undefined)) return unknown('`sudo -s` of a command built at run time');
    actions.push({ kind: 'script', script: rest.join(' ') });
  } else actions.push({ kind: 'command', start: i, end: argv.length });
  return { actions, replace: false };
}

function unwrapTrap(argv: Argv): Unwrapped {
  let i = 1;
  if (argv[i] === '--') i++;
  if (argv.length - i < 2) return NONE; // listing, or resetting one signal
  const action = argv[i];
  if (action === undefined) return unknown('`trap` of a command built at run time');
  if (action === '-' || /^-[lp]+$/.test(action)) return NONE;
  return { actions: [{ kind: 'script', script: action }], replace: false };
}

function unwrapMapfile(argv: Argv): Unwrapped {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === undefined) return unknown(`\`${argv[0]}\` with an option known only at run time`);
    if (a === '-C') {
      const cb = argv[i + 1];
      return cb === undefined
        ? unknown(`\`${argv[0]} -C\` of a callback built at run time`)
        : { actions: [{ kind: 'script', script: cb }], replace: false };
    }
    if (a.startsWith('-C')) return { actions: [{ kind: 'script', script: a.slice(2) }], replace: false };
  }
  return NONE;
}

function unwrapWatch(argv: Argv): Unwrapped {
  let exec = false;
  let i = 1;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === undefined) return unknown('`watch` with an option known only at run time');
    if (!a.startsWith('-')) break;
    if (a === '-n' || a === '--interval' || a === '-q' || a === '--equexit') i++;
    else if (a === '-x' || a === '--exec') exec = true;
    else if (/^-[bcdegtpwr]+$/.test(a) || /^--(interval|differences|equexit)=/.test(a) || /^-n\d/.test(a)) continue;
    else if (/^--(beep|color|no-color|differences|errexit|chgexit|no-title|precise|no-wrap|no-rerun)$/.test(a))
      continue;
    else return unknown(`\`watch\` with option ${a}, which the policy does not understand`);
  }
  if (i >= argv.length) return NONE;
  if (exec) return command(argv, i);
  const rest = argv.slice(i);
  if (rest.some((a) => a === undefined)) return unknown('`watch` of a command built at run time');
  return { actions: [{ kind: 'script', script: rest.join(' ') }], replace: false };
}
