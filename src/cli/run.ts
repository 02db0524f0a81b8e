/**
 * The CLI's dispatcher: flags to a command, a command to the module that runs it. Each mode is its
 * own module (headless.ts for `-p`, acp/server.ts for `--acp`, session/commands.ts for listing and
 * deleting sessions, session/transfer.ts for `session export|import`, policy-check.ts), sharing the
 * parsing and the exit codes.
 */
import { AgentError, isAgentError, messageOf } from '../common/errors.js';
import { HELP, parseCliArgs, POLICY_HELP, type CliCommand } from './args.js';
import { describeError, type Io } from './output.js';

const VERSION = '0.1.0';

export interface CliEnv {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  io: Io;
  /** Piped standard input, already read; undefined for a terminal (and for --acp, which speaks on it). */
  stdin?: string;
  signal: AbortSignal;
  /** The raw standard streams, for --acp. */
  stdio?: { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> };
}

export async function runCli(c: CliEnv): Promise<number> {
  let cmd: CliCommand;
  try {
    cmd = parseCliArgs(c.argv);
  } catch (e) {
    // Flags are read before a format is known: the error goes to stderr, as text.
    const error = isAgentError(e) ? e : new AgentError('input', messageOf(e));
    c.io.stderr(`Error: ${describeError(error)}\n`);
    return error.exitCode;
  }
  try {
    return await dispatch(cmd, c);
  } catch (e) {
    // A mode that fails outside its own reporting (an unwritable temp folder, say): one line, no trace.
    const error = isAgentError(e) ? e : new AgentError('general', messageOf(e), { cause: e });
    c.io.stderr(`Error: ${describeError(error)}\n`);
    return error.exitCode;
  }
}

/**
 * Each mode's module is imported when that mode runs: `--version` and `--help` load this file and
 * the flag parser only, `policy check` the policy engine only, a run the agent.
 */
async function dispatch(cmd: CliCommand, c: CliEnv): Promise<number> {
  switch (cmd.kind) {
    case 'help':
      return (c.io.stdout(HELP), 0);
    case 'version':
      return (c.io.stdout(`${VERSION}\n`), 0);
    case 'policy-help':
      return (c.io.stdout(POLICY_HELP), 0);
    case 'policy-check':
      return (await import('./policy-check.js')).runPolicyCheck(cmd.argv, c.io, c.cwd);
    case 'sandbox-check':
      return (await import('./sandbox-check.js')).runSandboxCheckCommand(cmd.argv, c.env, c.io);
    case 'mcp-list':
      return (await import('./mcp-list.js')).runMcpList(cmd.argv, c);
    case 'prompt':
      return (await import('./headless.js')).runHeadless(cmd, c);
    case 'list-sessions':
      return (await import('./session/commands.js')).runListSessions(cmd.cwd, c);
    case 'delete-session':
      return (await import('./session/commands.js')).runDeleteSession(cmd.selector, cmd.cwd, c);
    case 'session':
      return (await import('./session/transfer.js')).runSessionCommand(cmd.argv, c);
    case 'acp':
      if (!c.stdio) return (c.io.stderr('Error: --acp needs standard input and output\n'), 1);
      return (await import('./acp/server.js')).runAcpServer(cmd, {
        env: c.env,
        cwd: c.cwd,
        ...c.stdio,
        version: VERSION,
        signal: c.signal,
        log: (line) => c.io.stderr(`${line}\n`),
      });
  }
}
