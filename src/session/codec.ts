/**
 * The session document: everything a later workflow run needs to continue a suspended run, as one
 * versioned, signed JSON value (src/session/sign.ts). `parseSession` checks the signature before it
 * trusts a byte, then the shape field by field, so that a forged, corrupted or foreign document fails
 * with the reason (or the exact field at fault) instead of steering the resumed run.
 */
import { messageOf } from '../common/errors.js';
import type { RunState } from '../core/run-state.js';
import type { ApprovalMode } from '../policy/types.js';
import type { ApprovalAnswer, PendingApproval } from '../scheduler/types.js';
import type { PublishRecord } from '../tools/github/recorder.js';
import { TODO_STATUSES } from '../tools/builtin/write-todos.js';
import { signSession, verifySession, type SessionKey } from './sign.js';

/** 2: signed, and records the commit its trusted configuration came from. */
export const SESSION_VERSION = 2;

/** open: waiting for a reply; claimed: a run took it (resuming or running); finished: done. */
type RequestStatus = 'open' | 'claimed' | 'finished';

export interface ThreadRef {
  number: number;
  kind: 'issue' | 'pull_request';
}

interface TriggerRef {
  /** The command that started the session: fix, review, triage, question, prompt. */
  command: string;
  commentId?: number;
  commentUrl?: string;
  /** The maintainer's words after the command (the task's instructions), carried to the resumed run. */
  instructions?: string;
}

/** The question a maintainer is asked; single-use through its nonce. */
interface ApprovalRequest {
  nonce: string;
  createdAt: string;
  expiresAt: string;
  status: RequestStatus;
  /** The question comment, once posted (the marker in it repeats session id and nonce). */
  commentId?: number;
  /** Who claimed it and when (the replying maintainer), for "already handled" answers. */
  claimedBy?: string;
  claimedAt?: string;
  /** The answers the claiming run resumed with: `/agent continue` re-applies them after a crash. */
  answers?: ApprovalAnswer[];
}

/** The work tree's uncommitted changes against `baseCommit`, binary-safe. */
export interface WorktreeSnapshot {
  baseCommit: string;
  /** The tree id of base + changes: a restore must reproduce it exactly. */
  tree: string;
  /** `git diff --binary` output, base64 so that non-UTF-8 bytes survive JSON. */
  patchBase64: string;
}

export interface SessionDoc {
  version: typeof SESSION_VERSION;
  id: string;
  /**
   * Counts the saved versions of this session, 1 for the first: every write is one more than the
   * version it replaces. The Action keeps the highest it has seen where a push cannot rewind it (its
   * ledger comment in the thread, src/action/approval/session-ledger.ts) and refuses anything older.
   * Absent in documents written before it existed: read as 0, older than any version recorded.
   */
  sequence?: number;
  repository: { owner: string; repo: string };
  thread: ThreadRef;
  trigger: TriggerRef;
  requester: string;
  model: string;
  mode: ApprovalMode;
  /** The loop's state as it is: history verbatim, open batch, added rules, turns, tokens, cost. */
  state: RunState;
  /** The calls that wait, in the order the question comment numbers them. */
  pending: PendingApproval[];
  request: ApprovalRequest;
  /** The branch the run works on (checked out on restore), if any. */
  branch?: string;
  worktree: WorktreeSnapshot;
  /**
   * The commit policies, settings and memory were read from when the session started (a pull
   * request's base, or the commit an issue run started on); a resumed run reads them from it again.
   */
  trustedCommit: string;
  /** What the model recorded to publish (review comments, labels, replies) before suspension. */
  publish?: PublishRecord;
  updatedAt: string;
}

/** A version's sequence number; a document written before sequences existed reads as 0. */
export const sequenceOf = (doc: Pick<SessionDoc, 'sequence'>): number => doc.sequence ?? 0;

/** `doc` as the version after `previous` (the document it replaces; none for the first version). */
export const nextVersionOf = (doc: SessionDoc, previous: Pick<SessionDoc, 'sequence'> | undefined): SessionDoc => ({
  ...doc,
  sequence: (previous ? sequenceOf(previous) : 0) + 1,
});

/** idle: ready for the next prompt; running: a process holds it (a crash leaves it so); awaiting_approval: `pending` waits. */
export type LocalStatus = 'idle' | 'running' | 'awaiting_approval';

/** An MCP server an editor passed in `session/new`, as stored: names only, never env or header values. */
export interface StoredMcpServer {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  command?: string;
  args?: string[];
  url?: string;
  envNames?: string[];
  headerNames?: string[];
}

/**
 * A session the CLI or an editor (ACP) runs on a developer's machine, one file per session
 * (file-store.ts). Same version, run state (history, open batch, added rules, tokens, cost) and
 * pending calls as the Action's document, checked by the same code; no thread, no approval request
 * and no work-tree snapshot, because the files are the user's own checkout.
 * `agent-action session export|import` converts between the two.
 */
