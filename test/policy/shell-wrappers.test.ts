import { describe, expect, it } from 'vitest';
import { unwrapCommand, type WrapAction } from '../../src/policy/shell-wrappers.js';

/** Words as the splitter hands them over: `$X` stands for a word known only at run time. */
const argv = (line: string) => line.split(' ').map((w) => (w.startsWith('$') ? undefined : w));
const inner = (line: string, a: WrapAction) => (a.kind === 'command' ? line.split(' ').slice(a.start, a.end).join(' ') : a.kind === 'script' ? `script: ${a.script}` : a.kind);

describe('unwrapCommand', () => {
  it.each<[string, string[]]>([
    ['env -i -u HOME A=1 rm x', ['rm x']],
    ['env -C dir ls', ['chdir', 'ls']],
    ['timeout -s KILL -k 5 10 curl x', ['curl x']],
    ['timeout --preserve-status 10 curl x', ['curl x']],
    ['nice -n 5 make', ['make']],
    ['nice -5 make', ['make']],
    ['nohup -- curl x', ['curl x']],
    ['command -p curl x', ['curl x']],
    ['command -v curl', []],
    ['exec -a name curl x', ['curl x']],
    ['exec', []],
    ['stdbuf -o0 -eL grep x', ['grep x']],
    ['setsid -f curl x', ['curl x']],
    ['xargs -0 -n 1 -P 4 rm', ['rm']],
    ['xargs', []],
    ['find . -exec rm {} ; -execdir ls {} +', ['rm {}', 'chdir', 'ls {}']],
    ['sudo -u root -D /x rm x', ['chdir', 'rm x']],
    ['sudo -s rm x', ['script: rm x']],
    ['bash -c ls', ['script: ls']],
    ['bash -ex -c ls', ['script: ls']],
    ['bash -o pipefail -c ls', ['script: ls']],
    ['bash script.sh', []],
    ['bash', ['stdin-script']],
    ['eval a b', ['script: a b']],
    ['trap ls EXIT', ['script: ls']],
    ['trap - EXIT', []],
    ['trap INT', []],
    ['alias a=ls b=pwd', ['script: ls', 'script: pwd']],
    ['mapfile -C ls -c 1 arr', ['script: ls']],
    ['watch -n 1 ls -la', ['script: ls -la']],
    ['watch -x ls -la', ['ls -la']],
  ])('%j runs %j', (line, want) => {
    expect(unwrapCommand(argv(line)).actions.map((a) => inner(line, a))).toEqual(want);
  });

  it.each([
    ['eval $X'],
    ['bash -c $X'],
    ['bash --rcfile-unknown -c ls'],
    ['source $F'],
    ['. $F'],
    ['env -S rm'],
    ['env --unknown ls'],
    ['timeout --bogus 5 ls'],
    ['xargs --bogus ls'],
    ['find . -exec rm {}'],
    ['trap $X EXIT'],
    ['enable -f x.so x'],
    ['hash -p /tmp/x ls'],
    ['let x=1'],
    ['sudo -e /etc/x'],
    ['watch --bogus ls'],
  ])('%j cannot be known statically', (line) => {
    expect(unwrapCommand(argv(line)).actions.some((a) => a.kind === 'unknown')).toBe(true);
  });

  it('xargs marks the words it appends or replaces', () => {
    expect(unwrapCommand(argv('xargs rm -f')).actions).toEqual([{ kind: 'command', start: 1, end: 3, moreArgs: true }]);
    expect(unwrapCommand(argv('xargs -I X rm X')).actions).toEqual([{ kind: 'command', start: 3, end: 5, placeholder: 'X' }]);
  });

  it('eval and `bash -c` stand only for their script; other wrappers are checked themselves too', () => {
    expect(unwrapCommand(argv('eval ls')).replace).toBe(true);
    expect(unwrapCommand(argv('bash -c ls')).replace).toBe(true);
    expect(unwrapCommand(argv('env ls')).replace).toBe(false);
  });
});
