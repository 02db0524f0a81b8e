/**
 * unwrapCommand's whole answer (actions and whether the wrapper only stands for its script) for the
 * edges the option-by-option table leaves: which words count as options, where a command's own
 * path looks like an option, and the answers that must stay as they are.
 */
import { describe, expect, it } from 'vitest';
import { unwrapCommand, type Unwrapped } from '../../../src/policy/shell/wrappers.js';

const argv = (line: string) => line.split(' ').map((w) => (w.startsWith('$') ? undefined : w));
const NONE: Unwrapped = { actions: [], replace: false };
const cmd = (start: number, end: number): Unwrapped => ({ actions: [{ kind: 'command', start, end }], replace: false });
const unknown = (why: string, replace = false): Unwrapped => ({ actions: [{ kind: 'unknown', why }], replace });

describe('unwrapCommand, exactly', () => {
  it.each<[string, Unwrapped]>([
    // `command` describes instead of running with -v or -V anywhere in its options, and only there.
    ['command -p -v curl', NONE],
    ['command -p curl', cmd(2, 3)],
    ['command curl -v', cmd(1, 3)],
    // nice: `-5` is an option, `-5x` and `-x` are not understood (nice has no single-letter flags).
    ['nice -12 make', cmd(2, 3)],
    ['nice -5x make', unknown('`nice` with option -5, which the policy does not understand')],
    ['nice -x make', unknown('`nice` with option -x, which the policy does not understand')],
    ['nice --adjustment=5 make', cmd(2, 3)],
    ['nice --adjustment 5 make', cmd(3, 4)],
    // alias: the definitions are scripts; the alias itself is still checked.
    ['alias a=ls', { actions: [{ kind: 'script', script: 'ls' }], replace: false }],
    // enable -f / hash -p only as options, not inside other words.
    ['enable a-f', NONE],
    ['hash a-p', NONE],
    ['source', unknown('`source` of a file named at run time')],
    // A lone `-` ends a shell's options: what follows is its script file, even `-c`.
    ['bash - -c ls', NONE],
    ['bash a-b', NONE],
    ['bash +x', { actions: [{ kind: 'stdin-script' }], replace: false }],
    ['bash --bogus -c ls', unknown('`bash` with option --bogus, which the policy does not understand', true)],
    // bash refuses `--rcfile=x` (it takes the file as the next word); not understood, so unknown.
    ['bash --rcfile=x -c ls', unknown('`bash` with option --rcfile=x, which the policy does not understand', true)],
    ['bash --norc=x -c ls', unknown('`bash` with option --norc=x, which the policy does not understand', true)],
    ['bash --rcfile x -c ls', { actions: [{ kind: 'script', script: 'ls' }], replace: true }],
    ['timeout --signal=KILL 5 curl x', cmd(3, 5)],
    ['timeout --signal KILL 5 curl x', cmd(4, 6)],
  ])('%j', (line, expected) => {
    expect(unwrapCommand(argv(line))).toEqual(expected);
  });

  it('reads the command name from its last path segment, and the options from the words after it', () => {
    expect(unwrapCommand(['/a=b/alias', 'x=ls'])).toEqual({
      actions: [{ kind: 'script', script: 'ls' }],
      replace: false,
    });
    expect(unwrapCommand(['-f/enable', '-n', 'x'])).toEqual(NONE);
    expect(unwrapCommand(['-p/hash', 'ls'])).toEqual(NONE);
  });
});

// Each option pattern is anchored at both ends: an option that only contains a known one, or only
// starts with it, is not understood (bug: a dropped `^` or `$` would skip it, and the word after it
// could be taken for the option's value or the command).
describe('options that only look like known ones', () => {
  const script = (text: string): Unwrapped => ({ actions: [{ kind: 'script', script: text }], replace: false });
  it.each<[string, Unwrapped]>([
    ['nice -x-5 make', unknown('`nice` with option -x, which the policy does not understand')],
    ['env -x--ignore-signal ls', unknown('`env` with option -x--ignore-signal, which the policy does not understand')],
    ['xargs --a rm', unknown('`xargs` with option --a, which the policy does not understand')],
    ['xargs -0z rm', unknown('`xargs` with option -0z, which the policy does not understand')],
    ['xargs --0 rm', unknown('`xargs` with option --0, which the policy does not understand')],
    ['xargs --nullx rm', unknown('`xargs` with option --nullx, which the policy does not understand')],
    ['xargs -x--null rm', unknown('`xargs` with option -x--null, which the policy does not understand')],
    ['xargs -x--max-args=1 rm', unknown('`xargs` with option -x--max-args=1, which the policy does not understand')],
    ['sudo -x--login ls', cmd(2, 3)],
    ['sudo --shellx ls', cmd(2, 3)],
    ['trap -lx INT', script('-lx')],
    ['trap x-l INT', script('x-l')],
    ['watch -bz ls', unknown('`watch` with option -bz, which the policy does not understand')],
    ['watch --b ls', unknown('`watch` with option --b, which the policy does not understand')],
    ['watch -x--interval=1 ls', unknown('`watch` with option -x--interval=1, which the policy does not understand')],
    ['watch --n1 ls', unknown('`watch` with option --n1, which the policy does not understand')],
    ['watch --beepx ls', unknown('`watch` with option --beepx, which the policy does not understand')],
    ['watch -x--beep ls', unknown('`watch` with option -x--beep, which the policy does not understand')],
  ])('%j', (line, expected) => {
    expect(unwrapCommand(argv(line))).toEqual(expected);
  });
});

describe('what the wrappers hand on, exactly', () => {
  it.each<[string, Unwrapped]>([
    // A shell's -c script known only at run time (after `--`): unknown, and the shell still stands for it.
    ['bash -c -- $X', unknown('`bash -c` of a script built at run time', true)],
    // xargs placeholders attached to -i and --replace= (bug: the whole word taken as the placeholder).
    ['xargs -iX echo X', { actions: [{ kind: 'command', start: 2, end: 4, placeholder: 'X' }], replace: false }],
    [
      'xargs --replace=R echo R',
      { actions: [{ kind: 'command', start: 2, end: 4, placeholder: 'R' }], replace: false },
    ],
    // sudo with options only runs nothing; `--` ends the options even before a word like -s.
    ['sudo -v', NONE],
    ['sudo -s', NONE],
    ['sudo -- -s ls', cmd(2, 4)],
    // Long options are never read as letter clusters (`--set-home` holds an s, `--edit` an e).
    ['sudo --set-home ls', cmd(2, 3)],
    ['sudo --edit ls', cmd(2, 3)],
    // mapfile's callback is a script of its own; mapfile itself is still checked.
    ['mapfile -C ls arr', { actions: [{ kind: 'script', script: 'ls' }], replace: false }],
    ['mapfile -Cls arr', { actions: [{ kind: 'script', script: 'ls' }], replace: false }],
  ])('%j', (line, expected) => {
    expect(unwrapCommand(argv(line))).toEqual(expected);
  });
});
