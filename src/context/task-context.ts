/**
 * The task context: the issue or pull request the agent acts on, as plain data (filled by the
 * action layer from the GitHub API) and rendered for the model. All of it is written by people
 * outside the maintainers' control, so every piece is sanitized and fenced; only numbers, enums
 * and GitHub-validated logins are printed outside the fences.
 */
import { createFenceNonce, fenceUntrusted, markInvisible, sanitizeUntrusted } from './untrusted.js';

export interface TaskComment {
  author: string;
  body: string;
  /** ISO-8601. */
  createdAt: string;
  /** ISO-8601; a comment edited after the trigger is left out (it may not be what was asked about). */
  updatedAt?: string;
}

export interface ChangedFile {
  path: string;
  status: 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';
  additions: number;
  deletions: number;
  previousPath?: string;
  /** Unified diff hunk text as GitHub gives it; absent for binary or very large files. */
  patch?: string;
}

export interface RepoLabel {
  name: string;
  description?: string;
}

export interface TaskContext {
  kind: 'issue' | 'pull_request';
  number: number;
  title: string;
  body: string;
  labels: string[];
  author: string;
  state: 'open' | 'closed' | 'merged';
  /** Earlier comments; `renderTaskContext` keeps those created before the trigger, oldest first. */
  comments: TaskComment[];
  /** The comment that asked for this run (`/agent …`), if a comment did. */
  trigger?: TaskComment;
  /** Pull requests only. */
  baseRef?: string;
  headRef?: string;
  changedFiles?: ChangedFile[];
  /** Triage: the labels the repository has (the only ones the agent may set). */
  availableLabels?: RepoLabel[];
}

export interface RenderOptions {
  /** The run's fence nonce (fresh when omitted). */
  nonce?: string;
  maxComments?: number;
  maxCommentChars?: number;
  maxBodyChars?: number;
  maxPatchCharsPerFile?: number;
  maxPatchCharsTotal?: number;
  maxFiles?: number;
}

export const RENDER_DEFAULTS = {
  maxComments: 30,
  maxCommentChars: 4_000,
  maxBodyChars: 16_000,
  maxPatchCharsPerFile: 12_000,
  maxPatchCharsTotal: 80_000,
  maxFiles: 300,
} as const;

export function renderTaskContext(ctx: TaskContext, opts: RenderOptions = {}): string {
  const o = { ...RENDER_DEFAULTS, ...definedOnly(opts) };
  const nonce = opts.nonce ?? createFenceNonce();
  const fence = (label: string, text: string) => fenceUntrusted(label, text, nonce);
  const what = ctx.kind === 'issue' ? 'Issue' : 'Pull request';
  const out: string[] = [];

  out.push(`${what} #${ctx.number} (${ctx.state}), opened by @${login(ctx.author)}.`);
  if (ctx.kind === 'pull_request' && ctx.baseRef && ctx.headRef) {
    out.push(`Branches (head into base):\n${fence('branches', `${oneLine(ctx.headRef)} -> ${oneLine(ctx.baseRef)}`)}`);
  }
  out.push(`Title:\n${fence('title', oneLine(sanitizeUntrusted(ctx.title)))}`);
  if (ctx.labels.length > 0) out.push(`Labels:\n${fence('labels', ctx.labels.map((l) => oneLine(l)).join('\n'))}`);
  out.push(`Description:\n${fence('description', cap(sanitizeUntrusted(ctx.body), o.maxBodyChars, 'description') || '(empty)')}`);

  out.push(...renderComments(ctx, o, fence));
  if (ctx.changedFiles) out.push(...renderChangedFiles(ctx.changedFiles, o, fence));
  if (ctx.availableLabels) {
    const list = ctx.availableLabels.map((l) => (l.description ? `${oneLine(l.name)}: ${oneLine(sanitizeUntrusted(l.description))}` : oneLine(l.name)));
    out.push(`Labels this repository has (${list.length}; choose only from these, by exact name):\n${fence('repository-labels', list.join('\n') || '(none)')}`);
  }
  if (ctx.trigger) {
    const t = ctx.trigger;
    out.push(`The comment that started this run, by @${login(t.author)} at ${isoOrUnknown(t.createdAt)}:\n${fence('trigger-comment', cap(sanitizeUntrusted(t.body), o.maxCommentChars, 'comment'))}`);
  }
  return out.join('\n\n');
}

type Fence = (label: string, text: string) => string;
type Opts = { [K in keyof typeof RENDER_DEFAULTS]: number };

