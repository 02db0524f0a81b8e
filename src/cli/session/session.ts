/**
 * `-p` with sessions: which stored session `--resume` names, what answers its waiting calls get
 * (`--approve`, `--deny`, or the next prompt), and the run state it continues with.
 */
import { randomUUID } from 'node:crypto';
import { AgentError } from '../../common/errors.js';
import { createRunState, type RunState } from '../../core/run-state.js';
import type { ApprovalMode } from '../../policy/types.js';
import type { ApprovalAnswer, PendingApproval } from '../../scheduler/types.js';
import type { LocalSessionDoc } from '../../session/codec.js';
import { readSessionListing, selectSession, type ProjectSessions } from './local.js';
import type { HeldLocalSession } from './recorder.js';

export async function readResumedSession(p: ProjectSessions, selector: string): Promise<HeldLocalSession> {
  const chosen = selectSession(await readSessionListing(p), selector, '--resume');
  return { doc: chosen.doc, version: chosen.version };
}

/** How a run goes on: the answers to the waiting calls, then the person's message (if any). */
export interface ResumePlan {
  answers: ApprovalAnswer[];
  message?: string;
}

export interface AnswerFlags {
  approve: boolean;
  deny: boolean;
  prompt?: string;
}

const declinedFor = (prompt: string) => `the user did not approve it and wrote instead: ${prompt}`;

/**
 * Pure. With --approve the calls run (a question takes the prompt as its answer; otherwise the
 * prompt follows as a message); with --deny everything waiting is refused, the prompt being the
 * reason; with neither, the prompt answers: a question gets it, a call is declined with it.
 */
export function planAnswers(pending: readonly PendingApproval[], f: AnswerFlags): ResumePlan {
  const prompt = f.prompt?.trim() || undefined;
  if (pending.length === 0) {
    if (f.approve || f.deny)
      throw new AgentError(
        'input',
        `--${f.approve ? 'approve' : 'deny'}: this session has no call waiting for an answer`,
        { site: { input: f.approve ? '--approve' : '--deny' } },
      );
    if (!prompt)
      throw new AgentError('input', 'empty prompt: pass the next message with -p "..." or on standard input', {
        site: { input: '--prompt' },
      });
    return { answers: [], message: prompt };
  }
  const questions = pending.filter((p) => p.question);
  if (f.deny)
    return { answers: pending.map((p) => ({ id: p.id, kind: 'deny', ...(prompt ? { reason: prompt } : {}) })) };
  if (f.approve) {
    if (questions.length > 0 && !prompt) {
      throw new AgentError(
        'input',
        `call ${questions[0]!.id} asks a question ("${questions[0]!.question!.question}"): answer it with -p "..."`,
        { site: { input: '--approve' } },
      );
    }
    const answers = pending.map((p): ApprovalAnswer =>
      p.question ? { id: p.id, kind: 'answer', text: prompt! } : { id: p.id, kind: 'approve' },
    );
    return questions.length === 0 && prompt ? { answers, message: prompt } : { answers };
  }
  if (!prompt) {
    const list = pending.map((p) => `${p.id} (${p.title})`).join(', ');
    throw new AgentError(
      'input',
      `this session waits for an answer to ${list}: pass --approve or --deny, or answer with -p "..."`,
      { site: { input: '--resume' } },
    );
  }
  return {
    answers: pending.map((p): ApprovalAnswer =>
      p.question ? { id: p.id, kind: 'answer', text: prompt } : { id: p.id, kind: 'deny', reason: declinedFor(prompt) },
    ),
  };
}

/** The stored state to continue, with the model and mode the flags ask for, if they ask. */
export function restoredState(doc: LocalSessionDoc, o: { model?: string; mode?: ApprovalMode }): RunState {
  const state = structuredClone(doc.state);
  if (o.model) state.model = o.model;
  if (o.mode) state.mode = o.mode;
  return state;
}

export const newState = (model: string, mode: ApprovalMode): RunState => createRunState(randomUUID(), model, mode);
