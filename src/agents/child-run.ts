/**
 * One sub-agent run: a child loop (core's runLoop) with its own chat, tools, system prompt and
 * limits, whose calls go through the run's policy engine (with `subagent` set), approval channel
 * and sandbox. It ends when complete_task succeeds; a text-only turn gets one last chance, then an
 * error. Its events reach the parent's stream nested under the invoke_agent call, and its tokens
 * and cost are added to the parent's, so the run's budgets and summary count them. When one of
 * its calls waits for a person, it returns its state for the parent's batch to save; a later
 * process goes on from there.
 */
import { AgentError } from '../common/errors.js';
import type { SubagentHost } from '../core/subagent-host.js';
import type { LoopEvent, Outcome } from '../core/events.js';
import type { AfterTextTurn, LoopDeps, LoopInput, LoopLimits } from '../core/loop.js';
import { runLoop } from '../core/loop.js';
import { createRunState, type RunState } from '../core/run-state.js';
import { addUsage } from '../model/usage.js';
import type { Usage } from '../model/wire.js';
import { createScheduler } from '../scheduler/scheduler.js';
import type { ApprovalAnswer, SuspendableRun } from '../scheduler/types.js';
import type { Tool, ToolErrorCode } from '../tools/define-tool.js';
import { createToolRegistry } from '../tools/registry.js';
import { buildChildPrompt } from './child-prompt.js';
import { COMPLETE_TASK, submittedResult } from './complete-task.js';
import type { AgentDefinition } from './definition.js';
import { policyForSubagent } from './subagent-policy.js';

/**
 * A child gets one final chance (Gemini CLI's grace turn) when it stops calling tools without
 * complete_task, or reaches its own turn or time limit: one more turn, at most a minute long.
 */
const lastChance = (why: string) =>
  `${why} You have one final chance: call \`${COMPLETE_TASK}\` now with your best answer, and say in it that your work was cut short. Do not call any other tool.`;
const LAST_CHANCE = lastChance('You have stopped calling tools without finishing.');
const GRACE_MS = 60_000;

const NO_COMPLETION = `Agent stopped calling tools but did not call '${COMPLETE_TASK}'.`;

/** What a waiting child saves inside the parent's batch (plain JSON). */
interface ChildSave {
  version: 1;
  agent: string;
  state: RunState;
  /** The child's usage already added to the parent's, so a resumed child adds only what is new. */
  folded: Folded;
}

interface Folded {
  usage: Usage;
  costUsd: number;
  models: RunState['models'];
}

export interface ChildRun {
  def: AgentDefinition;
  /** The child's tools: those of the parent it may use, and complete_task. */
  tools: readonly Tool[];
  host: SubagentHost;
  /** The parent's invoke_agent call: the child's events nest under it. */
  callId: string;
  signal: AbortSignal;
}

const zeroUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cachedTokens: 0, thoughtTokens: 0, totalTokens: 0 });
const foldedOf = (s: RunState): Folded => ({
  usage: { ...s.usage },
  costUsd: s.costUsd,
  models: structuredClone(s.models),
});
const minus = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens - b.inputTokens,
  outputTokens: a.outputTokens - b.outputTokens,
  cachedTokens: a.cachedTokens - b.cachedTokens,
  thoughtTokens: a.thoughtTokens - b.thoughtTokens,
  totalTokens: a.totalTokens - b.totalTokens,
});

/** Add what the child spent since `before` to the parent's totals (tokens, cost, per-model counts). */
function foldInto(parent: RunState, child: RunState, before: Folded): void {
  parent.usage = addUsage(parent.usage, minus(child.usage, before.usage));
  parent.costUsd += child.costUsd - before.costUsd;
  for (const [model, m] of Object.entries(child.models)) {
    const b = before.models[model] ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0, requests: 0 };
    const p = (parent.models[model] ??= { inputTokens: 0, outputTokens: 0, totalTokens: 0, requests: 0 });
    p.inputTokens += m.inputTokens - b.inputTokens;
    p.outputTokens += m.outputTokens - b.outputTokens;
    p.totalTokens += m.totalTokens - b.totalTokens;
    p.requests += m.requests - b.requests;
  }
}

