/**
 * `agent-action -p`: the terminal face. Reads flags and environment, prepares the agent in the
 * headless policy context (nobody to ask: ask_user becomes deny), streams events to the chosen
 * format and turns the outcome into Gemini CLI's exit codes. Never calls process.exit itself.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { AgentError, isAgentError, messageOf } from '../common/errors.js';
import { prepareAgent } from '../core/agent.js';
import type { Outcome } from '../core/events.js';
import { createDenyChannel } from '../scheduler/channels.js';
import { HELP, parseCliArgs, type CliArgs } from './args.js';
import { createOutputWriter, type Io } from './output.js';
import { runPolicyCheck } from './policy-check.js';
import { runSandboxCheckCommand } from './sandbox-check.js';
import { createSandbox } from '../sandbox/sandbox.js';

export const VERSION = '0.1.0';

export interface CliEnv {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  io: Io;
  /** Piped standard input, already read; undefined for a terminal. */
  stdin?: string;
  signal: AbortSignal;
}

export async function runCli(c: CliEnv): Promise<number> {
  let args: CliArgs;
  try {
    const cmd = parseCliArgs(c.argv);
    if (cmd.kind === 'help') return (c.io.stdout(HELP), 0);
    if (cmd.kind === 'version') return (c.io.stdout(`${VERSION}\n`), 0);
    if (cmd.kind === 'policy-check') return await runPolicyCheck(cmd.argv, c.io);
    if (cmd.kind === 'sandbox-check') return await runSandboxCheckCommand(cmd.argv, c.env, c.io);
    args = cmd;
  } catch (e) {
    return reportEarly(e, c.io, 'text');
  }
  const out = createOutputWriter(args.output, c.io);
  try {
    const prompt = assemblePrompt(args.prompt, c.stdin);
    const root = resolveWorkspace(args.cwd ?? c.cwd);
    const apiKey = c.env.GEMINI_API_KEY ?? c.env.GOOGLE_API_KEY;
    if (!apiKey) throw new AgentError('auth', 'no API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a Gemini API key');
    const model = args.model ?? c.env.GEMINI_MODEL ?? 'gemini-2.5-pro';

    // No remedy here: changing a person's kernel settings is their decision; the warning says how.
    const sandbox = createSandbox({ mode: args.sandbox, network: args.sandboxNetwork, hostEnv: c.env });
    const sandboxStatus = await sandbox.status();
    if (sandboxStatus.kind === 'unconfined' && args.sandbox !== 'off') c.io.stderr(`Warning: ${sandboxStatus.warning}\n`);
    if (sandboxStatus.kind === 'refused') c.io.stderr(`Warning: shell commands are refused: the sandbox is required and unavailable: ${sandboxStatus.reason}. To fix: ${sandboxStatus.fix}, or pass --sandbox auto\n`);
    const userPolicies = [join(homedir(), '.gemini', 'policies')].filter((p) => existsSync(p));
    const agent = await prepareAgent({
      root,
      model,
      apiKey,
      baseUrl: c.env.GOOGLE_GEMINI_BASE_URL,
      mode: args.mode,
      policyContext: 'headless',
      policy: {
        workspace: [join(root, '.gemini', 'policies')].filter((p) => existsSync(p)),
        user: [...userPolicies, ...args.policies.map((p) => resolve(c.cwd, p))],
        admin: args.adminPolicies.map((p) => resolve(c.cwd, p)),
      },
      memory: { memoryRoot: root },
      command: 'prompt',
      limits: { maxTurns: args.maxTurns, maxWallMs: (args.timeoutMinutes ?? 30) * 60_000 },
      secrets: [apiKey, c.env.GITHUB_TOKEN, c.env.GH_TOKEN].filter((s): s is string => !!s),
      channel: createDenyChannel(),
      signal: c.signal,
      baseEnv: c.env,
      sandbox,
    });
    for (const w of agent.warnings) c.io.stderr(`Warning: ${w}\n`);
    out.prompt(prompt);
    const { outcome } = await agent.start(prompt, out.emit);
    return exitCodeOf(outcome);
  } catch (e) {
    return reportEarly(e, c.io, args.output, out.fail);
  }
}

export function exitCodeOf(o: Outcome): number {
  switch (o.status) {
    case 'success':
      return 0;
    case 'awaiting_approval':
      return 0;
    case 'limit':
      return 53;
    case 'cancelled':
      return 130;
    case 'error':
      return o.error.exitCode;
  }
}

function assemblePrompt(flag: string | undefined, stdin: string | undefined): string {
  const parts = [stdin?.trim(), flag?.trim()].filter((p): p is string => !!p);
  if (parts.length === 0) {
    throw new AgentError('input', 'empty prompt: pass the task with -p "..." or on standard input', { site: { input: '--prompt' } });
  }
  return parts.join('\n\n');
}

function resolveWorkspace(dir: string): string {
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new AgentError('input', `--cwd "${dir}" does not exist`, { site: { input: '--cwd' } });
  }
  if (!st.isDirectory()) throw new AgentError('input', `--cwd "${dir}" is not a directory`, { site: { input: '--cwd' } });
  return realpathSync(dir);
}

function reportEarly(e: unknown, io: Io, format: string, fail?: (e: AgentError) => void): number {
  const error = isAgentError(e) ? e : new AgentError('general', messageOf(e), { cause: e });
  if (fail && format !== 'text') fail(error);
  else io.stderr(`Error: ${error.message}\n${error.details.map((d) => `  ${d}\n`).join('')}`);
  if (error.kind === 'internal' || (!isAgentError(e) && e instanceof Error && e.stack)) {
    io.stderr(`${(e as Error).stack ?? ''}\n`);
  }
  return error.exitCode;
}
