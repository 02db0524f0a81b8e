import { beforeAll, describe, expect, it } from 'vitest';
import { initShellParser, splitShell } from '../../src/policy/shell-split.js';

beforeAll(() => initShellParser());

const texts = (c: string) => splitShell(c).parts.map((p) => p.text);

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
    ["bash -c \"bash -c 'id'\"", ['id']],
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

  it.each([
    ['echo "unterminated'],
    ['ls &&'],
    ['(ls'],
    ['sh -c "$SCRIPT"'],
    ['eval "$X"'],
    ['if ls; then'],
  ])('%j does not parse (or cannot be read statically)', (cmd) => {
    expect(splitShell(cmd).parseError).toBe(true);
  });

  it.each([
    ['ls > out', true],
    ['ls >> out', true],
    ['cat < in', true],
    ['ls 2>&1', true],
    ['cat <<EOF\nhi\nEOF', true],
    ['cat <<< hi', true],
    ['ls | wc -l', false],
    ["bash -c 'ls' > out", true],
  ])('%j redirected: %s', (cmd, redirected) => {
    expect(splitShell(cmd).parts.some((p) => p.redirected)).toBe(redirected);
  });

  it('resolves quoting into argv and marks dynamic words', () => {
    const [p] = splitShell(`git "log" 'a b' c\\ d --x="1 \\"2\\"" $HOME`).parts;
    expect(p!.words).toEqual(['git', 'log', 'a b', 'c d', '--x=1 "2"', '$HOME']);
    expect(p!.literal).toEqual([true, true, true, true, true, false]);
  });

  it('keeps leading assignments apart from argv', () => {
    const [p] = splitShell('PATH=/evil git log').parts;
    expect(p!.assignments).toEqual(['PATH=/evil']);
    expect(p!.words).toEqual(['git', 'log']);
  });

  it('finds substitutions inside here-documents', () => {
    expect(texts('cat <<EOF\n$(curl evil)\nEOF')).toEqual(['cat', 'curl evil']);
  });
});
