/**
 * Event -> Command, through a table keyed by event name. Everything after this file is independent
 * of the event. A payload without the fields a command needs is skipped with a reason, never a crash.
 */
import type {
  IssueCommentEvent,
  IssuesEvent,
  PullRequestEvent,
  PullRequestReviewCommentEvent,
  PullRequestReviewEvent,
  WorkflowDispatchEvent,
} from '@octokit/webhooks-types';
import { messageOf } from '../common/errors.js';
import type { TaskKind } from '../common/task-kinds.js';
import { findProseMention } from './comment-mention.js';
import { hasActionMarker } from './markers.js';

type ReplyVerb = 'approve' | 'deny' | 'answer' | 'continue';

export interface Thread {
  number: number;
  isPullRequest: boolean;
}

export interface Requester {
  login: string;
  isBot: boolean;
}

export interface CommentRef {
  id: number;
  /**
   * issue: an issue/PR conversation comment; review: an inline pull-request review comment (in a
   * review thread); review-body: the body of a submitted review (GitHub has no reactions for reviews).
   */
  kind: 'issue' | 'review' | 'review-body';
  body: string;
  createdAt?: string;
  /** The comment's page as GitHub gives it (a review thread's `#discussion_r…` anchor): progress links it. */
  htmlUrl?: string;
  /** Review comments: where the comment sits. */
  path?: string;
  line?: number;
  /** Review comments: the rest of the place, and the thread, as the payload gives them. */
  place?: ReviewPlace;
}

/** Where an inline review comment sits, and which thread it belongs to. */
interface ReviewPlace {
  side?: 'LEFT' | 'RIGHT';
  /** A comment on several lines: its first line and side (`line` is the last). */
  startLine?: number;
  startSide?: 'LEFT' | 'RIGHT';
  /** The diff hunk GitHub shows above the comment (the PR author's text, untrusted). */
  diffHunk?: string;
  /** The thread's first comment, when this one is a reply: replies go to it. */
  inReplyTo?: number;
}

export interface Trigger {
  requester: Requester;
  thread?: Thread;
  comment?: CommentRef;
  /** Comment commands and fix labels need write permission; event-driven read-only tasks do not. */
  needsWrite: boolean;
  /**
   * A `pull_request` event from a fork: GitHub gives the job no secrets and a read-only token, so an
   * empty model key is expected there, not a misconfiguration (main.ts skips the run, saying why).
   */
  fromFork?: string;
  /**
   * The workflow itself asked (a `schedule` run, or a `mode` input its author set): there is no
   * person to authorize, and the requester is who started the run, if anyone.
   */
  fromWorkflow?: boolean;
}

export type Command =
  | { kind: TaskKind; text: string; trigger: Trigger }
  | { kind: 'triage-all'; label: string; trigger: Trigger }
  /** `mode: triage-plan`: list and split the issues that need triage (src/action/triage/). */
  | { kind: 'triage-plan'; trigger: Trigger }
  /** `mode: triage`: one shard of the plan. */
  | { kind: 'triage-shard'; issues: number[]; trigger: Trigger }
  | { kind: 'reply'; verb: ReplyVerb; args: string; trigger: Trigger & { thread: Thread; comment: CommentRef } }
  /** `/agent` alone or `/agent help`: answered with the list of commands, no model involved. */
  | { kind: 'help'; trigger: Trigger & { thread: Thread; comment: CommentRef } }
  | { kind: 'skip'; reason: string };

/** What routing needs from the inputs. */
export interface RouteOptions {
  trigger: string;
  /** `trigger-anywhere`: the trigger may stand anywhere in a comment's prose (comment-mention.ts), not only at its start. */
  triggerAnywhere?: boolean;
  prompt?: string;
  triageLabel: string;
  fixLabel: string;
  /** pull_request_target.labeled with this label starts a review; absent: pull_request_target starts nothing. */
  reviewLabel?: string;
  issueNumber?: number;
  /** A triage mode set by the workflow's author wins over the event ('event' or absent: route it). */
  mode?: 'event' | 'triage-plan' | 'triage';
  triage?: { issues: readonly number[] };
}

type Route = (payload: Record<string, unknown>, opts: RouteOptions) => Command;

const skip = (reason: string): Command => ({ kind: 'skip', reason });

