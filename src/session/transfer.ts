/**
 * A session moved between the Action and a developer's machine, only when the developer asks
 * (`agent-action session export|import`). The run state travels unchanged (history verbatim, open
 * batch, added rules, tokens, cost); what each side adds is its own: the Action's thread, approval
 * request and work-tree snapshot; the CLI's workspace, title and status. Pure.
 */
import { AgentError } from '../common/errors.js';
import {
  SESSION_VERSION,
  sequenceOf,
  type LocalSessionDoc,
  type SessionDoc,
  type ThreadRef,
  type WorktreeSnapshot,
} from './codec.js';
import { isoTime } from '../common/time.js';

/** The Action's session as a local one: the calls it waits on still wait; its thread is remembered. */
export function localFromAction(doc: SessionDoc, root: string, now: Date): LocalSessionDoc {
  // Calls wait while the batch is open (a question asked, or claimed by a run that then died).
  const pending = doc.state.open ? doc.pending : [];
  const title =
    doc.trigger.instructions ||
    `${doc.trigger.command} on ${doc.repository.owner}/${doc.repository.repo}#${doc.thread.number}`;
  return {
    version: SESSION_VERSION,
    origin: 'local',
    id: doc.id,
    root,
    title: title.replace(/\s+/g, ' ').trim().slice(0, 200),
    createdAt: doc.request.createdAt,
    updatedAt: isoTime(now),
    trigger: doc.trigger,
    requester: doc.requester,
    model: doc.model,
    mode: doc.mode,
    state: structuredClone(doc.state),
    pending: structuredClone(pending),
    status: pending.length > 0 ? 'awaiting_approval' : 'idle',
    importedFrom: { repository: doc.repository, thread: doc.thread, sequence: sequenceOf(doc) },
  };
}

export interface ExportTarget {
  repository: { owner: string; repo: string };
  thread: ThreadRef;
  worktree: WorktreeSnapshot;
  branch?: string;
  nonce: string;
  now: Date;
  /** How long the Action keeps the request answerable (its approval timeout). */
  ttlMs: number;
  /** The commit whose policies, settings and memory steer the resumed run (the exported HEAD). */
  trustedCommit: string;
  /** The highest sequence known of this session (on the ref now, or imported): the export is one more. */
  after: number;
}

/**
 * A local session as one a run of the Action claimed and did not finish: `/agent continue` in its
 * thread resumes it from here. A session whose calls still wait cannot go: answer them first
 * (the Action has no question comment for them).
 */
export function actionFromLocal(doc: LocalSessionDoc, t: ExportTarget): SessionDoc {
  if (doc.pending.length > 0 || doc.state.open) {
    throw new AgentError(
      'input',
      `session ${doc.id} waits for an answer to ${doc.pending.map((p) => p.title).join(', ') || 'a call'}: answer it first (agent-action --resume ${doc.id} --approve or --deny)`,
    );
  }
  const at = isoTime(t.now);
  return {
    version: SESSION_VERSION,
    id: doc.id,
    sequence: t.after + 1,
    repository: t.repository,
    thread: t.thread,
    // The task is the conversation itself: a prompt, with no instructions of its own.
    trigger: { command: 'prompt' },
    requester: doc.requester,
    model: doc.model,
    mode: doc.mode,
    state: structuredClone(doc.state),
    pending: [],
    request: {
      nonce: t.nonce,
      createdAt: at,
      expiresAt: isoTime(t.now.getTime() + t.ttlMs),
      status: 'claimed',
      claimedBy: doc.requester,
      claimedAt: at,
      answers: [],
    },
    ...(t.branch ? { branch: t.branch } : {}),
    worktree: t.worktree,
    trustedCommit: t.trustedCommit,
    updatedAt: at,
  };
}