/** The child's budget: its own limits, within what the run has left of tokens and cost. */
function childLimits(
  def: AgentDefinition,
  run: LoopLimits,
  { parent, child }: { parent: RunState; child: RunState },
): LoopLimits {
  const left = (max: number | undefined, used: number) => (max === undefined ? undefined : Math.max(0, max - used));
  const tokensLeft = left(run.maxTotalTokens, parent.usage.totalTokens);
  const costLeft = left(run.maxCostUsd, parent.costUsd);
  const ownTokens = def.maxTotalTokens;
  const tokenCap = [tokensLeft === undefined ? undefined : child.usage.totalTokens + tokensLeft, ownTokens].filter(
    (n): n is number => n !== undefined,
  );
  return {
    maxTurns: def.maxTurns,
    maxWallMs: def.timeoutMs,
    ...(tokenCap.length ? { maxTotalTokens: Math.min(...tokenCap) } : {}),
    ...(costLeft === undefined ? {} : { maxCostUsd: child.costUsd + costLeft }),
  };
}

async function runChild(
  c: ChildRun,
  { child, folded }: { child: RunState; folded: Folded },
  input: LoopInput,
): Promise<SuspendableRun> {
  const { def, host } = c;
  const parent = host.current();
  const registry = createToolRegistry([...c.tools]);
  let gaveUp = false;
  const lastChance: AfterTextTurn = async (state) => {
    if ((state.continuations ?? 0) >= 1) {
      gaveUp = true;
      return { kind: 'stop', outcome: { status: 'error', error: new AgentError('general', NO_COMPLETION) } };
    }
    state.continuations = 1;
    return { kind: 'continue', message: LAST_CHANCE };
  };
  const deps: LoopDeps = {
    model: host.model,
    scheduler: createScheduler({
      tools: registry,
      policy: policyForSubagent(host.policy, def.name),
      channel: host.channel,
      env: host.env,
      ...(host.clock?.setTimer && { startTimer: host.clock.setTimer }),
    }),
    systemInstruction: buildChildPrompt(def, { toolNames: registry.names(), memory: host.memory }),
    tools: () => registry.declarations(),
    limits: childLimits(def, host.limits, { parent: parent.state, child }),
    signal: c.signal,
    mode: parent.state.mode,
    afterTextTurn: lastChance,
    finishAfterBatch: (s) => {
      const result = submittedResult(s.history, def.output);
      return result === undefined ? undefined : { status: 'success', finalText: result };
    },
    role: 'subagent',
    ...(def.temperature !== undefined ? { temperature: def.temperature } : {}),
    ...(host.clock ? { clock: host.clock } : {}),
  };
  const emit = (event: LoopEvent) => parent.emit({ type: 'subagent', parentId: c.callId, agent: def.name, event });
  let outcome = await runLoop({ state: child, input: input }, deps, emit);
  if (
    outcome.status === 'limit' &&
    (outcome.which === 'turns' || outcome.which === 'time') &&
    (child.continuations ?? 0) < 1
  ) {
    const graced = await graceTurn(child, deps, { emit, which: outcome.which });
    if (graced.status === 'success' || graced.status === 'awaiting_approval') outcome = graced;
  }
  foldInto(parent.state, child, folded);
  return resultOf(def, child, { outcome, gaveUp });
}

/** One more turn (and at most GRACE_MS) for a child at its turn or time limit, to call complete_task. */
async function graceTurn(
  child: RunState,
  deps: LoopDeps,
  { emit, which }: { emit: (e: LoopEvent) => void; which: 'turns' | 'time' },
): Promise<Outcome> {
  child.continuations = 1;
  const message = lastChance(
    which === 'turns' ? 'You have exceeded the maximum number of turns.' : 'You have exceeded the time limit.',
  );
  // At a limit the history ends with the batch's responses: the warning joins that user turn.
  const last = child.history.at(-1);
  if (last?.role === 'user') last.parts.push({ text: message });
  else child.history.push({ role: 'user', parts: [{ text: message }] });
  emit({ type: 'message', role: 'user', text: message, delta: false });
  const limits = { ...deps.limits, maxTurns: child.turns + 1, maxWallMs: child.elapsedMsBefore + GRACE_MS };
  return runLoop({ state: child, input: { answers: [] } }, { ...deps, limits }, emit);
}