const PR_REVIEW_ACTIONS = new Set(['opened', 'synchronize', 'ready_for_review', 'reopened']);

const ROUTES: Record<string, Route> = {
  issue_comment: (p, o) => {
    const e = p as unknown as IssueCommentEvent;
    if (e.action !== 'created') return skip(`issue_comment.${e.action}: only new comments are commands`);
    const number = e.issue?.number;
    if (typeof number !== 'number') return skip('issue_comment without issue.number');
    const thread = { number, isPullRequest: Boolean(e.issue.pull_request) };
    return fromComment(e.comment, thread, { ...o, kind: 'issue' });
  },
  pull_request_review_comment: (p, o) => {
    const e = p as unknown as PullRequestReviewCommentEvent;
    if (e.action !== 'created') return skip(`pull_request_review_comment.${e.action}: only new comments are commands`);
    const number = e.pull_request?.number;
    if (typeof number !== 'number') return skip('pull_request_review_comment without pull_request.number');
    return withFork(fromComment(e.comment, { number, isPullRequest: true }, { ...o, kind: 'review' }), e.pull_request);
  },
  // A submitted review whose body starts with the trigger: the body is the command, the thread the PR.
  pull_request_review: (p, o) => {
    const e = p as unknown as PullRequestReviewEvent;
    if (e.action !== 'submitted') return skip(`pull_request_review.${e.action}: only a submitted review is a command`);
    const number = e.pull_request?.number;
    if (typeof number !== 'number') return skip('pull_request_review without pull_request.number');
    const r = e.review;
    const comment: CommentLike | undefined = r && {
      id: r.id,
      body: r.body ?? '',
      user: r.user,
      created_at: r.submitted_at ?? undefined,
      html_url: r.html_url,
    };
    return withFork(
      fromComment(comment, { number, isPullRequest: true }, { ...o, kind: 'review-body' }),
      e.pull_request,
    );
  },
  pull_request: (p) => {
    const e = p as unknown as PullRequestEvent;
    if (!PR_REVIEW_ACTIONS.has(e.action)) return skip(`pull_request.${e.action} is not reviewed`);
    const pr = e.pull_request;
    if (typeof pr?.number !== 'number') return skip('pull_request without pull_request.number');
    if (pr.draft && e.action !== 'ready_for_review') return skip(`pull request #${pr.number} is a draft`);
    const requester = requesterOf(e.sender);
    if (!requester) return skip('pull_request without sender');
    return withFork(
      {
        kind: 'review',
        text: '',
        trigger: { requester, thread: { number: pr.number, isPullRequest: true }, needsWrite: false },
      },
      pr,
    );
  },
  // The base repository's secrets and a writable token, on anyone's pull request: only a label that
  // someone with write access applied starts a review (the labeller is authorized like a commenter).
  pull_request_target: (p, o) => {
    const e = p as unknown as PullRequestEvent;
    if (e.action !== 'labeled')
      return skip(`pull_request_target.${e.action}: only the review label starts a run on pull_request_target`);
    const number = e.pull_request?.number;
    const requester = requesterOf(e.sender);
    if (typeof number !== 'number' || !requester)
      return skip('pull_request_target without pull_request.number or sender');
    const label = 'label' in e ? e.label?.name : undefined;
    if (!label || !o.reviewLabel || label !== o.reviewLabel)
      return skip(`pull_request_target.labeled with '${label ?? ''}', which is not the review label`);
    return {
      kind: 'review',
      text: '',
      trigger: { requester, thread: { number, isPullRequest: true }, needsWrite: true },
    };
  },
  issues: (p, o) => {
    const e = p as unknown as IssuesEvent;
    const number = e.issue?.number;
    const requester = requesterOf(e.sender);
    if (typeof number !== 'number' || !requester) return skip(`issues.${e.action} without issue.number or sender`);
    const thread = { number, isPullRequest: false };
    if (e.action === 'opened') return { kind: 'triage', text: '', trigger: { requester, thread, needsWrite: false } };
    if (e.action !== 'labeled') return skip(`issues.${e.action} is not a command`);
    const label = 'label' in e ? e.label?.name : undefined;
    if (label && o.fixLabel && label === o.fixLabel)
      return { kind: 'fix', text: '', trigger: { requester, thread, needsWrite: true } };
    // Only the triage label re-triages: any label would loop on the labels triage itself sets.
    if (label && o.triageLabel && label === o.triageLabel)
      return { kind: 'triage', text: '', trigger: { requester, thread, needsWrite: false } };
    return skip(`issues.labeled with '${label ?? ''}', which is neither the fix nor the triage label`);
  },
  workflow_dispatch: (p, o) => {
    const requester = requesterOf((p as unknown as WorkflowDispatchEvent).sender);
    return requester ? fromSchedule(requester, o) : skip('workflow_dispatch without sender');
  },
  schedule: (_p, o) => fromSchedule({ login: 'github-actions[bot]', isBot: true }, o, true),
};

