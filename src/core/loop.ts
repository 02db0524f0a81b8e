import { AgentError, isAgentError, messageOf } from '../common/errors.js';
import type { LlmRole, ModelClient, ModelFailure } from '../model/client.js';
import { contextWindowOf } from '../model/pricing.js';
import type { Content, FunctionDeclaration, Usage } from '../model/wire.js';
import type { LoopHooks } from '../hooks/types.js';
import type { ApprovalMode } from '../policy/types.js';
import type { ApprovalAnswer, BatchResult, Scheduler } from '../scheduler/types.js';
import { compressHistory, shouldCompress } from './compress.js';
import type { Emit, Outcome } from './events.js';
import { alignResponseIds, repairHistory } from './history-repair.js';
import { checkLimits, timeLimitHit, type LoopLimits } from './limits.js';
import { createContentLoopDetector } from './content-loop.js';
import { replayPlan, withPlan } from './plan.js';
import { recordCalls, recordTurn } from './loop-guard.js';
import {
  instructionAfter,
  realClock,
  realTimer,
  withRetry,
  type Clock,
  type RetryDeps,
  type RetryResult,
} from './retry.js';
import type { RunState } from './run-state.js';
import { recordUsage, statsOf } from './stats.js';
import { runTurn, type TurnReply } from './turn.js';

export type { LoopLimits } from './limits.js';
export type { Clock } from './retry.js';

export interface LoopDeps {
  model: ModelClient;
  scheduler: Scheduler;
  systemInstruction: string;
  /** Built fresh per request (the SDK may mutate what it is given); async while MCP servers start. */
  tools: () => FunctionDeclaration[] | Promise<FunctionDeclaration[]>;
  limits: LoopLimits;
  signal: AbortSignal;
  mode: ApprovalMode;
  /** Injected so retry waits are instant in tests. Default: the real clock. */
  clock?: Clock;
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
  /** Tokens; compression starts at half of it. Default: the model's window from the price table. */
  contextWindow?: number;
  maxOutputTokens?: number;
  /**
   * The safe point: called after each batch's responses join the history (nothing half-done) and
   * awaited before anything else happens, so a long run can checkpoint and a crash resumes from
   * the last finished batch. Its failure ends the run.
   */
  onBatchSettled?: (state: RunState) => Promise<void>;
  /** After a turn with text and no calls: end (the default), send another user message, or stop. */
  afterTextTurn?: AfterTextTurn;
  /** After each settled batch: an outcome here ends the run (a sub-agent that called complete_task). */
  finishAfterBatch?: (state: RunState) => Outcome | undefined;
  /** What the turns' requests are for (`main`, or `subagent` in a child loop). */
  role?: LlmRole;
  temperature?: number;
  /** settings.json hooks at the loop's points (BeforeAgent, AfterAgent, PreCompress, a hook's stop). */
  hooks?: LoopHooks;
  /** The model for compression summaries when `model` is wrapped by model hooks (Gemini CLI runs none there). */
  compressionModel?: ModelClient;
}

/**
 * What a run starts from: a user message, or the answers to a waiting batch (and, when the person
 * also wrote something, their message, which joins the batch's responses in one user turn).
 */
export type LoopInput = { userMessage: Content } | { answers: ApprovalAnswer[]; userMessage?: Content };

/** What follows a turn that ended with text and no calls. */
type TextTurnDecision = { kind: 'end' } | { kind: 'continue'; message: string } | { kind: 'stop'; outcome: Outcome };

/** Decides what follows a text-only turn: the next-speaker check, or a sub-agent's completion protocol. */
export type AfterTextTurn = (
  state: RunState,
  turn: { text: string; finishReason?: string },
  ctx: { model: ModelClient; retry: RetryDeps; emit: Emit },
) => Promise<TextTurnDecision>;

/** One run of the loop: what every step reads, built once by runLoop. */
interface Run {
  state: RunState;
  deps: LoopDeps;
  emit: Emit;
  /** The caller's signal and the wall-clock deadline. */
  signal: AbortSignal;
  retry: RetryDeps;
  /** The context window, in tokens. */
  window: number;
  elapsed(): number;
  /** Why the run must stop now (a hook, the deadline, a cancel), or undefined. */
  stopped(f: ModelFailure | undefined): Outcome | undefined;
}

/** What the turns carry from one to the next. */
interface Turns {
  afterAgentRetry: boolean;
  compressionFailed: boolean;
  chant: ReturnType<typeof createContentLoopDetector>;
  /** The history as last repaired, and its length then: only what joined since is looked at. */
  repaired?: { history: Content[]; length: number };
}

