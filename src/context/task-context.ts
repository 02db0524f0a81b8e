/**
 * The task context: the issue or pull request the agent acts on, as plain data (filled by the
 * action layer from the GitHub API) and rendered for the model. All of it is written by people
 * outside the maintainers' control, so every piece is sanitized and fenced; only numbers, enums
 * and GitHub-validated logins are printed outside the fences.
 */
import { createFenceNonce, cutNote, cutRaw, fenceUntrusted, markInvisible, sanitizeUntrusted } from './untrusted.js';
import { oneLine } from '../common/text.js';
import { isoTime } from '../common/time.js';

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

/** The review thread a command was asked in: its place in the diff and its earlier comments. */
export interface ReviewThreadContext {
  /** The file, as the pull request names it (its author's text). */
  path: string;
  /** The (last) line commented on; absent for an outdated comment. */
  line?: number;
  /** LEFT: the base version's line (a removed line); RIGHT: the head version's. */
  side?: 'LEFT' | 'RIGHT';
  /** A comment on several lines: the first one. */
  startLine?: number;
  startSide?: 'LEFT' | 'RIGHT';
  /** The diff hunk GitHub shows above the comment. */
  diffHunk?: string;
  /** The thread's comments; like the conversation's, only those before the trigger are shown. */
  comments: TaskComment[];
}

interface RepoLabel {
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
  /** A command asked in a review thread (an inline comment on the diff). */
  reviewThread?: ReviewThreadContext;
  /** Triage: the labels the repository has (the only ones the agent may set). */
  availableLabels?: RepoLabel[];
}

export interface RenderOptions {
  /** The run's fence nonce (fresh when omitted). */
  nonce?: string;
  maxComments?: number;
  maxCommentChars?: number;
  maxBodyChars?: number;
  maxTitleChars?: number;
  maxPatchCharsPerFile?: number;
  maxPatchCharsTotal?: number;
  maxFiles?: number;
  maxLabels?: number;
}

/**
 * The budget of untrusted text per piece. Together they bound the first request: a 1 MB comment
 * costs 4,000 characters, however it is shaped.
 */
const RENDER_DEFAULTS = {
  maxComments: 30,
  maxCommentChars: 4_000,
  maxBodyChars: 16_000,
  maxTitleChars: 300,
  maxPatchCharsPerFile: 12_000,
  maxPatchCharsTotal: 80_000,
  maxFiles: 300,
  maxLabels: 200,
} as const;

/** Raw text read per piece, as a multiple of its budget: sanitizing shrinks text, never by more. */
const RAW_FACTOR = 16;

/** A piece of the task context that did not fit its budget. */
export interface CutPiece {
  /** "the description", "comment 3 by @bob", "the diff of src/a.ts". */
  what: string;
  chars: number;
}

export interface RenderedTaskContext {
  text: string;
  /** What was cut, for the progress comment; the model sees a note in place of each cut. */
  cuts: CutPiece[];
}

export function renderTaskContext(ctx: TaskContext, opts: RenderOptions = {}): RenderedTaskContext {
  const o = { ...RENDER_DEFAULTS, ...definedOnly(opts) };
  const nonce = opts.nonce ?? createFenceNonce();
  const fence = (label: string, text: string) => fenceUntrusted(label, text, nonce);
  const cuts: CutPiece[] = [];
  const prose = (raw: string, max: number, what: string) => capPiece(raw, cuts, { max, what, kind: 'prose' });
  const what = ctx.kind === 'issue' ? 'Issue' : 'Pull request';
  const out: string[] = [];

  out.push(`${what} #${ctx.number} (${ctx.state}), opened by @${login(ctx.author)}.`);
  if (ctx.kind === 'pull_request' && ctx.baseRef && ctx.headRef) {
    out.push(
      `Branches (head into base):\n${fence('branches', `${oneLine(ctx.headRef.slice(0, 300))} -> ${oneLine(ctx.baseRef.slice(0, 300))}`)}`,
    );
  }
  out.push(`Title:\n${fence('title', oneLine(prose(ctx.title, o.maxTitleChars, 'the title')))}`);
  if (ctx.labels.length > 0)
    out.push(
      `Labels:\n${fence(
        'labels',
        ctx.labels
          .slice(0, o.maxLabels)
          .map((l) => oneLine(l.slice(0, 100)))
          .join('\n'),
      )}`,
    );
  out.push(`Description:\n${fence('description', prose(ctx.body, o.maxBodyChars, 'the description') || '(empty)')}`);

  out.push(...renderComments(ctx, o, { fence, prose }));
  if (ctx.reviewThread)
    out.push(...renderReviewThread(ctx.reviewThread, o, { trigger: ctx.trigger, fence, prose, cuts }));
  if (ctx.changedFiles) out.push(...renderChangedFiles(ctx.changedFiles, o, { fence, cuts }));
  if (ctx.availableLabels) {
    const shown = ctx.availableLabels.slice(0, o.maxLabels);
    const list = shown.map((l) =>
      l.description
        ? `${oneLine(l.name.slice(0, 100))}: ${oneLine(sanitizeUntrusted(l.description.slice(0, 200)))}`
        : oneLine(l.name.slice(0, 100)),
    );
    const more =
      ctx.availableLabels.length > shown.length ? `; ${ctx.availableLabels.length - shown.length} more not listed` : '';
    out.push(
      `Labels you may apply (${list.length}${more}; choose only from these, by exact name):\n${fence('repository-labels', list.join('\n') || '(none)')}`,
    );
  }
  if (ctx.trigger) {
    // Its words are the maintainer's request, given once, after this context: not repeated here.
    const t = ctx.trigger;
    out.push(
      `This run was started by a comment of @${login(t.author)} at ${isoOrUnknown(t.createdAt)}; its request follows the task context.`,
    );
  }
  return { text: out.join('\n\n'), cuts };
}

