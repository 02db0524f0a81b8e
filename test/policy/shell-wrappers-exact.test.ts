/**
 * unwrapCommand's whole answer (actions and whether the wrapper only stands for its script) for the
 * edges the option-by-option table leaves: which words count as options, where a command's own
 * path looks like an option, and the answers that must stay as they are.
 */
import { describe, expect, it } from 'vitest';
import { unwrapCommand, type Unwrapped } from '../../src/policy/shell-wrappers.js';

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
    expect(unwrapCommand(['/a=b/alias', 'x=ls'])).toEqual({ actions: [{ kind: 'script', script: 'ls' }], replace: false });
    expect(unwrapCommand(['-f/enable', '-n', 'x'])).toEqual(NONE);
    expect(unwrapCommand(['-p/hash', 'ls'])).toEqual(NONE);
  });
});
