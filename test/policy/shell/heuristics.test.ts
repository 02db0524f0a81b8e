/**
 * Gemini CLI's per-command shell heuristics, command by command: which argv only read inside the
 * workspace (raised from ask_user to allow) and which are destructive (asked about whatever allows
 * them, outside yolo). Each command name, flag and sub-command the heuristics know is here with an
 * argv that depends on it, so a name dropped from a list, or a flag no longer seen, fails its row.
 */
import { describe, expect, it } from 'vitest';
import { isDestructive, isKnownReadOnly } from '../../../src/policy/shell/heuristics.js';

const place = { workspace: '/ws/repo', dir: '.' };
const argv = (line: string): string[] => line.split(' ').filter(Boolean);
const readOnly = (line: string): boolean => isKnownReadOnly(argv(line), place);
const destructive = (line: string): boolean => isDestructive(argv(line));

describe('isKnownReadOnly', () => {
  it.each([
    'cat a.txt',
    'cd src',
    'cut -f1 a.csv',
    'echo hi',
    'expr 1 + 2',
    'false',
    'grep -r x src',
    'head -n 3 a.txt',
    'id',
    'ls -la',
    'nl a.txt',
    'paste a b',
    'pwd',
    'rev a.txt',
    'seq 3',
    'stat a.txt',
    'tail -f log.txt',
    'tr a b',
    'true',
    'uname -a',
    'wc -l a.txt',
    'which git',
    'whoami',
    'numfmt --to=si 1000',
    'tac a.txt',
    'uniq a.txt',
    'uniq -c - ',
    // A flag is not an operand (bug: counting `-c` as the second operand).
    'uniq -c in.txt',
    'find src -name x',
    'base64 a.bin',
    'sed -n 12p',
    'sed -n 3,9p a.txt',
    'sed -n 3,19p a.txt',
    // A flag with no `=value` names no file, whatever follows its dash.
    'cat -/../../x',
    'git status',
    'git log --oneline',
    'git diff HEAD',
    'git show HEAD',
    'git branch',
    'git -C sub status',
    'git --exec-path /usr/lib/git-core status',
    'git --git-dir .git log',
    'git --namespace n log',
    'git --super-prefix p/ log',
    'git --work-tree . log',
    'git --no-pager log',
  ])('%j only reads inside the workspace', (line) => {
    expect(readOnly(line)).toBe(true);
  });

  it.each([
    // Operands outside the workspace, for every command whose operands are files.
    'cat /etc/passwd',
    'cd /',
    'cd ..',
    'cd',
    'cd -P',
    'cut -f1 /etc/passwd',
    'grep root /etc/passwd',
    'grep --file=/etc/x y',
    'head ../secret',
    'ls ~',
    'nl /etc/passwd',
    'paste a /etc/passwd',
    'rev /etc/passwd',
    'stat /etc/passwd',
    'tail /var/log/syslog',
    'wc /etc/passwd',
    'numfmt /etc/x',
    'tac /etc/passwd',
    'uniq /etc/passwd',
    'base64 /etc/shadow',
    'find /etc',
    'ls -- /etc',
    // Not read-only whatever the operands.
    '',
    'rm a.txt',
    'uniq in.txt out.txt',
    'uniq -c in.txt out.txt',
    // `-` (standard input) is an operand: `uniq - out` writes out.
    'uniq - out.txt',
    'find . -exec rm {} ;',
    'find . -execdir rm {} ;',
    'find . -ok rm {} ;',
    'find . -okdir rm {} ;',
    'find . -delete',
    'find . -fls out',
    'find . -fprint out',
    'find . -fprint0 out',
    'find . -fprintf out %p',
    'base64 -o out a.bin',
    'base64 --output out a.bin',
    'base64 --output=out a.bin',
    'base64 -oout a.bin',
    'sed -i s/a/b/ a.txt',
    'sed -n 3p /etc/shadow',
    'sed -n 3p a.txt extra',
    'sed -n 1e',
    'sed -n p3',
    'sed -n 3pp',
    'sed 3p',
    // Only -n: -i edits the file in place.
    'sed -i 1p a.txt',
    // The whole script must be an address and p: a `w` command writes a file before the final 2p.
    'sed -n 1w/tmp/x;2p',
    'git',
    'git push',
    'git commit -m x',
    'git -c core.pager=sh log',
    'git -ccore.pager=sh log',
    'git --config-env core.pager=X log',
    'git --config-env=core.pager=X log',
    'git diff --output x',
    'git diff --output=x',
    'git diff --ext-diff',
    'git log --textconv',
    'git log --exec x',
    'git log --exec=x',
    'git log --paginate',
    'git branch new-branch',
    'git branch -D main',
    'git -C',
  ])('%j is not known read-only', (line) => {
    expect(readOnly(line)).toBe(false);
  });

  it.each([
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
    '--format=%(refname)',
  ])('git branch %s only lists', (flag) => {
    expect(readOnly(`git branch ${flag}`)).toBe(true);
    expect(destructive(`git branch ${flag}`)).toBe(false);
  });

  it('judges operands from the call directory, and a flag value too', () => {
    expect(isKnownReadOnly(['cat', '../a.txt'], { workspace: '/ws/repo', dir: 'sub' })).toBe(true);
    expect(isKnownReadOnly(['cat', '../../a.txt'], { workspace: '/ws/repo', dir: 'sub' })).toBe(false);
    expect(readOnly('grep --file=patterns.txt y')).toBe(true);
    expect(readOnly('grep -e=/etc/x y')).toBe(false);
    // grep reads patterns from a file attached to -f (bug: `-f/etc/shadow` taken for a flag and skipped).
    expect(readOnly('grep -f/etc/shadow y a.txt')).toBe(false);
    expect(readOnly('grep -rf/etc/shadow y .')).toBe(false);
    expect(readOnly('grep -fpatterns.txt y a.txt')).toBe(true);
    expect(readOnly('grep -rf patterns.txt y .')).toBe(true);
    expect(readOnly('grep -rf /etc/shadow y .')).toBe(false);
    // Only grep's -f: `cut -f1` and `tail -f` name no file.
    expect(readOnly('cut -f/etc/x a.csv')).toBe(true);
    // `--` ends the flags: what follows is an operand even when it starts with a dash.
    expect(readOnly('cat -- -n')).toBe(true);
    expect(readOnly('cat -- -/../../x')).toBe(false);
  });
});

