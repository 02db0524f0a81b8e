/**
 * settings.json hooks for one run: `fire` plans an event's hooks (matcher, dedupe, sequential or
 * parallel), runs each in the sandbox (run-hook.ts), merges their answers (aggregate.ts), records
 * every run for the job summary, and remembers a `continue: false`. The event-specific meaning of
 * an answer lives with the caller: the loop (LoopHooks, here), tool calls (tool-hooks.ts) and
 * model requests (model-hooks.ts).
 */
import type { ModelClient } from '../model/client.js';
import type { Sandbox } from '../sandbox/types.js';
import type { CallHooks } from '../scheduler/call-hooks.js';
import type { StartTimer } from '../tools/process-group.js';
import { additionalContextOf, effectiveReason, isBlocking, mergeHookOutputs, type MergedOutput } from './aggregate.js';
import { planHooks, type HookCommand, type HookEvent, type HookGroup } from './config.js';
import { wrapModelWithHooks } from './model-hooks.js';
import { runHook, type HookOutput, type HookRun, type HookRunDeps } from './run-hook.js';
import { createCallHooks } from './tool-hooks.js';
import type { HookRunEvent, LoopHooks } from './types.js';
import { isoTime } from '../common/time.js';

export interface HookSystemOptions {
  groups: readonly HookGroup[];
  sandbox: Sandbox;
  /** Real path of the workspace. */
  workspace: string;
  /** The environment every command gets (sandbox/command-env.ts): the allow-list and what trusted configuration passes. */
  env: Readonly<Record<string, string>>;
  /** A trusted copy of `.gemini/`, bound over the work tree's for every hook. */
  configDir?: string;
  graceMs?: number;
  now?: () => number;
  /** The hooks' timeout and grace timers (real ones by default; tests fire them on an event instead). */
  startTimer?: StartTimer;
}

interface FireResult {
  /** The merged answer; undefined when no hook ran or none answered. */
  output?: MergedOutput;
  runs: HookRun[];
}

export interface HookSystem extends LoopHooks {
  /** Whether any hook is configured (no: every method returns at once). */
  readonly active: boolean;
  readonly calls: CallHooks;
  /** The session the inputs name, and where run records go. */
  attach(sessionId: string, onRun: (e: HookRunEvent) => void): void;
  /** Runs one event's hooks; input gets the common fields. */
  fire(
    event: HookEvent,
    input: Record<string, unknown>,
    o?: { subject?: string | undefined; signal?: AbortSignal | undefined },
  ): Promise<FireResult>;
  /** SessionStart: context to put before the first prompt (Gemini CLI's non-interactive mode prepends it). */
  sessionStart(source: 'startup' | 'resume', signal: AbortSignal): Promise<string | undefined>;
  /** SessionEnd: advisory; awaited so its processes end with the run. */
  sessionEnd(reason: 'exit' | 'other'): Promise<void>;
  wrapModel(model: ModelClient): ModelClient;
  /** Every run so far. */
  runs(): readonly HookRun[];
  /** Remember a `continue: false` (from any event). */
  requestStop(reason: string): void;
}

export function createHookSystem(o: HookSystemOptions): HookSystem {
  let sessionId = '';
  let onRun: (e: HookRunEvent) => void = () => undefined;
  let stop: string | undefined;
  const all: HookRun[] = [];
  const active = o.groups.length > 0;
  const neverAborted = new AbortController().signal;

  const record = (r: HookRun) => {
    all.push(r);
    onRun(runEventOf(r));
  };

  async function fire(
    event: HookEvent,
    input: Record<string, unknown>,
    at: { subject?: string | undefined; signal?: AbortSignal | undefined } = {},
  ): Promise<FireResult> {
    const { subject, signal = neverAborted } = at;
    const plan = planHooks(o.groups, event, subject);
    if (plan.hooks.length === 0) return { runs: [] };
    const base = eventInput(event, input, { sessionId, workspace: o.workspace });
    const deps = runDepsOf(o, sessionId);
    const runs = await runPlan(plan, deps, { event, input: base, signal, record });
    const outputs = runs.flatMap((r) => (r.output ? [r.output] : []));
    const output = mergeHookOutputs(event, outputs);
    return output ? { output, runs } : { runs };
  }

  const requestStop = (reason: string) => void (stop ??= reason);

  let calls: CallHooks | undefined;
  const system: HookSystem = {
    active,
    get calls() {
      return (calls ??= createCallHooks(system));
    },
    attach(id, fn) {
      sessionId = id;
      onRun = fn;
    },
    fire,
    runs: () => all,
    requestStop,
    stopReason: () => stop,
    async sessionStart(source, signal) {
      if (!active) return undefined;
      const { output } = await fire('SessionStart', { source }, { subject: source, signal });
      // Advisory: `continue` and `decision` are ignored, as Gemini CLI ignores them.
      return additionalContextOf(output);
    },
    async sessionEnd(reason) {
      if (!active) return;
      await fire('SessionEnd', { reason }, { subject: reason });
    },
    async beforeAgent(prompt, signal) {
      if (!active) return {};
      const { output } = await fire('BeforeAgent', { prompt }, { signal });
      return beforeAgentAnswer(output, requestStop);
    },
    async afterAgent(prompt, { response, retrying, signal }) {
      if (!active) return {};
      const { output } = await fire(
        'AfterAgent',
        { prompt, prompt_response: response, stop_hook_active: retrying },
        { signal },
      );
      return afterAgentAnswer(output, requestStop);
    },
    async preCompress(signal) {
      if (active) await fire('PreCompress', { trigger: 'auto' }, { subject: 'auto', signal });
    },
    wrapModel: (model) => (active ? wrapModelWithHooks(model, system) : model),
  };
  return system;
}

