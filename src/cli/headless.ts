/**
 * `agent-action -p`: one headless run, Gemini CLI's non-interactive mode. Prepares the agent in
 * the headless policy context (nobody to ask: ask_user becomes deny), streams events to the chosen
 * format and turns the outcome into Gemini CLI's exit codes. Every run is a session kept on disk
 * (session/local.ts), saved at each safe point, which `--resume` continues. Never calls
 * process.exit itself.
 */
import { realpathSync, statSync } from 'node:fs';
import { AgentError, isAgentError, messageOf } from '../common/errors.js';
import { preloadGeminiSdk } from '../model/gemini.js';
import type { ModelClient } from '../model/client.js';
import { createDenyChannel } from '../scheduler/channels.js';
import { createSandbox } from '../sandbox/sandbox.js';
import type { PromptArgs } from './args.js';
import { readCliCommands, readCliExtensions, type CliExtensions } from './cli-extensions.js';
import { parseInvocation } from '../commands/template.js';
import type { Agent } from '../compose/prepare-agent.js';
import { readFolderTrust, untrustedNote } from './folder-trust.js';
import { readResumedSession, newState, planAnswers, restoredState, type ResumePlan } from './session/session.js';
import { resolveFlagPaths } from './flag-paths.js';
import { defaultModelOf, prepareLocalAgent, secretsOf } from './local-agent.js';
import { openProjectSessions, titleOf } from './session/local.js';
import { createSessionMetrics } from './metrics.js';
import { createOutputWriter, exitCodeOf, type Io } from './output.js';
import { createSessionRecorder } from './session/recorder.js';

export interface HeadlessEnv {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  io: Io;
  /** Piped standard input, already read; undefined for a terminal. */
  stdin?: string;
  signal: AbortSignal;
}