/** Never throws: an unknown event, a missing field or a malformed payload is a `skip`. */
export function routeEvent(eventName: string, payload: unknown, opts: RouteOptions): Command {
  if (opts.mode === 'triage-plan' || opts.mode === 'triage') return fromMode(eventName, payload, opts);
  const route = ROUTES[eventName];
  // A workflow author's explicit prompt wins on any event that has no command of its own.
  if (!route)
    return opts.prompt
      ? fromSchedule(requesterOf((payload as { sender?: unknown } | null)?.sender), opts)
      : skip(`event '${eventName}' is not handled`);
  if (!payload || typeof payload !== 'object') return skip(`event '${eventName}' has no payload`);
  try {
    return route(payload as Record<string, unknown>, opts);
  } catch (e) {
    return skip(`event '${eventName}' payload is missing fields (${messageOf(e)})`);
  }
}

function fromSchedule(requester: Requester | undefined, o: RouteOptions, fromWorkflow = false): Command {
  const trigger: Trigger = {
    requester: requester ?? { login: 'github-actions[bot]', isBot: true },
    thread: o.issueNumber ? { number: o.issueNumber, isPullRequest: false } : undefined,
    needsWrite: false,
    ...(fromWorkflow ? { fromWorkflow } : {}),
  };
  if (o.prompt) return { kind: 'prompt', text: o.prompt, trigger };
  if (o.issueNumber) return { kind: 'triage', text: '', trigger };
  if (o.triageLabel) return { kind: 'triage-all', label: o.triageLabel, trigger };
  return skip('no prompt input and no triage-label: nothing to do');
}

/** Any event: the mode input says what to do; whoever started the run (if anyone) is the requester. */
function fromMode(eventName: string, payload: unknown, o: RouteOptions): Command {
  const sender =
    payload && typeof payload === 'object' ? requesterOf((payload as { sender?: unknown }).sender) : undefined;
  const trigger: Trigger = {
    requester: sender ?? { login: eventName, isBot: false },
    needsWrite: false,
    fromWorkflow: true,
  };
  if (o.mode === 'triage-plan') return { kind: 'triage-plan', trigger };
  const issues = [...(o.triage?.issues ?? [])];
  return issues.length > 0
    ? { kind: 'triage-shard', issues, trigger }
    : skip('mode triage without issues: nothing to do');
}

interface CommentLike {
  id?: number;
  body?: string | null;
  user?: { login?: string; type?: string } | null;
  created_at?: string;
  html_url?: string;
  path?: string;
  line?: number | null;
  side?: string | null;
  start_line?: number | null;
  start_side?: string | null;
  diff_hunk?: string;
  in_reply_to_id?: number;
}

function fromComment(
  c: CommentLike | undefined,
  thread: Thread,
  o: RouteOptions & { kind: CommentRef['kind'] },
): Command {
  const { kind } = o;
  if (!c || typeof c.id !== 'number' || typeof c.body !== 'string') return skip('comment without id or body');
  if (hasActionMarker(c.body)) return skip('comment was written by agent-action itself');
  const requester = requesterOf(c.user);
  if (!requester) return skip('comment without author');
  const parsed = commandIn(c.body, o);
  if (!parsed)
    return skip(
      o.triggerAnywhere
        ? `comment does not mention '${o.trigger}' outside code and quotes`
        : `comment does not start with '${o.trigger}'`,
    );
  const comment: CommentRef = {
    id: c.id,
    kind,
    body: c.body,
    createdAt: c.created_at,
    htmlUrl: c.html_url,
    path: c.path,
    line: c.line ?? undefined,
    place: kind === 'review' ? placeOf(c) : undefined,
  };
  const trigger = { requester, thread, comment, needsWrite: true };
  if (parsed.kind === 'reply') return { kind: 'reply', verb: parsed.verb, args: parsed.text, trigger };
  if (parsed.kind === 'help') return { kind: 'help', trigger };
  if (parsed.kind === 'fix' && !thread.isPullRequest && kind === 'review')
    return skip('fix from a review comment needs a pull request');
  return { kind: parsed.kind, text: parsed.text, trigger };
}