type Fence = (label: string, text: string) => string;
type Prose = (raw: string, max: number, what: string) => string;
type Opts = { [K in keyof typeof RENDER_DEFAULTS]: number };

/** Comments before the trigger only (what the requester saw), oldest first; the latest N if there are more. */
function renderComments(ctx: TaskContext, o: Opts, { fence, prose }: { fence: Fence; prose: Prose }): string[] {
  return renderCommentList(ctx.comments, o, {
    trigger: ctx.trigger,
    fence,
    prose,
    heading: 'Comments',
    label: 'comment',
  });
}

/**
 * The review thread the request came from: where it sits (numbers and sides outside the fences,
 * the path and the hunk inside), then the thread's earlier comments, capped like the conversation's.
 */
function renderReviewThread(
  t: ReviewThreadContext,
  o: Opts,
  { trigger, fence, prose, cuts }: { trigger?: TaskComment; fence: Fence; prose: Prose; cuts: CutPiece[] },
): string[] {
  const sideText = (side: 'LEFT' | 'RIGHT' | undefined) =>
    side === 'LEFT' ? ' of the base version (a removed line)' : side === 'RIGHT' ? ' of the head version' : '';
  const lines =
    t.line === undefined
      ? 'an outdated line (no longer in the diff)'
      : t.startLine !== undefined && t.startLine !== t.line
        ? `lines ${t.startLine}${t.startSide && t.startSide !== t.side ? sideText(t.startSide) : ''} to ${t.line}${sideText(t.side)}`
        : `line ${t.line}${sideText(t.side)}`;
  const out = [
    `The request was made in a review thread on ${lines} of this file:\n${fence('review-thread-file', quotePath(t.path.slice(0, 1000)))}`,
  ];
  if (t.diffHunk) {
    const hunk = capPiece(t.diffHunk, cuts, {
      max: o.maxPatchCharsPerFile,
      what: "the review thread's diff hunk",
      kind: 'code',
    });
    out.push(
      `The diff hunk above the thread (its last line is the one commented on):\n${fence('review-thread-hunk', hunk)}`,
    );
  }
  out.push(
    ...renderCommentList(t.comments, o, {
      trigger,
      fence,
      prose,
      heading: 'Earlier comments in this review thread',
      label: 'thread-comment',
    }),
  );
  return out;
}

/** A list of comments: those before the trigger, oldest first, the latest N, each fenced and capped. */
function renderCommentList(
  comments: readonly TaskComment[],
  o: Opts,
  {
    trigger,
    fence,
    prose,
    heading,
    label,
  }: { trigger?: TaskComment; fence: Fence; prose: Prose; heading: string; label: string },
): string[] {
  const cutoff = trigger ? Date.parse(trigger.createdAt) : Number.POSITIVE_INFINITY;
  const before = comments
    .filter((c) => c !== trigger && Date.parse(c.createdAt) < cutoff)
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
  const edited = before.filter((c) => c.updatedAt !== undefined && Date.parse(c.updatedAt) > cutoff);
  const kept = before.filter((c) => !edited.includes(c));
  const shown = kept.slice(Math.max(0, kept.length - o.maxComments));
  const out: string[] = [];
  const notes: string[] = [];
  if (kept.length > shown.length) notes.push(`${kept.length - shown.length} older comment(s) left out`);
  if (edited.length > 0) notes.push(`${edited.length} comment(s) edited after the run was requested left out`);
  if (shown.length === 0 && notes.length === 0) return [];
  out.push(`${heading} (${shown.length}, oldest first${notes.length ? `; ${notes.join('; ')}` : ''}):`);
  const what = label === 'comment' ? 'comment' : 'thread comment';
  shown.forEach((c, i) => {
    const who = `@${login(c.author)}`;
    const name = `${what[0].toUpperCase()}${what.slice(1)} ${i + 1}`;
    out.push(
      `${name} by ${who} at ${isoOrUnknown(c.createdAt)}:\n${fence(`${label}-${i + 1}`, prose(c.body, o.maxCommentChars, `${what} ${i + 1} by ${who}`))}`,
    );
  });
  return out;
}

