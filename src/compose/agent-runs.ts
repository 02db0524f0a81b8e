/**
 * The agent a face holds once everything is wired: each run (a first prompt, the answers to a
 * waiting batch, a next prompt to a session) builds the loop's deps and runs the loop once.
 */
import { randomUUID } from 'node:crypto';
import { expandCommand } from '../commands/expand-command.js';
import type { Extensions } from '../core/extensions.js';
import type { Emit } from '../core/events.js';
import { DEFAULT_MAX_TURNS } from '../core/limits.js';
import { runLoop, type AfterTextTurn, type LoopDeps, type LoopInput, type LoopLimits } from '../core/loop.js';
import { createRunState, type RunState } from '../core/run-state.js';
import { withStructuredAnswer } from '../core/structured-answer.js';
import type { ParentRun } from '../core/subagent-host.js';
import type { ModelClient } from '../model/client.js';
import type { Content } from '../model/wire.js';
import type { AddedRule, ApprovalMode, PolicyEngine } from '../policy/types.js';
import { createScheduler } from '../scheduler/scheduler.js';
import type { ToolEnv } from '../tools/define-tool.js';
import type { createToolSet } from '../tools/mcp/tool-set.js';
import type { Agent, AgentOptions, AgentRun } from './agent-options.js';

/** What prepareAgent wired, for the runs. */
export interface Wired {
  o: AgentOptions;
  policy: PolicyEngine;
  registry: ReturnType<typeof createToolSet>;
  /** The model as the loop calls it (hooks around it, if any) and as compression calls it (none). */
  model: ModelClient;
  baseModel: ModelClient;
  env: ToolEnv;
  extensions: Extensions;
  systemPromptFor(mode: ApprovalMode): string;
  memorySources: readonly string[];
  warnings: string[];
  afterTextTurn?: AfterTextTurn;
  /** A run starts: sub-agents serve it, and the extensions' warnings go into its stream. */
  onRun(run: ParentRun): void;
}

