/**
 * Redirections one at a time, on the trees tree-sitter really builds: which write a file, which
 * replace standard input, and what a here-document would feed a shell. Then the same facts as the
 * splitter reports them for whole command lines.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  classifyFileRedirect,
  heredocScript,
  isQuotedHeredoc,
  replacesStdin,
} from '../../../src/policy/shell/redirects.js';
import { loadBashGrammar, splitShell } from '../../../src/policy/shell/split.js';
import { useBashTrees } from '../../support/bash-trees.js';

const first = useBashTrees();
beforeAll(() => loadBashGrammar());

describe('classifyFileRedirect', () => {
  // [line, writes, replaces stdin, static target, extra words]
  it.each<[string, boolean, boolean, string | undefined, string[]]>([
    ['echo a > f', true, false, 'f', []],
    ['echo a >> f', true, false, 'f', []],
    ['echo a >| f', true, false, 'f', []],
    ['echo a &> f', true, false, 'f', []],
    ['echo a &>> f', true, false, 'f', []],
    ['echo a 2> f', true, false, 'f', []],
    ['echo a > f b c', true, false, 'f', ['b', 'c']],
    ['echo a > "$x"', true, false, undefined, []],
    // `>&` with a descriptor or `-` duplicates or closes; with any other word it writes that file.
    ['echo a >&2', false, false, '2', []],
    ['echo a >& -', false, false, '-', []],
    ['echo a >&2x', true, false, '2x', []],
    ['echo a >&x2', true, false, 'x2', []],
    ['echo a >&12', false, false, '12', []],
    // `>` with a word made of digits is a file named so, not a descriptor.
    ['echo a > 2', true, false, '2', []],
    ['echo a > -', true, false, '-', []],
    ['echo a >&-', false, false, undefined, []],
    ['cat <&-', false, true, undefined, []],
    ['cat 3<&-', false, false, undefined, []],
    ['cat < f', false, true, 'f', []],
    ['cat 0< f', false, true, 'f', []],
    ['cat 3< f', false, false, 'f', []],
    ['cat <&3', false, true, '3', []],
    ['cat 2<&0', false, false, '0', []],
    ['cat 2<&0 f', false, false, '0', ['f']],
    // `<>` opens read-write on standard input; tree-sitter reads `<` then an ERROR holding `>`.
    ['cat <> f', true, true, 'f', []],
    ['cat < > f', true, true, 'f', []],
    ['cat 3<> f', true, false, 'f', []],
    // `<&` followed by a stray `>` is no read-write open.
    ['cat <& > f', false, true, 'f', []],
    // Only a stray `>` makes `<` read-write: another stray token (a syntax error to bash) does not.
    ['cat < ) f', false, true, 'f', []],
    ['cat < && f', false, true, 'f', []],
  ])('%j: writes %s, replaces stdin %s, target %j, extra %j', (line, write, stdinFile, path, extra) => {
    const r = classifyFileRedirect(first(line, 'file_redirect'));
    expect({ write: r.write, stdinFile: r.stdinFile, path: r.path, extra: r.extra.map((n) => n.text) }).toEqual({
      write,
      stdinFile,
      path,
      extra,
    });
  });

  it('gives the target node itself', () => {
    expect(classifyFileRedirect(first('echo a > "o u t"', 'file_redirect')).target?.text).toBe('"o u t"');
    expect(classifyFileRedirect(first('echo a >&-', 'file_redirect')).target).toBeUndefined();
  });
});

describe('replacesStdin', () => {
  it.each<[string, string, boolean]>([
    ['bash <<EOF\nls\nEOF', 'heredoc_redirect', true],
    ['bash <<-EOF\nls\nEOF', 'heredoc_redirect', true],
    ['bash 3<<EOF\nls\nEOF', 'heredoc_redirect', false],
    ['bash <<< ls', 'herestring_redirect', true],
    ['cat < f', 'file_redirect', true],
    ['cat 0<f', 'file_redirect', true],
    ['cat 1<f', 'file_redirect', false],
    ['cat <&3', 'file_redirect', true],
    ['cat > f', 'file_redirect', false],
    ['cat &> f', 'file_redirect', false],
  ])('%j -> %s', (line, type, expected) => {
    expect(replacesStdin(first(line, type))).toBe(expected);
  });
});

describe('here-documents', () => {
  it.each<[string, boolean]>([
    ['cat <<EOF\n$x\nEOF', false],
    ["cat <<'EOF'\n$x\nEOF", true],
    ['cat <<"EOF"\n$x\nEOF', true],
    ['cat <<\\EOF\n$x\nEOF', true],
    ['cat <<E\\OF\n$x\nEOF', true],
    ["cat <<-'EOF'\n\t$x\n\tEOF", true],
  ])('%j: quoted %s', (line, quoted) => {
    expect(isQuotedHeredoc(first(line, 'heredoc_body'))).toBe(quoted);
  });

  it.each<[string, ReturnType<typeof heredocScript>]>([
    ['bash <<EOF\nls -l\nEOF', { kind: 'text', script: 'ls -l\n' }],
    ["bash <<'EOF'\necho $HOME `id` \\x\nEOF", { kind: 'text', script: 'echo $HOME `id` \\x\n' }],
    ['bash <<EOF\necho $HOME\nEOF', { kind: 'dynamic' }],
    ['bash <<EOF\necho `id`\nEOF', { kind: 'dynamic' }],
    ['bash <<EOF\necho a\\\nb\nEOF', { kind: 'dynamic' }],
    ['bash <<EOF\nEOF', { kind: 'text', script: '' }],
  ])('%j feeds %j', (line, expected) => {
    expect(heredocScript(first(line, 'heredoc_body'))).toEqual(expected);
  });

  it('feeds nothing when there is no body', () => {
    expect(heredocScript(undefined)).toEqual({ kind: 'text', script: '' });
  });
});

describe('redirections in whole command lines', () => {
  const scripts = (c: string) => {
    const s = splitShell(c);
    return { parts: s.parts.map((p) => p.words), unknowns: s.unknowns };
  };

  it.each<[string, { parts: string[][]; unknowns: string[] }]>([
    // The last redirection of descriptor 0 is what a shell reads its script from.
    ['bash <<EOF\nls\nEOF', { parts: [['bash'], ['ls']], unknowns: [] }],
    ["bash <<'EOF'\necho $HOME\nEOF", { parts: [['bash'], ['echo', '$HOME']], unknowns: [] }],
    [
      'bash <<EOF\necho $HOME\nEOF',
      { parts: [['bash']], unknowns: ['a shell that reads its script from standard input: "bash"'] },
    ],
    [
      'bash <<EOF < payload.sh\nls\nEOF',
      { parts: [['bash']], unknowns: ['a shell that reads its script from standard input: "bash"'] },
    ],
    [
      'bash <<< ls <&3',
      { parts: [['bash']], unknowns: ['a shell that reads its script from standard input: "bash <<< ls"'] },
    ],
    [
      'bash <<EOF <&-\nls\nEOF',
      { parts: [['bash']], unknowns: ['a shell that reads its script from standard input: "bash"'] },
    ],
    // A here-document on another descriptor leaves standard input as it was: unknown.
    [
      'bash 3<<EOF\nls\nEOF',
      { parts: [['bash']], unknowns: ['a shell that reads its script from standard input: "bash"'] },
    ],
    [
      '{ bash 3<<EOF\nls\nEOF\n} < payload.sh',
      { parts: [['bash']], unknowns: ['a shell that reads its script from standard input: "bash"'] },
    ],
    // Other descriptors read from files do not change what the shell reads.
    ['bash <<EOF 2<x\nls\nEOF', { parts: [['bash'], ['ls']], unknowns: [] }],
    ['bash <<EOF 3<&-\nls\nEOF', { parts: [['bash'], ['ls']], unknowns: [] }],
    // tree-sitter reads the `0` of `0<` as a word; bash reads a redirection.
    [
      'bash 0<<< ls',
      { parts: [['bash', '0']], unknowns: ['a descriptor number the parser read as a word: "bash 0<<< ls"'] },
    ],
    ['rm 0<f', { parts: [['rm', '0']], unknowns: ['a descriptor number the parser read as a word: "rm 0"'] }],
    ['echo 12 <f', { parts: [['echo', '12']], unknowns: [] }],
    ['echo 1 >f', { parts: [['echo', '1']], unknowns: [] }],
  ])('%j', (line, expected) => {
    expect(scripts(line)).toEqual(expected);
  });

  it.each<[string, Array<{ text: string; path?: string }>]>([
    ['echo a >&2x', [{ text: '2x', path: '2x' }]],
    ['echo a > 2', [{ text: '2', path: '2' }]],
    ['echo a >&2', []],
    ['echo a >&-', []],
    ['cat <&-', []],
    ['cat <> f', [{ text: 'f', path: 'f' }]],
    ['echo a > "$f"', [{ text: '"$f"' }]],
  ])('%j writes %j', (line, writes) => {
    expect(splitShell(line).writes).toEqual(writes);
  });
});