export async function runHeadless(args: PromptArgs, c: HeadlessEnv): Promise<number> {
  // The model SDK loads while the workspace, policies and memory are read (errors: at the first request).
  preloadGeminiSdk();
  const metrics = createSessionMetrics();
  // The output's figures are this run's; a resumed session's totals so far are set once it is read.
  const before = { costUsd: 0, durationMs: 0 };
  const out = createOutputWriter(args.output, { io: c.io, metrics, before });
  try {
    const root = resolveWorkspace(args.cwd ?? c.cwd);
    const user = resolveFlagPaths('--policy', args.policies, c.cwd);
    const admin = resolveFlagPaths('--admin-policy', args.adminPolicies, c.cwd);
    const sessions = openProjectSessions(c.env, root);
    const held = args.resume !== undefined ? await readResumedSession(sessions, args.resume) : undefined;
    const prompt = joinPrompt(args.prompt, c.stdin);
    const plan: ResumePlan = held
      ? planAnswers(held.doc.pending, { approve: args.approve, deny: args.deny, prompt })
      : { answers: [], message: assertPrompt(prompt) };
    const state = held
      ? restoredState(held.doc, { model: args.model, mode: args.modeExplicit ? args.mode : undefined })
      : newState(args.model ?? defaultModelOf(c.env), args.mode);
    before.costUsd = state.costUsd;
    before.durationMs = state.elapsedMsBefore;
    if (held?.doc.status === 'running')
      c.io.stderr(`Warning: session ${held.doc.id} was interrupted; it goes on from its last safe point.\n`);

    // No remedy here: changing a person's kernel settings is their decision; the warning says how.
    const sandbox = createSandbox({ mode: args.sandbox, network: args.sandboxNetwork, hostEnv: c.env });
    // The probe (two bwrap processes: tens of milliseconds, more on a busy machine) starts once the
    // first model answer begins to arrive, not before the first request: spawning them costs this
    // thread milliseconds the request would wait for, and nothing before it needs the result. A
    // command waits for it anyway (sandbox.spawn); its warning is written as soon as it is known.
    // Awaited before the run ends, so the warning is never lost; a failing probe fails the run there.
    let probed: Promise<void> | undefined;
    const startProbe = (): Promise<void> => {
      if (probed) return probed;
      probed = sandbox.status().then((s) => {
        if (s.kind === 'unconfined' && args.sandbox !== 'off') c.io.stderr(`Warning: ${s.warning}\n`);
        if (s.kind === 'refused')
          c.io.stderr(
            `Warning: shell commands are refused: the sandbox is required and unavailable: ${s.reason}. To fix: ${s.fix}, or pass --sandbox auto\n`,
          );
      });
      probed.catch(() => undefined); // awaited below; a run that fails earlier must not leave it unhandled
      return probed;
    };

    const recorder = createSessionRecorder({
      store: sessions.store,
      ...(held ? { held } : { origin: { root, title: titleOf(plan.message ?? ''), command: 'prompt' } }),
      onSaveError: (e) => c.io.stderr(`Warning: ${messageOf(e)}; this run goes on without saving its session.\n`),
    });
    const trust = readFolderTrust(root, c.env);
    const note = untrustedNote(root, trust);
    if (note) c.io.stderr(`Warning: ${note}\n`);
    const ext = await readCliExtensions({
      root,
      trusted: trust.trusted,
      env: c.env,
      secrets: secretsOf(c.env),
      ...(args.allowedMcpServerNames && { allowedNames: args.allowedMcpServerNames }),
    });
    for (const w of ext.warnings) c.io.stderr(`Warning: ${w}\n`);
    const agent = await prepareLocalAgent({
      root,
      trusted: trust.trusted,
      env: c.env,
      model: state.model,
      mode: state.mode,
      policyContext: 'headless',
      userPolicies: user,
      adminPolicies: admin,
      extensionSettings: ext,
      maxTurns: args.maxTurns,
      timeoutMinutes: args.timeoutMinutes,
      channel: createDenyChannel(),
      signal: c.signal,
      sandbox,
      wrapModel: (m) => metrics.wrap(startingOnFirstChunk(m, () => startProbe())),
      onBatchSettled: (s) => recorder.save(s, 'running'),
      extensions: {
        mcp: { servers: ext.servers, selection: ext.selection, start: args.mcpStart },
        hooks: ext.hooks,
        network: args.sandboxNetwork,
      },
    });
    for (const w of agent.warnings) c.io.stderr(`Warning: ${w}\n`);
    const emit = (e: Parameters<typeof out.emit>[0]) => {
      // Hook runs are not part of Gemini CLI's output formats; a failing hook is worth a line on stderr.
      if (e.type === 'hook' && (e.outcome === 'warning' || e.outcome === 'timeout'))
        c.io.stderr(`Warning: hook ${e.name} (${e.event}): ${e.message ?? e.outcome}\n`);
      out.emit(e);
    };
    try {
      const message = await expandSlashCommand(plan.message, { agent, root, trusted: trust.trusted, ext, io: c.io });
      await recorder.save(state, 'running');
      const { outcome } = await (message !== undefined
        ? agent.send(state, { prompt: message, answers: plan.answers }, emit)
        : agent.resume(state, plan.answers, emit));
      await recorder.saveOutcome(state, outcome);
      await startProbe();
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

/** `client`, calling `start` when the first chunk of any answer arrives (or the stream fails). */
function startingOnFirstChunk(client: ModelClient, start: () => unknown): ModelClient {
  return {
    async *stream(req) {
      try {
        for await (const chunk of client.stream(req)) {
          start();
          yield chunk;
        }
      } finally {
        start();
      }
    },
  };
}

/** `-p "/name args"`: a custom command's prompt (its `@{}` warnings on stderr); any other prompt, or an unknown name, as it is (Gemini CLI). */
async function expandSlashCommand(
  prompt: string | undefined,
  o: { agent: Agent; root: string; trusted: boolean; ext: CliExtensions; io: HeadlessEnv['io'] },
): Promise<string | undefined> {
  if (prompt === undefined || !prompt.trimStart().startsWith('/')) return prompt;
  const invocation = parseInvocation(prompt);
  if (!invocation) return prompt;
  const set = await readCliCommands({ root: o.root, trusted: o.trusted, extensions: o.ext.extensions });
  for (const w of set.warnings) o.io.stderr(`Warning: ${w}\n`);
  const command = set.commands.get(invocation.name);
  if (!command) return prompt;
  const expanded = await o.agent.expandCommand(command, invocation);
  for (const w of expanded.warnings) o.io.stderr(`Warning: ${w}\n`);
  return expanded.text;
}

/** Piped input first, then -p (Gemini CLI's order); undefined when both are empty. */
function joinPrompt(flag: string | undefined, stdin: string | undefined): string | undefined {
  const parts = [stdin?.trim(), flag?.trim()].filter((p): p is string => !!p);
  return parts.length ? parts.join('\n\n') : undefined;
}

function assertPrompt(prompt: string | undefined): string {
  if (!prompt)
    throw new AgentError('input', 'empty prompt: pass the task with -p "..." or on standard input', {
      site: { input: '--prompt' },
    });
  return prompt;
}

function resolveWorkspace(dir: string): string {
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new AgentError('input', `--cwd "${dir}" does not exist`, { site: { input: '--cwd' } });
  }
  if (!st.isDirectory())
    throw new AgentError('input', `--cwd "${dir}" is not a directory`, { site: { input: '--cwd' } });
  return realpathSync(dir);
}