/** Gemini CLI's termination reasons, as the parent model reads them. */
function reasonOf(o: Exclude<Outcome, { status: 'success' | 'awaiting_approval' }>, gaveUp: boolean): string {
  if (o.status === 'limit')
    return o.which === 'turns' ? 'MAX_TURNS' : o.which === 'time' ? 'TIMEOUT' : `LIMIT_${o.which.toUpperCase()}`;
  if (o.status === 'cancelled') return 'ABORTED';
  return gaveUp ? 'ERROR_NO_COMPLETE_TASK_CALL' : 'ERROR';
}

function resultOf(
  def: AgentDefinition,
  child: RunState,
  { outcome: o, gaveUp }: { outcome: Outcome; gaveUp: boolean },
): SuspendableRun {
  if (o.status === 'success') {
    return {
      output: {
        forModel: `Subagent '${def.name}' finished.\nTermination Reason: GOAL\nResult:\n${o.finalText}`,
        forHuman: `${def.name} finished in ${child.turns} turns`,
      },
    };
  }
  if (o.status === 'awaiting_approval') {
    const pending = o.pending.map((p) => ({ ...p, title: `${p.title} (for sub-agent ${def.name})` }));
    const saved: ChildSave = { version: 1, agent: def.name, state: child, folded: foldedOf(child) };
    return { suspended: { pending, saved } };
  }
  const why = o.status === 'limit' ? o.message : o.status === 'cancelled' ? 'the run was cancelled' : o.error.message;
  const code: ToolErrorCode =
    o.status === 'cancelled' ? 'cancelled' : o.status === 'error' && o.error.kind === 'fatal_tool' ? 'fatal' : 'failed';
  const text = `Subagent '${def.name}' did not complete its task.\nTermination Reason: ${reasonOf(o, gaveUp)}\nResult:\n${why}`;
  return { output: { forModel: text, forHuman: `${def.name} did not complete`, error: { code, message: text } } };
}

/** Start a sub-agent on the parent's prompt. */
export async function startChild(c: ChildRun, prompt: string): Promise<SuspendableRun> {
  const parent = c.host.current().state;
  const child = createRunState(`${parent.id}/${c.callId}`, c.def.model ?? parent.model, parent.mode);
  const folded: Folded = { usage: zeroUsage(), costUsd: 0, models: {} };
  return runChild(
    c,
    { child, folded },
    { userMessage: { role: 'user', parts: [{ text: c.def.firstMessage(prompt) }] } },
  );
}

/** Go on from a saved child, in this (later) process, with the answers to its waiting calls. */
export async function resumeChild(
  c: ChildRun,
  saved: unknown,
  answers: readonly ApprovalAnswer[],
): Promise<SuspendableRun> {
  const s = parseChildSave(saved, c.def.name);
  return runChild(c, { child: s.state, folded: s.folded }, { answers: [...answers] });
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Check a saved child before going on from it: a broken one is bad input, never a crash half-way. */
function parseChildSave(saved: unknown, agent: string): ChildSave {
  const bad = (why: string) => new AgentError('input', `the saved sub-agent state cannot be resumed: ${why}`);
  if (!isObj(saved) || saved.version !== 1) throw bad('unknown version');
  if (saved.agent !== agent) throw bad(`it belongs to agent ${JSON.stringify(saved.agent)}, not ${agent}`);
  const state = saved.state;
  if (!isObj(state) || !Array.isArray(state.history) || !isObj(state.usage) || typeof state.turns !== 'number')
    throw bad('its loop state is incomplete');
  const folded = saved.folded;
  if (!isObj(folded) || !isObj(folded.usage) || typeof folded.costUsd !== 'number' || !isObj(folded.models))
    throw bad('its spent budget is missing');
  return saved as unknown as ChildSave;
}