export interface LocalSessionDoc {
  version: typeof SESSION_VERSION;
  origin: 'local';
  id: string;
  /** The workspace (real path) the session belongs to. */
  root: string;
  /** The first prompt on one line: what `--list-sessions` shows. */
  title: string;
  createdAt: string;
  updatedAt: string;
  trigger: TriggerRef;
  requester: string;
  model: string;
  mode: ApprovalMode;
  state: RunState;
  pending: PendingApproval[];
  status: LocalStatus;
  mcpServers?: StoredMcpServer[];
  /** Set when the session came from the Action's ref (`session import`), with the sequence of the version imported. */
  importedFrom?: { repository: { owner: string; repo: string }; thread: ThreadRef; sequence?: number };
}

type SessionParseError = {
  code: 'bad_json' | 'unknown_version' | 'invalid' | 'unsigned' | 'wrong_key' | 'bad_signature';
  message: string;
};
export type SessionParse<D = SessionDoc> = { ok: true; doc: D } | { ok: false; error: SessionParseError };

/**
 * Stable, readable JSON (two-space indent) so a session ref can be inspected with `git show`, with
 * its signature as the last member.
 */
export function encodeSession(doc: SessionDoc, key: SessionKey): string {
  return `${JSON.stringify({ ...doc, signature: signSession(doc, key) }, null, 2)}\n`;
}

const MODES: readonly ApprovalMode[] = ['default', 'autoEdit', 'yolo', 'plan'];
const STATUSES: readonly RequestStatus[] = ['open', 'claimed', 'finished'];

/** A field check failed: carries the dotted path of the field. */
class Invalid extends Error {}

type Obj = Record<string, unknown>;

function obj(v: unknown, path: string): Obj {
  if (v === undefined) throw new Invalid(`missing field \`${path}\``);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Invalid(`\`${path}\` must be an object`);
  return v as Obj;
}
function str(o: Obj, key: string, opts: { path: string; optional?: boolean; nonEmpty?: boolean }): string | undefined {
  const { path } = opts;
  const v = o[key];
  if (v === undefined && opts.optional) return undefined;
  if (v === undefined) throw new Invalid(`missing field \`${path}.${key}\``);
  if (typeof v !== 'string') throw new Invalid(`\`${path}.${key}\` must be a string`);
  if (opts.nonEmpty && v === '') throw new Invalid(`\`${path}.${key}\` must not be empty`);
  return v;
}
function num(o: Obj, key: string, opts: { path: string; optional?: boolean; integer?: boolean }): void {
  const { path } = opts;
  const v = o[key];
  if (v === undefined && opts.optional) return;
  if (v === undefined) throw new Invalid(`missing field \`${path}.${key}\``);
  if (typeof v !== 'number' || !Number.isFinite(v) || (opts.integer && !Number.isInteger(v))) {
    throw new Invalid(`\`${path}.${key}\` must be ${opts.integer ? 'an integer' : 'a number'}`);
  }
}
function oneOf<T extends string>(
  o: Obj,
  key: string,
  { path, allowed }: { path: string; allowed: readonly T[] },
): void {
  const v = str(o, key, { path });
  if (!allowed.includes(v as T))
    throw new Invalid(`\`${path}.${key}\` is ${JSON.stringify(v)}; expected one of ${allowed.join(', ')}`);
}
function date(o: Obj, key: string, { path, optional = false }: { path: string; optional?: boolean }): void {
  const v = str(o, key, { path, optional });
  if (v !== undefined && Number.isNaN(Date.parse(v)))
    throw new Invalid(`\`${path}.${key}\` is not a date: ${JSON.stringify(v)}`);
}
function objectId(o: Obj, key: string, path: string): void {
  const v = str(o, key, { path, nonEmpty: true })!;
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(v))
    throw new Invalid(`\`${path}.${key}\` is not an object id: ${JSON.stringify(v)}`);
}
function arr(o: Obj, key: string, path: string): unknown[] {
  const v = o[key];
  if (v === undefined) throw new Invalid(`missing field \`${path}.${key}\``);
  if (!Array.isArray(v)) throw new Invalid(`\`${path}.${key}\` must be an array`);
  return v;
}

