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
    expect(
      parseCliArgs([
        '-p',
        'fix it',
        '-o',
        'stream-json',
        '-m',
        'gemini-2.5-flash',
        '--approval-mode',
        'auto_edit',
        '--max-turns',
        '7',
        '--cwd',
        '/tmp',
      ]),
    ).toEqual({
      kind: 'prompt',
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
      modeExplicit: true,
      approve: false,
      deny: false,
      mcpStart: 'eager',
    });
  });

  it("reads Gemini CLI's --allowed-mcp-server-names (comma separated, repeatable) and --mcp-start", () => {
    expect(
      parseCliArgs([
        '-p',
        'x',
        '--allowed-mcp-server-names',
        'a,b',
        '--allowed-mcp-server-names',
        ' c ',
        '--mcp-start',
        'lazy',
      ]),
    ).toMatchObject({
      allowedMcpServerNames: ['a', 'b', 'c'],
      mcpStart: 'lazy',
    });
    expect(parseCliArgs(['-p', 'x'])).not.toHaveProperty('allowedMcpServerNames');
    expect(inputError(['-p', 'x', '--mcp-start', 'soon']).message).toBe(
      '--mcp-start "soon" is not valid: it expects eager or lazy',
    );
  });

  it('routes mcp list with the rest of argv; another mcp command is an input error', () => {
    expect(parseCliArgs(['mcp', 'list', '--json'])).toEqual({ kind: 'mcp-list', argv: ['--json'] });
    expect(inputError(['mcp', 'add', 'x']).message).toBe(
      'unknown command "mcp add": the one mcp command is "mcp list"',
    );
  });

  it('reads the sandbox flags; the CLI defaults to auto', () => {
    expect(parseCliArgs(['-p', 'x', '--sandbox', 'required', '--sandbox-network'])).toMatchObject({
      sandbox: 'required',
      sandboxNetwork: true,
    });
    expect(parseCliArgs(['-p', 'x', '--sandbox', 'off'])).toMatchObject({ sandbox: 'off', sandboxNetwork: false });
  });

  it('routes sandbox check with the rest of argv', () => {
    expect(parseCliArgs(['sandbox', 'check', '--json'])).toEqual({ kind: 'sandbox-check', argv: ['--json'] });
  });

  it('reads the session flags: --resume with an answer, --list-sessions, --delete-session, session', () => {
    expect(parseCliArgs(['-r', 'latest', '--approve'])).toMatchObject({
      kind: 'prompt',
      resume: 'latest',
      approve: true,
      deny: false,
      modeExplicit: false,
    });
    expect(parseCliArgs(['--resume', '2', '--deny', '-p', 'use yarn'])).toMatchObject({
      kind: 'prompt',
      resume: '2',
      deny: true,
      prompt: 'use yarn',
    });
    expect(parseCliArgs(['--list-sessions', '--cwd', '/w'])).toEqual({ kind: 'list-sessions', cwd: '/w' });
    expect(parseCliArgs(['--delete-session', '3'])).toEqual({ kind: 'delete-session', selector: '3', cwd: undefined });
    expect(parseCliArgs(['session', 'import', 'abc'])).toEqual({ kind: 'session', argv: ['import', 'abc'] });
  });

  it.each([['--acp'], ['--experimental-acp']])(
    '%s starts the ACP server with the flags as session defaults',
    (flag) => {
      expect(
        parseCliArgs([flag, '-m', 'gemini-2.5-flash', '--approval-mode', 'auto_edit', '--policy', 'p.toml']),
      ).toEqual({
        kind: 'acp',
        model: 'gemini-2.5-flash',
        mode: 'autoEdit',
        maxTurns: 100,
        timeoutMinutes: undefined,
        policies: ['p.toml'],
        adminPolicies: [],
        sandbox: 'auto',
        sandboxNetwork: false,
      });
    },
  );

  it.each([
    [['--approve', '-p', 'x'], "--approve answers a stored session's waiting call: use it with --resume"],
    [['--resume', 'latest', '--approve', '--deny'], '--approve and --deny contradict each other: give one'],
    [['--acp', '-p', 'x'], '--acp cannot be combined with --prompt'],
    [['--acp', '-o', 'json'], '--acp speaks ACP on stdout: --output-format does not apply'],
    [['--list-sessions', '--resume', '1'], '--list-sessions cannot be combined with --resume'],
    [['--resume'], '--resume needs a value: latest, a session number or a session id (see --list-sessions)'],
  ])('refuses %j: %s', (argv, message) => {
    expect(inputError(argv)).toMatchObject({ kind: 'input', message });
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

  it('routes policy check with the rest of argv, its --help included', () => {
    expect(parseCliArgs(['policy', 'check', '--tool', 'read_file'])).toEqual({
      kind: 'policy-check',
      argv: ['--tool', 'read_file'],
    });
    expect(parseCliArgs(['policy', 'check', '--help'])).toEqual({ kind: 'policy-check', argv: ['--help'] });
  });

  it.each([[['policy', '--help']], [['policy', '-h']], [['policy', 'help']]])('%j is the policy help', (argv) => {
    expect(parseCliArgs(argv)).toEqual({ kind: 'policy-help' });
  });

  it('takes a value that starts with a dash as the value of the flag before it', () => {
    expect(parseCliArgs(['-p', '-v is broken, fix it', '-m', 'm'])).toMatchObject({
      prompt: '-v is broken, fix it',
      model: 'm',
    });
    expect(parseCliArgs(['--prompt', '--verbose flag is broken'])).toMatchObject({
      prompt: '--verbose flag is broken',
    });
  });

  it.each([
    [
      ['-p', 'x', '--timeout-minutes', '-1'],
      '--timeout-minutes "-1" is not valid: it expects a whole number of minutes, at least 1',
    ],
    [
      ['-p', 'x', '--timeout-minutes=-1'],
      '--timeout-minutes "-1" is not valid: it expects a whole number of minutes, at least 1',
    ],
    [['-p', 'x', '--max-turns', '-3'], '--max-turns "-3" is not valid: it expects a whole number of turns, at least 1'],
    [
      ['-p', 'x', '--max-turns', '2.5'],
      '--max-turns "2.5" is not valid: it expects a whole number of turns, at least 1',
    ],
    [['-p', 'x', '--timeout-minutes'], '--timeout-minutes needs a value: a whole number of minutes, at least 1'],
    [['-p', '-y'], '--prompt needs a value: the task as text'],
    [['-p', 'x', '-o', 'yaml'], '--output-format "yaml" is not valid: it expects one of text, json, stream-json'],
    [['--frobnicate'], 'unknown option --frobnicate: run agent-action --help for the flags'],
    [
      ['policy'],
      'missing command after "policy": the one policy command is "policy check" (see: agent-action policy --help)',
    ],
  ])('%j says exactly what it expects', (argv, message) => {
    expect(inputError(argv).message).toBe(message);
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