describe('isDestructive', () => {
  it.each([
    'rm -rf build',
    'rm -fr build',
    'rm -r -f build',
    'rm -Rf build',
    'rm -f a',
    'rm -r a',
    'rm -vR a',
    'rm --force a',
    'rm --recursive a',
    '/bin/rm -rf a',
    'ln -s .git/config notes',
    'ln -sf a b',
    'ln -fs a b',
    'ln --symbolic a b',
    'rg -z x',
    'rg --search-zip x',
    'rg --pre ./evil x',
    'rg --pre=./evil x',
    'rg --hostname-bin ./evil x',
    'rg --hostname-bin=./evil x',
    'sudo ls',
    'doas ls',
    'find . -delete',
    'find . -exec rm {} ;',
    'find . -execdir rm {} ;',
    'find . -ok rm {} ;',
    'find . -okdir rm {} ;',
    'find . -fls out',
    'find . -fprint out',
    'find . -fprint0 out',
    'find . -fprintf out %p',
    'git -c core.pager=sh log',
    'git -ccore.pager=sh log',
    'git --config-env core.pager=X log',
    'git --config-env=core.pager=X log',
    'git diff --output x',
    'git diff --output=x',
    'git log --ext-diff',
    'git log --textconv',
    'git log --exec x',
    'git log --exec=x',
    'git log --paginate',
    'git branch new-branch',
    'git branch -D main',
    'base64 -o out a',
    'base64 --output out a',
    'base64 --output=out a',
    'base64 -oout a',
  ])('%j is destructive', (line) => {
    expect(destructive(line)).toBe(true);
  });

  it.each([
    '',
    'rm a.txt',
    'rm -v a.txt',
    'ln a b',
    'ln -f a b',
    // A dash inside a word is not a flag (bug: matching `-s`, `--pre`, `-f` anywhere in an argument).
    'ln my-sources link',
    'rg no--pre',
    'rm my-file.txt',
    // Sub-commands outside the read set are left to the policy, even with flags unsafe on read ones.
    'git',
    'git rebase --exec make',
    'rg x',
    'rg --present x',
    'rg --prefix x',
    'find . -name x',
    'git status',
    'git log --oneline',
    'git branch',
    'git push --force',
    'git -C sub log',
    'base64 a',
    'base64 -d a',
    'ls -rf',
    'echo -rf',
  ])('%j is not destructive', (line) => {
    expect(destructive(line)).toBe(false);
  });

  it('an argument known only at run time makes the argument-sensitive commands destructive, and only those', () => {
    for (const cmd of ['rm', 'find', 'git', 'base64', 'ln', 'rg'])
      expect(isDestructive([cmd, '$X'], [true, false]), cmd).toBe(true);
    expect(isDestructive(['ls', '$X'], [true, false])).toBe(false);
    expect(isDestructive(['rm', 'a', 'b'], [true, true, true])).toBe(false);
    // Any one argument known only at run time is enough, not only when all are.
    expect(isDestructive(['rm', 'a', '$X', 'b'], [true, true, false, true])).toBe(true);
    // The command's own name is not an argument.
    expect(isDestructive(['rm', 'a'], [false, true])).toBe(false);
  });
});