function checkState(s: Obj, path: string): void {
  str(s, 'id', { path, nonEmpty: true });
  str(s, 'model', { path });
  oneOf(s, 'mode', { path, allowed: MODES });
  arr(s, 'history', path).forEach((c, i) => {
    const content = obj(c, `${path}.history[${i}]`);
    oneOf(content, 'role', { path: `${path}.history[${i}]`, allowed: ['user', 'model'] });
    arr(content, 'parts', `${path}.history[${i}]`).forEach((p, j) => obj(p, `${path}.history[${i}].parts[${j}]`));
  });
  for (const k of ['turns', 'toolCalls']) num(s, k, { path, integer: true });
  for (const k of ['costUsd', 'elapsedMsBefore', 'lastPromptTokens']) num(s, k, { path });
  const usage = obj(s.usage, `${path}.usage`);
  for (const k of ['inputTokens', 'outputTokens', 'cachedTokens', 'thoughtTokens', 'totalTokens'])
    num(usage, k, { path: `${path}.usage` });
  obj(s.models, `${path}.models`);
  arr(s, 'recentCalls', path);
  str(s, 'snapshot', { path, optional: true });
  // The plan (write_todos) came after version 2 began: a document without it loads with no plan.
  if (s.todos !== undefined)
    arr(s, 'todos', path).forEach((t, i) => {
      const todo = obj(t, `${path}.todos[${i}]`);
      str(todo, 'description', { path: `${path}.todos[${i}]` });
      oneOf(todo, 'status', { path: `${path}.todos[${i}]`, allowed: TODO_STATUSES });
    });
  arr(s, 'addedRules', path).forEach((r, i) => {
    const rule = obj(r, `${path}.addedRules[${i}]`);
    str(rule, 'toolName', { path: `${path}.addedRules[${i}]`, nonEmpty: true });
    arr(rule, 'modes', `${path}.addedRules[${i}]`);
    str(rule, 'subagent', { path: `${path}.addedRules[${i}]`, optional: true, nonEmpty: true });
  });
  if (s.open !== undefined) {
    const open = obj(s.open, `${path}.open`);
    num(open, 'version', { path: `${path}.open`, integer: true });
    arr(open, 'calls', `${path}.open`).forEach((c, i) => {
      // A sub-agent waiting inside a call saves its own loop state there: checked like this one.
      const nested = (c as Obj | null)?.nested as Obj | undefined;
      const saved = nested?.saved as Obj | undefined;
      if (saved?.state !== undefined)
        checkState(
          obj(saved.state, `${path}.open.calls[${i}].nested.saved.state`),
          `${path}.open.calls[${i}].nested.saved.state`,
        );
    });
  }
}

function checkPending(d: Obj): void {
  arr(d, 'pending', 'session').forEach((p, i) => {
    const call = obj(p, `pending[${i}]`);
    str(call, 'id', { path: `pending[${i}]`, nonEmpty: true });
    str(call, 'name', { path: `pending[${i}]`, nonEmpty: true });
    obj(call.args, `pending[${i}].args`);
  });
}

function checkDoc(d: Obj): void {
  if (d.origin !== undefined)
    throw new Invalid(
      `it is a ${JSON.stringify(d.origin)} session, not one of the action's (see agent-action session export)`,
    );
  str(d, 'id', { path: 'session', nonEmpty: true });
  num(d, 'sequence', { path: 'session', optional: true, integer: true });
  if (typeof d.sequence === 'number' && d.sequence < 1) throw new Invalid('`session.sequence` must be at least 1');
  const repository = obj(d.repository, 'repository');
  str(repository, 'owner', { path: 'repository', nonEmpty: true });
  str(repository, 'repo', { path: 'repository', nonEmpty: true });
  const thread = obj(d.thread, 'thread');
  num(thread, 'number', { path: 'thread', integer: true });
  oneOf(thread, 'kind', { path: 'thread', allowed: ['issue', 'pull_request'] });
  const trigger = obj(d.trigger, 'trigger');
  str(trigger, 'command', { path: 'trigger', nonEmpty: true });
  num(trigger, 'commentId', { path: 'trigger', optional: true, integer: true });
  str(trigger, 'commentUrl', { path: 'trigger', optional: true });
  str(trigger, 'instructions', { path: 'trigger', optional: true });
  str(d, 'requester', { path: 'session', nonEmpty: true });
  str(d, 'model', { path: 'session' });
  oneOf(d, 'mode', { path: 'session', allowed: MODES });
  checkState(obj(d.state, 'state'), 'state');
  checkPending(d);
  const request = obj(d.request, 'request');
  str(request, 'nonce', { path: 'request', nonEmpty: true });
  date(request, 'createdAt', { path: 'request' });
  date(request, 'expiresAt', { path: 'request' });
  oneOf(request, 'status', { path: 'request', allowed: STATUSES });
  num(request, 'commentId', { path: 'request', optional: true, integer: true });
  str(request, 'claimedBy', { path: 'request', optional: true });
  date(request, 'claimedAt', { path: 'request', optional: true });
  if (request.answers !== undefined) {
    arr(request, 'answers', 'request').forEach((a, i) => {
      const answer = obj(a, `request.answers[${i}]`);
      str(answer, 'id', { path: `request.answers[${i}]`, nonEmpty: true });
      oneOf(answer, 'kind', { path: `request.answers[${i}]`, allowed: ['approve', 'deny', 'answer'] });
    });
  }
  str(d, 'branch', { path: 'session', optional: true });
  const worktree = obj(d.worktree, 'worktree');
  for (const k of ['baseCommit', 'tree']) objectId(worktree, k, 'worktree');
  objectId(d, 'trustedCommit', 'session');
  const patch = str(worktree, 'patchBase64', { path: 'worktree' })!;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(patch)) throw new Invalid('`worktree.patchBase64` is not base64');
  if (d.publish !== undefined) {
    const publish = obj(d.publish, 'publish');
    arr(publish, 'reviewComments', 'publish');
    arr(publish, 'replies', 'publish');
  }
  date(d, 'updatedAt', { path: 'session' });
  if ((d.state as Obj).id !== d.id)
    throw new Invalid(
      `\`state.id\` (${JSON.stringify((d.state as Obj).id)}) differs from the session id (${JSON.stringify(d.id)})`,
    );
}