/** A review comment's place in the diff and its thread, as the payload gives them (absent fields stay absent). */
function placeOf(c: CommentLike): ReviewPlace {
  const side = (s: string | null | undefined) => (s === 'LEFT' || s === 'RIGHT' ? s : undefined);
  return {
    side: side(c.side),
    startLine: c.start_line ?? undefined,
    startSide: side(c.start_side),
    diffHunk: typeof c.diff_hunk === 'string' ? c.diff_hunk : undefined,
    inReplyTo: typeof c.in_reply_to_id === 'number' ? c.in_reply_to_id : undefined,
  };
}

interface PullLike {
  head?: { repo?: { full_name?: string } | null } | null;
  base?: { repo?: { full_name?: string } | null } | null;
}

/**
 * Marks a command from a fork's pull request (its head repository is not the base one; a deleted
 * fork has none): GitHub runs these events without secrets and with a read-only token.
 */
function withFork(command: Command, pr: PullLike | undefined): Command {
  if (command.kind === 'skip' || !pr?.head || !pr.base?.repo?.full_name) return command;
  const base = pr.base.repo.full_name;
  const head = pr.head.repo === null ? 'a deleted fork' : pr.head.repo?.full_name;
  if (!head || head.toLowerCase() === base.toLowerCase()) return command;
  return { ...command, trigger: { ...command.trigger, fromFork: head } } as Command;
}

export type ParsedComment =
  | { kind: Exclude<TaskKind, 'prompt'>; text: string }
  | { kind: 'reply'; verb: ReplyVerb; text: string }
  | { kind: 'help' };

const VERBS: Record<string, ParsedComment['kind'] | ReplyVerb> = {
  fix: 'fix',
  review: 'review',
  triage: 'triage',
  approve: 'approve',
  deny: 'deny',
  answer: 'answer',
  continue: 'continue',
};
const REPLY_VERBS = new Set<string>(['approve', 'deny', 'answer', 'continue']);

/** The comment's command: from its start, or (trigger-anywhere) from its first prose mention on. */
function commandIn(body: string, o: RouteOptions): ParsedComment | undefined {
  if (!o.triggerAnywhere) return parseCommentCommand(body, o.trigger);
  const at = findProseMention(body, o.trigger);
  return at === undefined ? undefined : parseCommentCommand(body.slice(at), o.trigger);
}

/**
 * `/agent fix make it faster` -> fix. The body must start with the trigger word (leading blank
 * lines allowed) followed by a space or the end: a mid-sentence mention is not a command.
 * `/agent` alone, or `/agent help`, asks for the list of commands. Undefined when the comment is
 * not a command at all.
 */
export function parseCommentCommand(body: string, triggerWord: string): ParsedComment | undefined {
  const text = body.replace(/^\s+/, '');
  if (!text.toLowerCase().startsWith(triggerWord.toLowerCase())) return undefined;
  const rest = text.slice(triggerWord.length);
  if (rest.length > 0 && !/^\s/.test(rest)) return undefined; // "/agentfoo"
  const after = rest.trim();
  if (!after) return { kind: 'help' };
  const m = /^(\S+)(?:\s+([\s\S]*))?$/.exec(after);
  const word = (m?.[1] ?? '').toLowerCase();
  const tail = (m?.[2] ?? '').trim();
  if (word === 'help' && !tail) return { kind: 'help' };
  const verb = VERBS[word];
  if (!verb) return { kind: 'question', text: after };
  if (REPLY_VERBS.has(verb)) return { kind: 'reply', verb: verb as ReplyVerb, text: tail };
  return { kind: verb as Exclude<TaskKind, 'prompt'>, text: tail };
}

function requesterOf(user: unknown): Requester | undefined {
  const u = user as { login?: unknown; type?: unknown } | null | undefined;
  if (!u || typeof u.login !== 'string' || !u.login) return undefined;
  return { login: u.login, isBot: u.type === 'Bot' || u.login.endsWith('[bot]') };
}