/** The file list, then patches: capped per file and in total, cut at line ends, with notes. */
function renderChangedFiles(
  files: ChangedFile[],
  o: Opts,
  { fence, cuts }: { fence: Fence; cuts: CutPiece[] },
): string[] {
  const listed = files.slice(0, o.maxFiles);
  const list = listed.map((f, i) => {
    const from = f.previousPath ? ` (from ${quotePath(f.previousPath)})` : '';
    return `${i + 1}. ${f.status} ${quotePath(f.path)}${from} +${f.additions} -${f.deletions}`;
  });
  if (files.length > listed.length) list.push(`[${files.length - listed.length} more file(s) not listed]`);
  const out = [`Changed files (${files.length}):\n${fence('changed-files', list.join('\n'))}`];
  let left = o.maxPatchCharsTotal;
  const skipped: string[] = [];
  let skippedChars = 0;
  listed.forEach((f, i) => {
    if (f.patch === undefined) return;
    // A sliver of a patch helps no one: below a few lines' worth, list it as not shown instead.
    if (left < Math.min(f.patch.length, 200)) {
      skipped.push(String(i + 1));
      skippedChars += f.patch.length;
      return;
    }
    // Code keeps its bytes; invisible characters are shown, not dropped: a reviewer must see them.
    const text = capPiece(f.patch, cuts, {
      max: Math.min(o.maxPatchCharsPerFile, left),
      what: `the diff of ${quotePath(f.path)}`,
      kind: 'code',
    });
    left -= text.length;
    // The path is the PR author's text too: it stays inside the fence.
    out.push(`Diff of changed file ${i + 1}:\n${fence(`diff-${i + 1}`, `file: ${quotePath(f.path)}\n${text}`)}`);
  });
  if (skipped.length > 0) {
    cuts.push({ what: `the diffs of ${skipped.length} more file(s)`, chars: skippedChars });
    out.push(
      `[diff size limit reached; patches not shown for changed files ${skipped.join(', ')}. Read those files or run git diff to see them.]`,
    );
  }
  return out;
}

/**
 * One piece within its budget: at most RAW_FACTOR times the budget is read at all, then sanitized
 * (prose) or made visible (code), then cut at a line end with a `[... N characters cut ...]` note.
 */
function capPiece(
  raw: string,
  cuts: CutPiece[],
  { max, what, kind }: { max: number; what: string; kind: 'prose' | 'code' },
): string {
  const { text, cut: rawCut } = cutRaw(raw, max * RAW_FACTOR);
  const clean =
    kind === 'prose'
      ? sanitizeUntrusted(text, { maxChars: Number.POSITIVE_INFINITY }).trim()
      : markInvisible(text.replace(/\r\n?/g, '\n'));
  const shown = cutLines(clean, max);
  const n = rawCut + clean.length - shown.length;
  if (n <= 0) return shown;
  cuts.push({ what, chars: n });
  return `${shown}\n${cutNote(n)}`;
}

/** At most `max` characters, ending at a line end when one is within reach, never mid-surrogate. */
function cutLines(text: string, max: number): string {
  if (text.length <= max) return text;
  let s = text.slice(0, max);
  const last = s.charCodeAt(s.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) s = s.slice(0, -1);
  const nl = s.lastIndexOf('\n');
  return nl > max / 2 ? s.slice(0, nl) : s;
}

/** The maintainer's request (the words after `/agent <command>`): trusted, but capped like the rest. */
const MAX_REQUEST_CHARS = 8_000;

export function capRequest(
  text: string | undefined,
  max: number = MAX_REQUEST_CHARS,
): { text: string | undefined; cut?: CutPiece } {
  if (text === undefined || text.length <= max) return { text };
  const shown = cutLines(text, max);
  const n = text.length - shown.length;
  return { text: `${shown}\n${cutNote(n)}`, cut: { what: "the maintainer's request", chars: n } };
}

/** One line for the progress comment: what was cut, so a maintainer knows the model saw less. */
export function describeCuts(cuts: readonly CutPiece[]): string {
  const parts = cuts.map((c) => `${c.what} (${c.chars} characters)`);
  return `Some text was too long for the model and was cut: ${parts.join(', ')}.`;
}

/** Logins are [A-Za-z0-9-] (bots add `[bot]`); anything else is not a login we print. */
const login = (s: string) => (/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/.test(s) ? s : 'unknown-user');
/** Paths may hold newlines or quotes; JSON quoting shows them as escapes. */
const quotePath = (p: string) => (/^[\w./@+-]+$/.test(p) ? p : JSON.stringify(p));
const isoOrUnknown = (s: string) => (Number.isNaN(Date.parse(s)) ? 'an unknown time' : isoTime(new Date(s)));

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