/**
 * Gemini CLI's headless loop: ask the model, run its calls through the scheduler, send the results
 * back, until a turn has no calls. Returns an Outcome (never throws for model, tool or limit
 * problems) and leaves `state` JSON-serializable at every return, so a suspended or crashed run
 * resumes from it. Emits `init` first and `result` last.
 */
export async function runLoop(
  { state, input }: { state: RunState; input: LoopInput },
  deps: LoopDeps,
  faceEmit: Emit,
): Promise<Outcome> {
  const emit = withPlan(state, faceEmit);
  const clock = deps.clock ?? realClock;
  const startedAt = clock.now();
  const elapsed = () => state.elapsedMsBefore + clock.now() - startedAt;
  const deadline = createDeadline(deps, clock, elapsed());
  const signal = deadline.signal;
  const remainingMs = () => (deps.limits.maxWallMs === undefined ? undefined : deps.limits.maxWallMs - elapsed());
  const stopped = (f: ModelFailure | undefined): Outcome | undefined => {
    const hookStop = deps.hooks?.stopReason();
    if (hookStop !== undefined) return stoppedByHook(hookStop);
    if (deadline.fired()) return { status: 'limit', ...timeLimitHit(deps.limits) };
    if (deps.signal.aborted || f?.kind === 'aborted') return { status: 'cancelled' };
    return undefined;
  };
  const run: Run = {
    state,
    deps,
    emit,
    signal,
    retry: { clock, random: deps.random ?? Math.random, signal, emit, remainingMs },
    window: deps.contextWindow ?? contextWindowOf(state.model),
    elapsed,
    stopped,
  };
  const resumed = state.turns > 0 || 'answers' in input;
  emit({ type: 'init', sessionId: state.id, model: state.model, resumed });
  if (resumed) replayPlan(state, emit);
  let outcome: Outcome;
  try {
    outcome = (await takeInput(run, input)) ?? (await runTurns(run));
  } catch (e) {
    outcome = stopped(undefined) ?? { status: 'error', error: loopFailure(e) };
  }
  deadline.dispose();
  const durationMs = elapsed();
  state.elapsedMsBefore = durationMs;
  emit({ type: 'result', outcome, stats: statsOf(state, durationMs) });
  return outcome;
}

/** What the run starts from: a waiting batch settled with its answers, and the person's message. */
async function takeInput(run: Run, input: LoopInput): Promise<Outcome | undefined> {
  const { state, deps, signal, emit } = run;
  if (!('answers' in input)) return takeUserMessage(run, input.userMessage);
  if (state.open) {
    const settled = await afterBatch(
      run,
      await deps.scheduler.resume({ open: state.open, answers: input.answers }, { mode: deps.mode, signal }, emit),
    );
    if (settled) return settled;
  } else if (input.answers.length > 0) {
    return {
      status: 'error',
      error: new AgentError('input', 'there is no pending approval to answer in this session'),
    };
  }
  // No open batch and no answers: carry on from the last checkpoint (`/agent continue`).
  return input.userMessage ? takeUserMessage(run, input.userMessage) : undefined;
}

/** The person's message, past a BeforeAgent hook (which may block it or add context): an outcome when blocked. */
async function takeUserMessage(run: Run, message: Content): Promise<Outcome | undefined> {
  const text = message.parts.map((p) => p.text ?? '').join('');
  const gate = await run.deps.hooks?.beforeAgent(text, run.signal);
  if (gate?.blocked !== undefined)
    return (
      run.stopped(undefined) ?? {
        status: 'error',
        error: new AgentError('general', `a BeforeAgent hook blocked the prompt: ${gate.blocked}`),
      }
    );
  const withContext = gate?.context
    ? { ...message, parts: [...message.parts, { text: `<hook_context>${gate.context}</hook_context>` }] }
    : message;
  addUserMessage(run.state, withContext, { text, emit: run.emit });
  return undefined;
}