function checkLocal(d: Obj): void {
  if (d.origin !== 'local') throw new Invalid(`\`origin\` is ${JSON.stringify(d.origin)}; a local session has "local"`);
  str(d, 'id', { path: 'session', nonEmpty: true });
  str(d, 'root', { path: 'session', nonEmpty: true });
  str(d, 'title', { path: 'session' });
  date(d, 'createdAt', { path: 'session' });
  date(d, 'updatedAt', { path: 'session' });
  str(obj(d.trigger, 'trigger'), 'command', { path: 'trigger', nonEmpty: true });
  str(d, 'requester', { path: 'session' });
  str(d, 'model', { path: 'session' });
  oneOf(d, 'mode', { path: 'session', allowed: MODES });
  checkState(obj(d.state, 'state'), 'state');
  checkPending(d);
  oneOf(d, 'status', { path: 'session', allowed: LOCAL_STATUSES });
  if (d.mcpServers !== undefined)
    arr(d, 'mcpServers', 'session').forEach((m, i) =>
      str(obj(m, `mcpServers[${i}]`), 'name', { path: `mcpServers[${i}]`, nonEmpty: true }),
    );
  if ((d.state as Obj).id !== d.id)
    throw new Invalid(
      `\`state.id\` (${JSON.stringify((d.state as Obj).id)}) differs from the session id (${JSON.stringify(d.id)})`,
    );
}

const LOCAL_STATUSES: readonly LocalStatus[] = ['idle', 'running', 'awaiting_approval'];

/**
 * Pure. Bad JSON, an unknown version, a missing, foreign or wrong signature, and every missing or
 * mistyped field give a precise error. The signature is checked before the shape: nothing of an
 * unverified document is looked at beyond its version.
 */
export function parseSession(text: string, key: SessionKey): SessionParse {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: { code: 'bad_json', message: `session document is not JSON: ${messageOf(e)}` } };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, error: { code: 'invalid', message: 'session document must be a JSON object' } };
  }
  const d = raw as Obj;
  if (d.version === undefined) return { ok: false, error: { code: 'invalid', message: 'missing field `version`' } };
  if (d.version !== SESSION_VERSION) {
    return {
      ok: false,
      error: {
        code: 'unknown_version',
        message: `session document has version ${JSON.stringify(d.version)}; this action reads version ${SESSION_VERSION}`,
      },
    };
  }
  const { signature, ...body } = d;
  const verified = verifySession(body, signature, key);
  if (!verified.ok) return { ok: false, error: { code: verified.code, message: verified.message } };
  try {
    checkDoc(body);
  } catch (e) {
    if (e instanceof Invalid)
      return { ok: false, error: { code: 'invalid', message: `session document: ${e.message}` } };
    throw e;
  }
  return { ok: true, doc: body as unknown as SessionDoc };
}

/** The same format as encodeSession, for a local session's file. */
export function encodeLocalSession(doc: LocalSessionDoc): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Pure: parseSession for the CLI's and editors' sessions, with the same field checks and errors. */
export function parseLocalSession(text: string): SessionParse<LocalSessionDoc> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: { code: 'bad_json', message: `session document is not JSON: ${messageOf(e)}` } };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, error: { code: 'invalid', message: 'session document must be a JSON object' } };
  const d = raw as Obj;
  if (d.version !== SESSION_VERSION) {
    return {
      ok: false,
      error: {
        code: 'unknown_version',
        message: `session document has version ${JSON.stringify(d.version)}; this version of agent-action reads version ${SESSION_VERSION}`,
      },
    };
  }
  try {
    checkLocal(d);
  } catch (e) {
    if (e instanceof Invalid)
      return { ok: false, error: { code: 'invalid', message: `session document: ${e.message}` } };
    throw e;
  }
  return { ok: true, doc: raw as LocalSessionDoc };
}
