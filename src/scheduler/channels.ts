import type { ApprovalAnswer, ApprovalChannel, PendingApproval } from './types.js';

/**
 * The three channels every face can start from. A terminal prompt or the action's comment channel
 * are other implementations of the same one-method interface.
 */

export const NOBODY_TO_ASK =
  "it needs a person's approval and nobody can be asked in this run (it is headless, with no approval channel). " +
  'Do without it, or finish and say what you would have run.';

export const NOBODY_TO_ANSWER =
  'nobody can answer questions in this run. Make the most reasonable assumption, say which one you made, and go on.';

/** Headless runs: every ask becomes a refusal that says why, so the model can adapt. */
export function createDenyChannel(): ApprovalChannel {
  return {
    decide: async (p: PendingApproval): Promise<ApprovalAnswer> => ({
      id: p.id,
      kind: 'deny',
      reason: p.question ? NOBODY_TO_ANSWER : NOBODY_TO_ASK,
    }),
  };
}

/**
 * Approves every call policy asked about (the caller chose this, e.g. a trusted local run).
 * A question still has no one to answer it, so it is refused like in a headless run.
 */
export function createAllowChannel(): ApprovalChannel {
  return {
    decide: async (p: PendingApproval): Promise<ApprovalAnswer> =>
      p.question ? { id: p.id, kind: 'deny', reason: NOBODY_TO_ANSWER } : { id: p.id, kind: 'approve' },
  };
}

/** The action: the call waits; the loop returns a resumable state and a comment asks a maintainer. */
export function createDeferChannel(): ApprovalChannel {
  return { decide: async () => 'defer' };
}
