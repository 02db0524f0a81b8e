/**
 * `agent-action -p`: one headless run, Gemini CLI's non-interactive mode. Prepares the agent in
 * the headless policy context (nobody to ask: ask_user becomes deny), streams events to the chosen
 * format and turns the outcome into Gemini CLI's exit codes. Never calls process.exit itself.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AgentError, isAgentError, messageOf } from '../common/errors.js';
import { prepareAgent } from '../core/agent.js';
import { createGeminiClient } from '../model/gemini.js';
import { createDenyChannel } from '../scheduler/channels.js';
import { createSandbox } from '../sandbox/sandbox.js';
import type { PromptArgs } from './args.js';
import { readCliExtensions } from './cli-extensions.js';
import { resolveFlagPaths } from './flag-paths.js';
import { createSessionMetrics } from './metrics.js';
import { createOutputWriter, exitCodeOf, type Io } from './output.js';

export interface HeadlessEnv {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  io: Io;
  /** Piped standard input, already read; undefined for a terminal. */
  stdin?: string;
  signal: AbortSignal;
}

export async function runHeadless(args: PromptArgs, c: HeadlessEnv): Promise<number> {
  const metrics = createSessionMetrics();
  const out = createOutputWriter(args.output, { io: c.io, metrics });
  try {
    const prompt = assemblePrompt(args.prompt, c.stdin);
    const root = resolveWorkspace(args.cwd ?? c.cwd);
    const user = resolveFlagPaths('--policy', args.policies, c.cwd);
    const admin = resolveFlagPaths('--admin-policy', args.adminPolicies, c.cwd);
    const apiKey = c.env.GEMINI_API_KEY || c.env.GOOGLE_API_KEY;
    if (!apiKey) throw new AgentError('auth', 'no API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a Gemini API key');
    const model = args.model ?? c.env.GEMINI_MODEL ?? 'gemini-2.5-pro';

    // No remedy here: changing a person's kernel settings is their decision; the warning says how.
    const sandbox = createSandbox({ mode: args.sandbox, network: args.sandboxNetwork, hostEnv: c.env });
    const sandboxStatus = await sandbox.status();
    if (sandboxStatus.kind === 'unconfined' && args.sandbox !== 'off') c.io.stderr(`Warning: ${sandboxStatus.warning}\n`);
    if (sandboxStatus.kind === 'refused') c.io.stderr(`Warning: shell commands are refused: the sandbox is required and unavailable: ${sandboxStatus.reason}. To fix: ${sandboxStatus.fix}, or pass --sandbox auto\n`);

    const secrets = [apiKey, c.env.GITHUB_TOKEN, c.env.GH_TOKEN].filter((s): s is string => !!s);
    const ext = await readCliExtensions({ root, env: c.env, secrets, ...(args.allowedMcpServerNames && { allowedNames: args.allowedMcpServerNames }) });
    for (const w of ext.warnings) c.io.stderr(`Warning: ${w}\n`);
    const agent = await prepareAgent({
      root,
      model,
      apiKey,
      modelClient: metrics.wrap(createGeminiClient({ apiKey, baseUrl: c.env.GOOGLE_GEMINI_BASE_URL || undefined, model })),
      mode: args.mode,
      policyContext: 'headless',
      policy: {
        workspace: [...[join(root, '.gemini', 'policies')].filter((p) => existsSync(p)), ...ext.policy.workspace],
        user: [...[join(homedir(), '.gemini', 'policies')].filter((p) => existsSync(p)), ...user, ...ext.policy.user],
        admin,
      },
      memory: { memoryRoot: root },
      command: 'prompt',
      limits: { maxTurns: args.maxTurns, maxWallMs: (args.timeoutMinutes ?? 30) * 60_000 },
      secrets,
      channel: createDenyChannel(),
      signal: c.signal,
      baseEnv: c.env,
      sandbox,
      extensions: { mcp: { servers: ext.servers, selection: ext.selection, start: args.mcpStart }, hooks: ext.hooks, network: args.sandboxNetwork },
    });
    for (const w of agent.warnings) c.io.stderr(`Warning: ${w}\n`);
    try {
      const { outcome } = await agent.start(prompt, (e) => {
        // Hook runs are not part of Gemini CLI's output formats; a failing hook is worth a line on stderr.
        if (e.type === 'hook' && (e.outcome === 'warning' || e.outcome === 'timeout')) c.io.stderr(`Warning: hook ${e.name} (${e.event}): ${e.message ?? e.outcome}\n`);
        out.emit(e);
      });
      return exitCodeOf(outcome);
    } finally {
      await agent.close();
    }
  } catch (e) {
    const error = isAgentError(e) ? e : new AgentError('internal', messageOf(e), { cause: e });
    out.fail(error);
    // Only a bug earns a stack trace; in the formats for programs the error is already on stdout.
    if (error.kind === 'internal') c.io.stderr(`${(e as Error)?.stack ?? messageOf(e)}\n`);
    return error.exitCode;
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
