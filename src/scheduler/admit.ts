import { ToolFailure, type PreparedCall } from '../tools/define-tool.js';
import { nextStreak, STREAK_LIMIT, streakNote, toolErrorOf } from './batch.js';
import { blockedByHook, decideCall, policyQueryOf, stoppedByHook } from './call-hooks.js';
import type { CallBase, CallOf } from './call-state.js';
import { assertAnswersFit } from './open-batch.js';
import type { ApprovalAnswer, PendingApproval } from './types.js';
import { set, type Work } from './work.js';

/**
 * Admission of a new call, in the model's order: truncation, validation, BeforeTool hooks, policy,
 * and (maybe) a human. A call leaves admission settled, scheduled, or waiting for an answer.
 */

export const TRUNCATED_REFUSAL =
  'Not run: your previous response was cut off (it hit the output token limit), so the arguments of this ' +
  'call may be incomplete. Nothing was changed. Send the call again in a shorter response, e.g. split a large edit into smaller ones.';

export async function admit(w: Work, i: number): Promise<void> {
  const p = w.parts;
  const { base } = w.calls[i];
  const kind = p.tools.kindOf(base.name);
  if (w.opts.truncated && (kind === 'edit' || kind === 'execute')) {
    return set(w, i, { status: 'denied', base, rule: null, reason: TRUNCATED_REFUSAL });
  }
  set(w, i, { status: 'validating', base });
  const validated = await validate(w, i);
  if (!validated) return;
  const hooked = p.hooks ? await beforeToolHooks(w, i, validated) : { base, prepared: validated };
  if (!hooked) return;
  const { prepared } = hooked;
  // With a hook's rewrite, policy decides on both calls and the stricter verdict stands.
  const queries = [
    policyQueryOf(base.name, base.args, validated),
    ...(p.hooks ? [policyQueryOf(base.name, hooked.base.args, prepared)] : []),
  ];
  w.prepared.set(base.id, prepared);
  set(w, i, {
    next: {
      status: 'prepared',
      base: hooked.base,
      title: prepared.title,
      paths: [...prepared.paths],
      kind: kind ?? 'other',
    },
    diff: prepared.diff,
  });
  await decide(w, i, { prepared, queries, hookAsks: hooked.ask });
}

/** Validate and prepare; a failure settles the call and counts toward the repeated-error streak. */
async function validate(w: Work, i: number): Promise<PreparedCall | undefined> {
  const p = w.parts;
  const { base } = w.calls[i];
  try {
    if (base.waitForPrevious === 'invalid')
      throw new ToolFailure('invalid_args', `invalid arguments for ${base.name}: /wait_for_previous must be boolean`);
    const prepared = await p.tools.prepareCall(base.name, base.args, p.env);
    p.streak = nextStreak(p.streak, undefined);
    return prepared;
  } catch (e) {
    const error = toolErrorOf(e);
    p.streak = nextStreak(p.streak, { name: base.name, message: error.message });
    const message = p.streak.count >= STREAK_LIMIT ? `${error.message}\n${streakNote(p.streak.count)}` : error.message;
    set(w, i, { status: 'failed', base, error: { code: error.code, message } });
    return undefined;
  }
}