/** The job-summary record of one run. */
function runEventOf(r: HookRun): HookRunEvent {
  return {
    type: 'hook',
    event: r.event,
    name: r.name,
    outcome: r.outcome,
    exitCode: r.exitCode,
    durationMs: r.durationMs,
    ...(r.message !== undefined && { message: r.message }),
  };
}

/** What every hook of an event reads on stdin: the common fields, then the event's own. */
function eventInput(
  event: HookEvent,
  input: Record<string, unknown>,
  s: { sessionId: string; workspace: string },
): Record<string, unknown> {
  return {
    session_id: s.sessionId,
    transcript_path: '',
    cwd: s.workspace,
    hook_event_name: event,
    timestamp: isoTime(),
    ...input,
  };
}

/** runHook's dependencies; optional settings are left out rather than passed as undefined. */
function runDepsOf(o: HookSystemOptions, sessionId: string): HookRunDeps {
  return {
    sandbox: o.sandbox,
    workspace: o.workspace,
    env: o.env,
    sessionId,
    ...(o.configDir !== undefined && { configDir: o.configDir }),
    ...(o.graceMs !== undefined && { graceMs: o.graceMs }),
    ...(o.now && { now: o.now }),
    ...(o.startTimer && { startTimer: o.startTimer }),
  };
}

/** Runs a plan's hooks: in order, each seeing the previous one's changes, or all at once. */
async function runPlan(
  plan: { hooks: readonly HookCommand[]; sequential: boolean },
  deps: HookRunDeps,
  at: { event: HookEvent; input: Record<string, unknown>; signal: AbortSignal; record: (r: HookRun) => void },
): Promise<HookRun[]> {
  const { event, input, signal, record } = at;
  const runs: HookRun[] = [];
  if (plan.sequential) {
    let current = input;
    for (const h of plan.hooks) {
      const r = await runHook(h, deps, { event, input: current, signal });
      record(r);
      runs.push(r);
      if (r.outcome === 'ok' && r.output) current = chainInput(event, current, r.output);
    }
  } else {
    const done = await Promise.all(plan.hooks.map((h) => runHook(h, deps, { event, input, signal })));
    for (const r of done) record(r);
    runs.push(...done);
  }
  return runs;
}

/** BeforeAgent's answer for the loop: `continue: false` stops the run, a block drops the prompt. */
function beforeAgentAnswer(
  output: MergedOutput | undefined,
  requestStop: (reason: string) => void,
): { context?: string; blocked?: string } {
  if (!output) return {};
  if (output.continue === false) {
    requestStop(effectiveReason(output));
    return { blocked: `Agent execution stopped by hook: ${effectiveReason(output)}` };
  }
  if (isBlocking(output.decision)) return { blocked: effectiveReason(output) };
  const context = additionalContextOf(output);
  return context ? { context } : {};
}

/** AfterAgent's answer for the loop: `continue: false` stops the run, a block asks for a retry. */
function afterAgentAnswer(output: MergedOutput | undefined, requestStop: (reason: string) => void): { retry?: string } {
  if (!output) return {};
  if (output.continue === false) {
    requestStop(effectiveReason(output));
    return {};
  }
  return isBlocking(output.decision) ? { retry: effectiveReason(output) } : {};
}

/** In a sequence, what the next hook sees: Gemini CLI's applyHookOutputToInput. */
function chainInput(event: HookEvent, input: Record<string, unknown>, out: HookOutput): Record<string, unknown> {
  const hs = out.hookSpecificOutput;
  if (!hs || typeof hs !== 'object') return input;
  if (event === 'BeforeAgent' && typeof hs.additionalContext === 'string' && typeof input.prompt === 'string')
    return { ...input, prompt: `${input.prompt}\n\n${hs.additionalContext}` };
  if (event === 'BeforeTool' && hs.tool_input && typeof hs.tool_input === 'object' && !Array.isArray(hs.tool_input))
    return { ...input, tool_input: { ...(input.tool_input as object), ...(hs.tool_input as object) } };
  if (event === 'BeforeModel' && hs.llm_request && typeof hs.llm_request === 'object')
    return { ...input, llm_request: { ...(input.llm_request as object), ...(hs.llm_request as object) } };
  return input;
}