/** Turn after turn until one ends the run. */
async function runTurns(run: Run): Promise<Outcome> {
  const { state, deps } = run;
  const turns: Turns = { afterAgentRetry: false, compressionFailed: false, chant: createContentLoopDetector() };
  for (;;) {
    const stop = run.stopped(undefined);
    if (stop) return stop;
    const hit = checkLimits(state, deps.limits, run.elapsed());
    if (hit) return { status: 'limit', ...hit };
    if (!turns.compressionFailed && shouldCompress(state, run.window)) {
      await deps.hooks?.preCompress(run.signal);
      turns.compressionFailed = !(await compressHistory(state, {
        model: deps.compressionModel ?? deps.model,
        retry: run.retry,
        emit: run.emit,
      }));
    }
    const reply = await askModel(run, turns);
    if (!reply.ok) {
      const stop =
        run.stopped(reply.failure) ??
        ('timeLimit' in reply ? { status: 'limit' as const, ...timeLimitHit(deps.limits) } : undefined);
      return stop ?? { status: 'error', error: failureError(reply.failure) };
    }
    const ended = await afterTurn(run, turns, reply.value);
    if (ended) return ended;
  }
}

/** One model turn over the repaired history, with retries. */
async function askModel(run: Run, turns: Turns): Promise<RetryResult<TurnReply>> {
  const { state, deps, emit } = run;
  // Only what joined since the last repair is looked at: the same array, appended to. Its last
  // content then is looked at again (a person's message may have joined that turn).
  const from = state.history === turns.repaired?.history ? turns.repaired.length - 1 : 0;
  const repaired = repairHistory(state.history, from);
  if (repaired.repaired)
    emit({
      type: 'warning',
      message: `repaired the chat history (${repaired.repaired} unanswered or orphaned tool call parts)`,
    });
  state.history = repaired.history;
  turns.repaired = { history: repaired.history, length: repaired.history.length };
  const request = {
    model: state.model,
    tools: await deps.tools(),
    contents: state.history,
    signal: run.signal,
    role: deps.role ?? 'main',
    ...(deps.maxOutputTokens ? { maxOutputTokens: deps.maxOutputTokens } : {}),
    ...(deps.temperature !== undefined ? { temperature: deps.temperature } : {}),
  };
  const countUsage = (u: Usage) => recordUsage(state, state.model, u);
  const progressOf = (progress: { visible: boolean }) => ({
    emit,
    progress,
    callPrefix: `call-${state.turns + 1}`,
    watchText: turns.chant.add,
    countUsage,
  });
  return withRetry(
    (progress, previous) =>
      runTurn(
        deps.model,
        { ...request, systemInstruction: instructionAfter(deps.systemInstruction, previous) },
        progressOf(progress),
      ),
    run.retry,
  );
}

/** A finished turn joins the history; its calls run, or its text ends the run (or asks for more). */
async function afterTurn(run: Run, turns: Turns, turn: TurnReply): Promise<Outcome | undefined> {
  const { state, deps } = run;
  state.turns++;
  // An empty answer to tool results ends the turn; the API takes no empty content back.
  if (turn.content.parts.length) state.history.push(turn.content);
  const looping = turn.stopped ?? recordTurn(state, turn) ?? recordCalls(state, turn.calls);
  if (looping) return { status: 'limit', which: 'loop', message: looping };
  if (turn.calls.length === 0) {
    // An AfterAgent hook may reject the reply: its reason goes back as the next prompt.
    const after = await deps.hooks?.afterAgent(firstPromptOf(state), {
      response: turn.text,
      retrying: turns.afterAgentRetry,
      signal: run.signal,
    });
    if (after?.retry !== undefined) {
      turns.afterAgentRetry = true;
      state.history.push({ role: 'user', parts: [{ text: after.retry }] });
      return undefined;
    }
    return afterText(state, deps, { turn, ctx: { model: deps.model, retry: run.retry, emit: run.emit } });
  }
  turns.chant.reset();
  state.toolCalls += turn.calls.length;
  const truncated = turn.finishReason === 'MAX_TOKENS';
  return afterBatch(
    run,
    await deps.scheduler.run(
      turn.calls,
      { mode: deps.mode, signal: run.signal, ...(truncated ? { truncated: true } : {}) },
      run.emit,
    ),
  );
}

/** A settled batch joins the state; then the safe point's save, awaited. Returns the outcome that ends the run, if any. */
async function afterBatch(run: Run, batch: BatchResult): Promise<Outcome | undefined> {
  const settled = settleBatch(run.state, batch, run.emit) ?? run.deps.finishAfterBatch?.(run.state);
  if (settled) return settled;
  await run.deps.onBatchSettled?.(run.state);
  return undefined;
}

const loopFailure = (e: unknown): AgentError =>
  isAgentError(e) ? e : new AgentError('internal', `the loop failed: ${messageOf(e)}`, { cause: e });

