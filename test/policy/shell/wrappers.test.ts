import { describe, expect, it } from 'vitest';
import { unwrapCommand, type WrapAction } from '../../../src/policy/shell/wrappers.js';

/** Words as the splitter hands them over: `$X` stands for a word known only at run time. */
const argv = (line: string) => line.split(' ').map((w) => (w.startsWith('$') ? undefined : w));
const inner = (line: string, a: WrapAction) =>
  a.kind === 'command'
    ? line.split(' ').slice(a.start, a.end).join(' ')
    : a.kind === 'script'
      ? `script: ${a.script}`
      : a.kind;

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
    expect(unwrapCommand(argv('xargs -I X rm X')).actions).toEqual([
      { kind: 'command', start: 3, end: 5, placeholder: 'X' },
    ]);
  });

  it('eval and `bash -c` stand only for their script; other wrappers are checked themselves too', () => {
    expect(unwrapCommand(argv('eval ls')).replace).toBe(true);
    expect(unwrapCommand(argv('bash -c ls')).replace).toBe(true);
    expect(unwrapCommand(argv('env ls')).replace).toBe(false);
  });
});

// Every option each wrapper understands, with where the wrapped command starts: an option dropped
// from a list makes its row unknown, a value no longer skipped makes it the command.
describe('unwrapCommand, option by option', () => {
  it.each<[string, string[]]>([
    ...['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'rbash', '/bin/bash', '/usr/bin/sh'].map(
      (sh): [string, string[]] => [`${sh} -c ls`, ['script: ls']],
    ),
    ['bash -lc ls', ['script: ls']],
    ['bash +x -c ls', ['script: ls']],
    ['bash -O extglob -c ls', ['script: ls']],
    ['bash --rcfile x -c ls', ['script: ls']],
    ['bash --init-file x -c ls', ['script: ls']],
    ...[
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
    ].map((o): [string, string[]] => [`bash --${o} -c ls`, ['script: ls']]),
    ['bash -c', []],
    ['bash -- script.sh', []],
    ['bash -', ['stdin-script']],
    ['bash -x', ['stdin-script']],
    ['exec -c -l curl x', ['curl x']],
    ['exec -cl curl x', ['curl x']],
    ['exec -aname curl x', ['curl x']],
    ['command -V curl', []],
    ['command -pv curl', []],
    ['command -- curl x', ['curl x']],
    ['command', []],
    ['builtin cd /', ['cd /']],
    ['nohup curl x', ['curl x']],
    ['nohup --', []],
    ['time -p curl x', ['curl x']],
    ['time curl x', ['curl x']],
    ['coproc curl x', ['curl x']],
    ['busybox rm x', ['rm x']],
    ['setsid -c -w curl x', ['curl x']],
    ['setsid --ctty --fork --wait curl x', ['curl x']],
    ['nice --adjustment=5 make', ['make']],
    ['nice --adjustment 5 make', ['make']],
    ['nice -n5 make', ['make']],
    ['stdbuf --output=L grep x', ['grep x']],
    ['stdbuf --input 0 grep x', ['grep x']],
    ['stdbuf --error 0 grep x', ['grep x']],
    ['stdbuf -i 0 grep x', ['grep x']],
    ['timeout 10 curl x', ['curl x']],
    ['timeout 10', []],
    ['timeout -v 10 curl x', ['curl x']],
    ['timeout -sKILL 10 curl x', ['curl x']],
    ['timeout --foreground 10 curl x', ['curl x']],
    ['timeout --verbose 10 curl x', ['curl x']],
    ['timeout --signal=KILL 10 curl x', ['curl x']],
    ['timeout --signal KILL 10 curl x', ['curl x']],
    ['timeout --kill-after 5 10 curl x', ['curl x']],
    ['timeout -- 10 curl x', ['curl x']],
    ['timeout - 10', ['10']],
    ['env ls', ['ls']],
    ['env - ls', ['ls']],
    ['env -0 ls', ['ls']],
    ['env -v ls', ['ls']],
    ['env --ignore-environment ls', ['ls']],
    ['env --null ls', ['ls']],
    ['env --debug ls', ['ls']],
    ['env -u HOME ls', ['ls']],
    ['env -uHOME ls', ['ls']],
    ['env --unset=HOME ls', ['ls']],
    ['env -Cdir ls', ['chdir', 'ls']],
    ['env --chdir=dir ls', ['chdir', 'ls']],
    ['env --block-signal ls', ['ls']],
    ['env --default-signal=INT ls', ['ls']],
    ['env --ignore-signal ls', ['ls']],
    ['env -- ls -l', ['ls -l']],
    ['env -- A=1 ls', ['ls']],
    ['env A=1', []],
    ['env', []],
    ['xargs -IX rm X', ['rm X']],
    ['xargs -i rm {}', ['rm {}']],
    ['xargs -iZ rm Z', ['rm Z']],
    ['xargs --replace rm {}', ['rm {}']],
    ['xargs --replace=Z rm Z', ['rm Z']],
    ...['-a f', '-E eof', '-d ,', '-L 1', '-n 1', '-P 2', '-s 100'].map((o): [string, string[]] => [
      `xargs ${o} rm`,
      ['rm'],
    ]),
    ...[
      '-0',
      '-0r',
      '-p',
      '-t',
      '-x',
      '-o',
      '-afile',
      '-Eeof',
      '-d,',
      '-L1',
      '-n1',
      '-P2',
      '-s9',
      '-eeof',
      '-l1',
      '-e',
      '-l',
    ].map((o): [string, string[]] => [`xargs ${o} rm`, ['rm']]),
    ...[
      '--null',
      '--open-tty',
      '--interactive',
      '--no-run-if-empty',
      '--show-limits',
      '--verbose',
      '--exit',
      '--eof',
      '--max-lines',
    ].map((o): [string, string[]] => [`xargs ${o} rm`, ['rm']]),
    ...['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'].flatMap(
      (o): Array<[string, string[]]> => [
        [`xargs --${o}=v rm`, ['rm']],
        [`xargs --${o} v rm`, ['rm']],
      ],
    ),
    ['xargs --eof=x rm', ['rm']],
    ['xargs --max-lines=2 rm', ['rm']],
    ['xargs -- rm', ['rm']],
    ['find . -ok rm {} ;', ['rm {}']],
    ['find . -okdir rm {} +', ['chdir', 'rm {}']],
    ['find . -exec ;', []],
    ['find . -name x', []],
    ['sudo rm x', ['rm x']],
    ['sudo -- rm x', ['rm x']],
    ['sudo -uroot rm x', ['rm x']],
    ['sudo -D/x rm x', ['chdir', 'rm x']],
    ['sudo -n -k rm x', ['rm x']],
    ['sudo -i rm x', ['script: rm x']],
    ['sudo --login rm x', ['script: rm x']],
    ['sudo --shell rm x', ['script: rm x']],
    ['sudo --preserve-env rm x', ['rm x']],
    ['sudo --chdir=/x rm x', ['chdir', 'rm x']],
    ['sudo --chdir /x rm x', ['chdir', 'rm x']],
    ...[
      'user',
      'group',
      'host',
      'prompt',
      'chroot',
      'role',
      'type',
      'command-timeout',
      'other-user',
      'close-from',
    ].flatMap((o): Array<[string, string[]]> => [
      [`sudo --${o}=v rm x`, ['rm x']],
      [`sudo --${o} v rm x`, ['rm x']],
    ]),
    ...['C', 'g', 'h', 'p', 'R', 'r', 'T', 't', 'U', 'u'].map((l): [string, string[]] => [
      `sudo -${l} v rm x`,
      ['rm x'],
    ]),
    ['sudo -u', []],
    ['doas rm x', ['rm x']],
    ['doas -u root rm x', ['rm x']],
    ['doas -C conf rm x', ['rm x']],
    ['doas -n -L rm x', ['rm x']],
    ['doas -s', []],
    ['trap -- ls EXIT', ['script: ls']],
    ['trap -p INT EXIT', []],
    ['trap -lp INT EXIT', []],
    ['trap', []],
    ['alias ls', []],
    ['alias =x', []],
    ['mapfile -Cls arr', ['script: ls']],
    ['readarray -C ls arr', ['script: ls']],
    ['mapfile -t arr', []],
    ['enable -n x', []],
    ['hash -r', []],
    ['watch ls', ['script: ls']],
    ['watch --interval 1 ls', ['script: ls']],
    ['watch -q 1 ls', ['script: ls']],
    ['watch --equexit 2 ls', ['script: ls']],
    ['watch --exec ls -la', ['ls -la']],
    ['watch -n1 ls', ['script: ls']],
    ['watch -bc ls', ['script: ls']],
    ['watch -d ls', ['script: ls']],
    ['watch --interval=1 ls', ['script: ls']],
    ['watch --differences=x ls', ['script: ls']],
    ['watch --equexit=2 ls', ['script: ls']],
    ...[
      'beep',
      'color',
      'no-color',
      'differences',
      'errexit',
      'chgexit',
      'no-title',
      'precise',
      'no-wrap',
      'no-rerun',
    ].map((o): [string, string[]] => [`watch --${o} ls`, ['script: ls']]),
    ['watch -n 1', []],
    ['source ./x.sh', []],
    ['. ./x.sh', []],
    ['eval', []],
    ['ls -la', []],
  ])('%j runs %j', (line, want) => {
    expect(unwrapCommand(argv(line)).actions.map((a) => inner(line, a))).toEqual(want);
  });

  it.each<[string, string]>([
    ['eval a $X', '`eval` of a string built at run time'],
    ['bash -- $X', '`bash` of a script named at run time'],
    ['bash -c -- $X', '`bash -c` of a script built at run time'],
    ['bash -c $X', '`bash` with an option known only at run time'],
    ['bash $X -c ls', '`bash` with an option known only at run time'],
    ['bash --rcfile-unknown -c ls', '`bash` with option --rcfile-unknown, which the policy does not understand'],
    ['bash -Z -c ls', '`bash` with option -Z, which the policy does not understand'],
    ['source', '`source` of a file named at run time'],
    ['. $F', '`.` of a file named at run time'],
    ['exec $X curl', '`exec` with an option known only at run time'],
    ['exec -z curl', '`exec` with option -z, which the policy does not understand'],
    ['exec --bogus curl', '`exec` with option --bogus, which the policy does not understand'],
    ['command -x curl', '`command` with option -x, which the policy does not understand'],
    ['nice --bogus make', '`nice` with option --bogus, which the policy does not understand'],
    ['env $X ls', '`env` with an argument known only at run time'],
    ['env -S rm', '`env` with option -S, which the policy does not understand'],
    ['xargs $X rm', '`xargs` with an option known only at run time'],
    ['xargs -I $X rm', '`xargs -I` with a placeholder known only at run time'],
    ['xargs --bogus rm', '`xargs` with option --bogus, which the policy does not understand'],
    ['xargs -Z rm', '`xargs` with option -Z, which the policy does not understand'],
    ['find . -execdir rm {}', '`find -execdir` without its closing ";" or "+"'],
    ['sudo $X rm', '`sudo` with an option known only at run time'],
    ['sudo -e /etc/x', '`sudo -e` edits files as another user'],
    ['sudo -s rm $X', '`sudo -s` of a command built at run time'],
    ['trap $X EXIT', '`trap` of a command built at run time'],
    ['alias a=ls $X', '`alias` with a value built at run time'],
    ['mapfile $X arr', '`mapfile` with an option known only at run time'],
    ['mapfile -C $X arr', '`mapfile -C` of a callback built at run time'],
    ['enable -af x.so x', '`enable -f` loads code from a shared library'],
    ['enable $X', '`enable -f` loads code from a shared library'],
    ['hash -tp /tmp/x ls', '`hash -p` makes a command name run another program'],
    ['hash $X', '`hash -p` makes a command name run another program'],
    ['let x=1', '`let` evaluates arithmetic, which can run commands through array subscripts'],
    ['watch $X', '`watch` with an option known only at run time'],
    ['watch --bogus ls', '`watch` with option --bogus, which the policy does not understand'],
    ['watch ls $X', '`watch` of a command built at run time'],
  ])('%j cannot be known: %s', (line, why) => {
    expect(unwrapCommand(argv(line)).actions).toEqual([{ kind: 'unknown', why }]);
  });

  it('only eval and shells with -c (or a bad option) stand for their script', () => {
    for (const line of ['eval ls', 'eval', 'eval $X', 'bash -c ls', 'bash -c', 'bash -c $X', 'bash $X', 'bash -Z'])
      expect(unwrapCommand(argv(line)).replace, line).toBe(true);
    for (const line of [
      'bash',
      'bash x.sh',
      'bash -- $X',
      'env ls',
      'sudo -s ls',
      'trap ls EXIT',
      'watch ls',
      'xargs rm',
      'find . -exec rm {} ;',
      'source x',
    ]) {
      expect(unwrapCommand(argv(line)).replace, line).toBe(false);
    }
  });

  it('env hands its assignments to the command; find and xargs -I mark the placeholder', () => {
    expect(unwrapCommand(argv('env -i A=1 B_2=x rm y')).actions).toEqual([
      { kind: 'command', start: 4, end: 6, assignments: ['A=1', 'B_2=x'] },
    ]);
    expect(unwrapCommand(argv('env 1A=x rm')).actions).toEqual([
      { kind: 'command', start: 1, end: 3, assignments: [] },
    ]);
    expect(unwrapCommand(argv('find . -exec rm {} ;')).actions).toEqual([
      { kind: 'command', start: 3, end: 5, placeholder: '{}' },
    ]);
    expect(unwrapCommand(argv('xargs -i rm {}')).actions).toEqual([
      { kind: 'command', start: 2, end: 4, placeholder: '{}' },
    ]);
    expect(unwrapCommand(argv('timeout 5 rm x')).actions).toEqual([{ kind: 'command', start: 2, end: 4 }]);
  });
});