/** Comments before the trigger only (what the requester saw), oldest first; the latest N if there are more. */
function renderComments(ctx: TaskContext, o: Opts, fence: Fence): string[] {
  const cutoff = ctx.trigger ? Date.parse(ctx.trigger.createdAt) : Number.POSITIVE_INFINITY;
  const before = ctx.comments
    .filter((c) => c !== ctx.trigger && Date.parse(c.createdAt) < cutoff)
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
  const edited = before.filter((c) => c.updatedAt !== undefined && Date.parse(c.updatedAt) > cutoff);
  const kept = before.filter((c) => !edited.includes(c));
  const shown = kept.slice(Math.max(0, kept.length - o.maxComments));
  const out: string[] = [];
  const notes: string[] = [];
  if (kept.length > shown.length) notes.push(`${kept.length - shown.length} older comment(s) left out`);
  if (edited.length > 0) notes.push(`${edited.length} comment(s) edited after the run was requested left out`);
  if (shown.length === 0 && notes.length === 0) return [];
  out.push(`Comments (${shown.length}, oldest first${notes.length ? `; ${notes.join('; ')}` : ''}):`);
  shown.forEach((c, i) => {
    out.push(`Comment ${i + 1} by @${login(c.author)} at ${isoOrUnknown(c.createdAt)}:\n${fence(`comment-${i + 1}`, cap(sanitizeUntrusted(c.body), o.maxCommentChars, 'comment'))}`);
  });
  return out;
}

/** The file list, then patches: capped per file and in total, cut at line ends, with notes. */
function renderChangedFiles(files: ChangedFile[], o: Opts, fence: Fence): string[] {
  const listed = files.slice(0, o.maxFiles);
  const list = listed.map((f, i) => {
    const from = f.previousPath ? ` (from ${quotePath(f.previousPath)})` : '';
    return `${i + 1}. ${f.status} ${quotePath(f.path)}${from} +${f.additions} -${f.deletions}`;
  });
  if (files.length > listed.length) list.push(`[${files.length - listed.length} more file(s) not listed]`);
  const out = [`Changed files (${files.length}):\n${fence('changed-files', list.join('\n'))}`];
  let left = o.maxPatchCharsTotal;
  const skipped: string[] = [];
  listed.forEach((f, i) => {
    if (f.patch === undefined) return;
    // A sliver of a patch helps no one: below a few lines' worth, list it as not shown instead.
    if (left < Math.min(f.patch.length, 200)) {
      skipped.push(String(i + 1));
      return;
    }
    const limit = Math.min(o.maxPatchCharsPerFile, left);
    // Code keeps its bytes; invisible characters are shown, not dropped: a reviewer must see them.
    const patch = markInvisible(f.patch.replace(/\r\n?/g, '\n'));
    const text = cutLines(patch, limit);
    left -= text.length;
    const note = text.length < patch.length ? `\n[patch cut: ${countLines(text)} of ${countLines(patch)} lines shown]` : '';
    // The path is the PR author's text too: it stays inside the fence.
    out.push(`Diff of changed file ${i + 1}:\n${fence(`diff-${i + 1}`, `file: ${quotePath(f.path)}\n${text}${note}`)}`);
  });
  if (skipped.length > 0) out.push(`[diff size limit reached; patches not shown for changed files ${skipped.join(', ')}. Read those files or run git diff to see them.]`);
  return out;
}

function cap(text: string, max: number, what: string): string {
  const t = text.trim();
  if (t.length <= max) return t;
  return `${cutLines(t, max)}\n[${what} cut: ${t.length - cutLines(t, max).length} more characters not shown]`;
}

/** At most `max` characters, ending at a line end when one is within reach, never mid-surrogate. */
function cutLines(text: string, max: number): string {
  if (text.length <= max) return text;
  let s = text.slice(0, max);
  if (/[\uD800-\uDBFF]$/.test(s)) s = s.slice(0, -1);
  const nl = s.lastIndexOf('\n');
  return nl > max / 2 ? s.slice(0, nl) : s;
}

const countLines = (s: string) => s.split('\n').length;
/** Logins are [A-Za-z0-9-] (bots add `[bot]`); anything else is not a login we print. */
const login = (s: string) => (/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/.test(s) ? s : 'unknown-user');
const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ').trim();
/** Paths may hold newlines or quotes; JSON quoting shows them as escapes. */
const quotePath = (p: string) => (/^[\w./@+-]+$/.test(p) ? p : JSON.stringify(p));
const isoOrUnknown = (s: string) => (Number.isNaN(Date.parse(s)) ? 'an unknown time' : new Date(s).toISOString());

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
