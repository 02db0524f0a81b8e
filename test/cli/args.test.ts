import { describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { parseCliArgs } from '../../src/cli/args.js';

function inputError(argv: string[]) {
  try {
    parseCliArgs(argv);
  } catch (e) {
    if (isAgentError(e)) return e;
    throw e;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('parseCliArgs', () => {
  it('reads the run flags', () => {
    expect(parseCliArgs(['-p', 'fix it', '-o', 'stream-json', '-m', 'gemini-2.5-flash', '--approval-mode', 'auto_edit', '--max-turns', '7', '--cwd', '/tmp'])).toEqual({
      kind: 'run',
      prompt: 'fix it',
      output: 'stream-json',
      model: 'gemini-2.5-flash',
      mode: 'autoEdit',
      maxTurns: 7,
      timeoutMinutes: undefined,
      cwd: '/tmp',
      policies: [],
      adminPolicies: [],
      sandbox: 'auto',
      sandboxNetwork: false,
    });
  });

  it('reads the sandbox flags; the CLI defaults to auto', () => {
    expect(parseCliArgs(['-p', 'x', '--sandbox', 'required', '--sandbox-network'])).toMatchObject({ sandbox: 'required', sandboxNetwork: true });
    expect(parseCliArgs(['-p', 'x', '--sandbox', 'off'])).toMatchObject({ sandbox: 'off', sandboxNetwork: false });
  });

  it('routes sandbox check with the rest of argv', () => {
    expect(parseCliArgs(['sandbox', 'check', '--json'])).toEqual({ kind: 'sandbox-check', argv: ['--json'] });
  });

  it('defaults to text output, default mode and 100 turns', () => {
    expect(parseCliArgs(['-p', 'x'])).toMatchObject({ output: 'text', mode: 'default', maxTurns: 100 });
  });

  it.each([
    [['--help'], 'help'],
    [['-h'], 'help'],
    [['--version'], 'version'],
    [['-v'], 'version'],
  ])('%j is %s', (argv, kind) => {
    expect(parseCliArgs(argv).kind).toBe(kind);
  });

  it('routes policy check with the rest of argv', () => {
    expect(parseCliArgs(['policy', 'check', '--tool', 'read_file'])).toEqual({ kind: 'policy-check', argv: ['--tool', 'read_file'] });
  });

  it.each([
    [['--bogus'], '--bogus'],
    [['-o', 'xml', '-p', 'x'], '--output-format'],
    [['--approval-mode', 'always', '-p', 'x'], '--approval-mode'],
    [['--max-turns', '0', '-p', 'x'], '--max-turns'],
    [['--max-turns', 'ten', '-p', 'x'], '--max-turns'],
    [['--yolo', '--approval-mode', 'plan', '-p', 'x'], '--yolo'],
    [['stray'], 'stray'],
    [['policy', 'lint'], 'policy'],
    [['--sandbox', 'maybe', '-p', 'x'], '--sandbox'],
    [['sandbox', 'status'], 'sandbox'],
  ])('%j is a bad-input error naming %s', (argv, flag) => {
    const e = inputError(argv);
    expect(e.kind).toBe('input');
    expect(e.exitCode).toBe(42);
    expect(e.site.input).toBe(flag);
    expect(e.message).toContain(flag.replace(/^--/, ''));
  });
});
