import type { PreparedCall } from '../tools/define-tool.js';
import { toolErrorOf } from './batch.js';
import type { CallOf } from './call-state.js';
import { answersInside } from './open-batch.js';
import type { ApprovalAnswer } from './types.js';
import { applyAnswer } from './admit.js';
import { set, type Work } from './work.js';

/**
 * Admission of a call that waited, in a later process: rebuilt from its arguments and settled with
 * its answer. An approved call runs only if it would still do what the person was shown.
 */
export async function admitAnswered(w: Work, i: number, answers: readonly ApprovalAnswer[]): Promise<void> {
  const call = w.calls[i] as CallOf<'awaiting_approval'>;
  if (call.nested) return admitNested(w, i, answersInside(call.base.id, answers));
  const answer = answers.find((a) => a.id === call.base.id)!;
  if (answer.kind === 'approve') {
    const { base, pending } = call;
    let prepared: PreparedCall;
    try {
      prepared = await w.parts.tools.prepareCall(base.name, base.args, w.parts.env);
    } catch (e) {
      const why = toolErrorOf(e);
      const message = `${base.name} was approved but can no longer be prepared (the workspace changed since it was asked): ${why.message}`;
      return set(w, i, { status: 'failed', base, error: { code: why.code, message } });
    }
    if (prepared.title !== pending.title || prepared.preview !== pending.preview) {
      // The person approved one change; do not run a different one in its name.
      const message = `${base.name} was approved, but what it would do has changed since it was asked (now: ${prepared.title}). Not run; call it again if it is still needed.`;
      return set(w, i, { status: 'failed', base, error: { code: 'failed', message } });
    }
    w.prepared.set(base.id, prepared);
  }
  await applyAnswer(w, i, answer);
}

/**
 * A call that waited inside (a sub-agent) goes on: rebuilt from its arguments, it carries on from
 * what it saved with the answers meant for it. It was allowed when it first ran.
 */
async function admitNested(w: Work, i: number, answers: ApprovalAnswer[]): Promise<void> {
  const call = w.calls[i] as CallOf<'awaiting_approval'>;
  const { base } = call;
  let prepared: PreparedCall;
  try {
    prepared = await w.parts.tools.prepareCall(base.name, base.args, w.parts.env);
  } catch (e) {
    const why = toolErrorOf(e);
    return set(w, i, {
      status: 'failed',
      base,
      error: { code: why.code, message: `${base.name} cannot go on from where it waited: ${why.message}` },
    });
  }
  w.prepared.set(base.id, prepared);
  w.resumeWith.set(base.id, { saved: call.nested!.saved, answers });
  set(w, i, { status: 'scheduled', base, title: call.title, allowedBy: { by: 'approval', always: false } });
}