/**
 * After a text-only turn: the outcome that ends the run, or undefined when the hook sent another
 * user message (shown in the stream as a user message, as Gemini CLI shows its "Please continue.").
 */
async function afterText(
  state: RunState,
  deps: LoopDeps,
  { turn, ctx }: { turn: TurnReply; ctx: Parameters<AfterTextTurn>[2] },
): Promise<Outcome | undefined> {
  if (turn.finishReason === 'MAX_TOKENS')
    ctx.emit({ type: 'warning', message: 'the final reply was cut off at the output token limit' });
  const decision = deps.afterTextTurn
    ? await deps.afterTextTurn(
        state,
        { text: turn.text, ...(turn.finishReason ? { finishReason: turn.finishReason } : {}) },
        ctx,
      )
    : { kind: 'end' as const };
  if (decision.kind === 'end') return { status: 'success', finalText: turn.text };
  if (decision.kind === 'stop') return decision.outcome;
  state.history.push({ role: 'user', parts: [{ text: decision.message }] });
  ctx.emit({ type: 'message', role: 'user', text: decision.message, delta: false });
  return undefined;
}

/**
 * The person's message joins the history. After tool responses (a resumed batch, or a session that
 * stopped after one) it joins that user turn: the API expects user and model turns to alternate.
 */
function addUserMessage(state: RunState, message: Content, { text, emit }: { text: string; emit: Emit }): void {
  const last = state.history.at(-1);
  if (last?.role === 'user')
    state.history[state.history.length - 1] = { ...last, parts: [...last.parts, ...message.parts] };
  else state.history.push(message);
  if (text) emit({ type: 'message', role: 'user', text, delta: false });
}

/**
 * Apply a batch's result: pending calls suspend the run (state.open keeps the batch), otherwise the
 * responses become the next user turn. Returns the outcome that ends the run, if any.
 */
function settleBatch(state: RunState, batch: BatchResult, emit: Emit): Outcome | undefined {
  if (batch.pending.length > 0) {
    if (!batch.open) throw new AgentError('internal', 'the scheduler returned pending calls without an open batch');
    state.open = batch.open;
    emit({ type: 'approval_request', sessionId: state.id, calls: batch.pending });
    return { status: 'awaiting_approval', pending: batch.pending };
  }
  delete state.open;
  if (batch.responses.length)
    state.history.push({ role: 'user', parts: alignResponseIds(state.history.at(-1), batch.responses) });
  if (batch.fatal) return { status: 'error', error: new AgentError('fatal_tool', batch.fatal.message) };
  if (batch.stopped !== undefined) return stoppedByHook(batch.stopped);
  return undefined;
}

/** A hook answered `continue: false`: the run ends there, successfully, as in Gemini CLI. */
const stoppedByHook = (reason: string): Outcome => ({
  status: 'success',
  finalText: `Agent execution stopped by hook: ${reason}`,
});

/** The run's prompt, for AfterAgent: the first user text of the session. */
function firstPromptOf(state: RunState): string {
  const first = state.history.find((c) => c.role === 'user' && c.parts.some((p) => typeof p.text === 'string'));
  return first?.parts.map((p) => p.text ?? '').join('') ?? '';
}

function failureError(f: ModelFailure): AgentError {
  if (f.kind === 'auth')
    return new AgentError('auth', `the Gemini API refused the credentials: ${f.message}`, { cause: f });
  return new AgentError('general', `the model request failed (${f.kind}): ${f.message}`, { cause: f });
}

/** The caller's signal plus a timer that fires when the wall-clock budget runs out. */
function createDeadline(deps: LoopDeps, clock: Clock, elapsedMs: number) {
  const ctrl = new AbortController();
  let timedOut = false;
  const onAbort = () => ctrl.abort(deps.signal.reason);
  if (deps.signal.aborted) onAbort();
  else deps.signal.addEventListener('abort', onAbort, { once: true });
  const max = deps.limits.maxWallMs;
  // On the clock's timer: a test's clock fires the deadline when its time passes.
  const cancel =
    max === undefined
      ? undefined
      : (clock.setTimer ?? realTimer)(Math.max(0, max - elapsedMs), () => {
          timedOut = true;
          ctrl.abort(new AgentError('limit', 'time limit reached'));
        });
  return {
    signal: ctrl.signal,
    fired: () => timedOut,
    dispose: () => {
      cancel?.();
      deps.signal.removeEventListener('abort', onAbort);
    },
  };
}
