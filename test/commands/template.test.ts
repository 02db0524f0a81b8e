import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandNameOf, parseCommandFile } from '../../src/commands/command-file.js';
import { parseInvocation, parseTemplate, shellEscape } from '../../src/commands/template.js';

describe('parseTemplate', () => {
  it('splits text, @{path} and !{cmd} in order, braces counted inside an injection', () => {
    expect(parseTemplate(`a @{ x.md } b !{echo '{"k": {"v": 1}}'} c`, 't')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'file', path: 'x.md', raw: '@{ x.md }' },
      { kind: 'text', text: ' b ' },
      { kind: 'shell', command: `echo '{"k": {"v": 1}}'`, raw: `!{echo '{"k": {"v": 1}}'}` },
      { kind: 'text', text: ' c' },
    ]);
  });

  it('never scans into an injection: !{cat @{x}} is one command, written as it is', () => {
    expect(parseTemplate('!{cat @{x}}', 't')).toEqual([{ kind: 'shell', command: 'cat @{x}', raw: '!{cat @{x}}' }]);
  });

  it('an unclosed injection is an error naming the command', () => {
    expect(() => parseTemplate('ok !{echo {oops}', '.gemini/commands/x.toml')).toThrow(
      /\.gemini\/commands\/x\.toml: the injection '!\{' at offset 3 never closes/,
    );
  });
});

describe('parseInvocation', () => {
  it.each([
    ['/git:commit  fix\n the   bug ', { name: 'git:commit', args: 'fix the bug', raw: '/git:commit  fix\n the   bug' }],
    ['changelog 1.2.0', { name: 'changelog', args: '1.2.0', raw: '/changelog 1.2.0' }],
    ['/review', { name: 'review', args: '', raw: '/review' }],
  ])('%j', (given, expected) => expect(parseInvocation(given)).toEqual(expected));

  it('nothing after the slash is no invocation', () => expect(parseInvocation('  / ')).toBeUndefined());
});

describe('shellEscape', () => {
  it.each([`it's "x" $HOME`, 'a; rm -rf / && `id` $(id)', "'", 'line\nnext'])(
    'bash reads %j back as one word, unchanged',
    (s) => {
      expect(execFileSync('bash', ['-c', `printf %s ${shellEscape(s)}`], { encoding: 'utf8' })).toBe(s);
    },
  );
  it('empty stays empty (Gemini CLI)', () => expect(shellEscape('')).toBe(''));
});

describe('command files', () => {
  it.each([
    ['test.toml', 'test'],
    ['git/commit.toml', 'git:commit'],
    ['a b/c:d.toml', 'a_b:c_d'],
    [`${'x'.repeat(60)}.toml`, `${'x'.repeat(47)}...`],
  ])('%s is /%s', (rel, name) => expect(commandNameOf(rel)).toBe(name));

  it('reads prompt and description; a missing description names the file', () => {
    const o = { relPath: 'git/commit.toml', label: '.gemini/commands/git/commit.toml', source: 'project' as const };
    expect(parseCommandFile('prompt = "p"', o)).toEqual({
      ok: true,
      command: {
        name: 'git:commit',
        description: 'Custom command from commit.toml',
        prompt: 'p',
        source: 'project',
        label: '.gemini/commands/git/commit.toml',
      },
    });
    expect(parseCommandFile('prompt = "p"\ndescription = "d"', { ...o, extension: 'ext' })).toMatchObject({
      ok: true,
      command: { description: '[ext] d', extension: 'ext' },
    });
  });

  it.each([
    ['description = "d"', "the 'prompt' field is required"],
    ['prompt = 3', "the 'prompt' field must be a string"],
    ['prompt = "p"\ndescription = 1', "the 'description' field must be a string"],
    ['prompt = ', 'not valid TOML'],
  ])('%j is skipped: %s', (text, why) => {
    const r = parseCommandFile(text, { relPath: 'x.toml', label: '.gemini/commands/x.toml', source: 'project' });
    expect(r).toEqual({ ok: false, problem: expect.stringContaining(why) });
    expect(r.ok ? '' : r.problem).toMatch(/^\.gemini\/commands\/x\.toml: /);
  });
});