/** Policy's verdict on a prepared call: denied, scheduled, or asked about (now, or by deferring). */
async function decide(
  w: Work,
  i: number,
  c: { prepared: PreparedCall; queries: ReturnType<typeof policyQueryOf>[]; hookAsks: string | undefined },
): Promise<void> {
  const p = w.parts;
  const { base } = w.calls[i];
  const { prepared, hookAsks } = c;
  let verdict = await decideCall(p.policy, c.queries, w.opts);
  if (hookAsks !== undefined && verdict.decision === 'allow')
    verdict = {
      decision: 'ask_user',
      rule: null,
      reason: `a BeforeTool hook asked for confirmation${hookAsks ? `: ${hookAsks}` : ''}`,
    };
  if (verdict.decision === 'deny') {
    const why = verdict.rule?.denyMessage || verdict.reason;
    return set(w, i, {
      status: 'denied',
      base,
      rule: verdict.rule,
      reason: `${base.name} was not run: policy denied it. ${why}`,
    });
  }
  if (verdict.decision === 'allow' && !prepared.question) {
    return set(w, i, {
      status: 'scheduled',
      base,
      title: prepared.title,
      allowedBy: { by: 'policy', rule: verdict.rule },
    });
  }
  const pending: PendingApproval = {
    id: base.id,
    name: base.name,
    args: base.args,
    title: prepared.title,
    rule: verdict.decision === 'ask_user' ? verdict.rule : null,
  };
  if (prepared.preview !== undefined) pending.preview = prepared.preview;
  if (prepared.question) pending.question = prepared.question;
  set(w, i, { status: 'awaiting_approval', base, title: prepared.title, pending });
  await p.hooks?.notify(pending, {
    id: base.id,
    name: base.name,
    args: base.args,
    ...(prepared.mcp && { mcp: prepared.mcp }),
  });
  const answer = await p.channel.decide(pending);
  if (answer === 'defer') return;
  assertAnswersFit([pending], [answer]);
  await applyAnswer(w, i, answer);
}

/**
 * BeforeTool hooks for a validated call: blocked or stopped settles it (undefined); a rewrite is
 * validated again and becomes the call's arguments (saved with a waiting call, so a resumed run
 * runs what was asked about without running the hooks again).
 */
async function beforeToolHooks(
  w: Work,
  i: number,
  prepared: PreparedCall,
): Promise<{ base: CallBase; prepared: PreparedCall; ask?: string } | undefined> {
  const p = w.parts;
  const { base } = w.calls[i];
  const r = await p.hooks!.beforeTool(
    { id: base.id, name: base.name, args: base.args, ...(prepared.mcp && { mcp: prepared.mcp }) },
    w.opts.signal,
  );
  if (r.kind === 'block')
    return void set(w, i, { status: 'failed', base, error: { code: 'denied', message: blockedByHook(r.reason) } });
  if (r.kind === 'stop') {
    w.stopped ??= r.reason;
    return void set(w, i, { status: 'failed', base, error: { code: 'cancelled', message: stoppedByHook(r.reason) } });
  }
  const ask = r.ask !== undefined ? { ask: r.ask } : {};
  if (!r.args) return { base, prepared, ...ask };
  const rewritten: CallBase = { ...base, args: r.args };
  try {
    return { base: rewritten, prepared: await p.tools.prepareCall(base.name, r.args, p.env), ...ask };
  } catch (e) {
    const error = toolErrorOf(e);
    return void set(w, i, {
      status: 'failed',
      base: rewritten,
      error: { code: error.code, message: `Tool parameter modification by hook failed validation: ${error.message}` },
    });
  }
}

/** A human's answer to a waiting call whose prepared call is in memory. */
export async function applyAnswer(w: Work, i: number, answer: ApprovalAnswer): Promise<void> {
  const call = w.calls[i] as CallOf<'awaiting_approval'>;
  const { base, pending } = call;
  if (answer.kind === 'deny') {
    const reason = answer.reason?.trim();
    const text = pending.question
      ? `No answer to your question${reason ? `: ${reason}` : '.'}`
      : `${base.name} was not run: it was denied${reason ? `. Reason: ${reason}` : '.'}`;
    return set(w, i, { status: 'denied', base, rule: pending.rule, reason: text });
  }
  if (answer.kind === 'answer') {
    return set(w, i, {
      status: 'succeeded',
      base,
      output: answer.text.trim() || '(the user sent an empty answer)',
      forHuman: 'answered',
      ms: 0,
    });
  }
  if (answer.always) {
    const prepared = w.prepared.get(base.id);
    await w.parts.policy.allowAlways(
      prepared ? policyQueryOf(base.name, base.args, prepared) : { toolName: base.name, args: base.args },
      w.opts.mode,
    );
  }
  set(w, i, {
    status: 'scheduled',
    base,
    title: call.title,
    allowedBy: { by: 'approval', always: answer.always === true },
  });
}