export function createAgent(w: Wired): Agent {
  const { o, policy, registry, extensions } = w;
  const hooks = extensions.hooks;
  const signal = o.io.signal ?? new AbortController().signal;
  const { perRun, ...limits } = o.limits;

  // Getters: a mode changed while a run goes applies from its next request and batch.
  const deps = (state: RunState, runSignal: AbortSignal, afterTextTurn: AfterTextTurn | undefined): LoopDeps => ({
    model: w.model,
    scheduler: createScheduler({
      tools: registry,
      policy,
      channel: o.io.channel,
      env: w.env,
      ...(hooks && { hooks: hooks.calls }),
      ...(o.io.clock?.setTimer && { startTimer: o.io.clock.setTimer }),
    }),
    get systemInstruction() {
      return w.systemPromptFor(state.mode);
    },
    tools: async () => {
      await registry.ready();
      return registry.declarations();
    },
    limits: perRun ? limitsFrom(limits, state) : limits,
    signal: runSignal,
    get mode() {
      return state.mode;
    },
    ...(o.io.onBatchSettled && { onBatchSettled: o.io.onBatchSettled }),
    ...(afterTextTurn ? { afterTextTurn } : {}),
    ...(o.io.clock ? { clock: o.io.clock } : {}),
    ...(hooks && { hooks, compressionModel: w.baseModel }),
  });

  /** Rules an earlier "always" added, once each: one agent may run many prompts of a session. */
  const restoreRules = (state: RunState) => {
    const key = (r: AddedRule) => JSON.stringify(r);
    const known = new Set(policy.added.map(key));
    policy.restoreAdded(state.addedRules.filter((r) => !known.has(key(r))));
  };

  /**
   * A run's events also carry hook runs and the MCP servers' later warnings. SessionStart runs once
   * per session this agent serves (an editor sends many prompts to one): its context, if any, is
   * returned for the caller to put before the prompt.
   */
  const started = new Set<string>();
  const attach = async (
    state: RunState,
    emit: Emit,
    { source, signal }: { source: 'startup' | 'resume'; signal: AbortSignal },
  ): Promise<string | undefined> => {
    w.onRun({ state, emit });
    if (!hooks) return undefined;
    hooks.attach(state.id, emit);
    if (started.has(state.id)) return undefined;
    started.add(state.id);
    return hooks.sessionStart(source, signal);
  };

  const loop = async (
    state: RunState,
    input: LoopInput,
    run: { emit: Emit; signal?: AbortSignal },
  ): Promise<AgentRun> => {
    let structured: AgentRun['structured'];
    const schema = o.task.outputSchema;
    const afterText = schema
      ? withStructuredAnswer(w.afterTextTurn, {
          schema,
          systemInstruction: () => w.systemPromptFor(state.mode),
          onAnswer: (value) => void (structured = { value }),
        })
      : w.afterTextTurn;
    const outcome = await runLoop({ state, input }, deps(state, run.signal ?? signal, afterText), run.emit);
    state.addedRules = [...policy.added];
    return { outcome, state, ...(structured && { structured }) };
  };

  return {
    policy,
    systemPrompt: w.systemPromptFor(o.policy.mode),
    memorySources: w.memorySources,
    warnings: w.warnings,
    ...(extensions.mcp && { mcp: extensions.mcp }),
    close: () => extensions.close(),
    async start(prompt, emit) {
      const state = createRunState(o.task.sessionId ?? randomUUID(), o.model.name, o.policy.mode);
      // SessionStart's context goes before the prompt, fenced, as in Gemini CLI's non-interactive mode.
      const context = await attach(state, emit, { source: 'startup', signal });
      const text = withHookContext(context, prompt);
      return loop(
        state,
        {
          userMessage: {
            role: 'user',
            parts: [
              { text: o.task.taskContext ? `${o.task.taskContext}\n\n${text}` : text },
              ...(o.task.taskImages ?? []),
            ],
          },
        },
        { emit },
      );
    },
    async resume(state, answers, emit) {
      restoreRules(state);
      // SessionStart runs with source "resume"; there is no new prompt to put its context before.
      await attach(state, emit, { source: 'resume', signal });
      return loop(state, { answers: [...answers] }, { emit });
    },
    async send(state, s, emit) {
      restoreRules(state);
      const context = await attach(state, emit, {
        source: state.history.length === 0 ? 'startup' : 'resume',
        signal: s.signal ?? signal,
      });
      const answers = [...(s.answers ?? [])];
      const userMessage: Content = { role: 'user', parts: [{ text: withHookContext(context, s.prompt) }] };
      return loop(state, state.open || answers.length > 0 ? { answers, userMessage } : { userMessage }, {
        emit,
        signal: s.signal,
      });
    },
    expandCommand: (command, invocation, x) => expandWith(w, signal, command, invocation, x),
    toolKind: (name) => registry.get(name)?.kind,
  };
}

/** A custom command expanded with this agent's workspace, policy (in its starting mode) and sandbox. */
function expandWith(w: Wired, signal: AbortSignal, ...[command, invocation, x]: Parameters<Agent['expandCommand']>) {
  return expandCommand(command, invocation, {
    ...(x?.showRuleSource && { showRuleSource: x.showRuleSource }),
    env: w.env,
    policy: w.policy,
    mode: w.o.policy.mode,
    shellAvailable: w.registry.get('run_shell_command') !== undefined,
    signal,
  });
}

const withHookContext = (context: string | undefined, prompt: string): string =>
  context ? `<hook_context>${context}</hook_context>\n\n${prompt}` : prompt;

/** Per-run budgets: the session's totals so far plus the run's own allowance. */
function limitsFrom(l: LoopLimits, state: RunState): LoopLimits {
  return {
    maxTurns: state.turns + (l.maxTurns ?? DEFAULT_MAX_TURNS),
    ...(l.maxTurnsFromSettings ? { maxTurnsFromSettings: true } : {}),
    ...(l.maxWallMs !== undefined ? { maxWallMs: state.elapsedMsBefore + l.maxWallMs } : {}),
    ...(l.maxTotalTokens !== undefined ? { maxTotalTokens: state.usage.totalTokens + l.maxTotalTokens } : {}),
    ...(l.maxCostUsd !== undefined ? { maxCostUsd: state.costUsd + l.maxCostUsd } : {}),
  };
}
