/**
 * One batched review per run, event COMMENT (never an approval). Inline comments only on lines the
 * pull request's diff shows (GitHub rejects the whole review otherwise); the rest go into the body.
 * For fork pull requests, which the token cannot push to, the agent's change becomes suggestions
 * where a hunk falls inside the diff, and a patch in a collapsed comment for the rest.
 */
import { PUBLISH_LIMITS, type RecordedReviewComment, type ReviewSeverity } from '../../tools/github/recorder.js';
import { fenceFor, makeInert, makeInertLine, type MentionBudget } from './inert-text.js';
import type { GitHubClient } from '../github-client.js';
import { formatMarker } from '../markers.js';
import { capBody } from './body-cap.js';
import type { RepoRef } from '../run-context.js';

export interface DiffSides {
  LEFT: Set<number>;
  RIGHT: Set<number>;
}

/** The old (LEFT) and new (RIGHT) line numbers a unified-diff patch shows, context included. */
export function parsePatchLines(patch: string): DiffSides {
  const sides: DiffSides = { LEFT: new Set(), RIGHT: new Set() };
  let oldNo = 0;
  let newNo = 0;
  for (const line of patch.split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
    } else if (line.startsWith('+')) sides.RIGHT.add(newNo++);
    else if (line.startsWith('-')) sides.LEFT.add(oldNo++);
    else if (line.startsWith(' ')) {
      sides.LEFT.add(oldNo++);
      sides.RIGHT.add(newNo++);
    }
  }
  return sides;
}

interface InlineComment {
  path: string;
  line: number;
  side: 'LEFT' | 'RIGHT';
  start_line?: number;
  start_side?: 'LEFT' | 'RIGHT';
  body: string;
}

export interface PlannedReview {
  inline: InlineComment[];
  /** Findings on lines outside the diff, rendered for the body. */
  outside: string[];
}

/**
 * Splits recorded comments into inline ones (every line of the range in the diff) and the rest.
 * The model's words are made inert; a suggestion keeps its bytes (it is code the author applies)
 * in a fence it cannot close, after a body that cannot leave an HTML block open.
 */
export function planReview(
  comments: readonly RecordedReviewComment[],
  files: ReadonlyMap<string, DiffSides>,
  mentions?: MentionBudget,
): PlannedReview {
  const plan: PlannedReview = { inline: [], outside: [] };
  for (const c of comments.slice(0, PUBLISH_LIMITS.reviewComments)) {
    const side = c.side ?? 'RIGHT';
    const lines = files.get(c.path)?.[side];
    const start = c.startLine !== undefined && c.startLine < c.line ? c.startLine : undefined;
    const text = `${c.severity ? `${SEVERITY_LABELS[c.severity]}\n\n` : ''}${makeInert(c.body, mentions)}`;
    const body = c.suggestion !== undefined ? `${text}\n\n${suggestionBlock(c.suggestion)}` : text;
    const inDiff = lines !== undefined && lines.has(c.line) && (start === undefined || rangeIn(lines, start, c.line));
    if (inDiff)
      plan.inline.push({
        path: c.path,
        line: c.line,
        side,
        ...(start !== undefined ? { start_line: start, start_side: side } : {}),
        body,
      });
    else
      plan.outside.push(
        `**${makeInertLine(`${c.path}:${start !== undefined ? `${start}-` : ''}${c.line}`)}**\n\n${body}`,
      );
  }
  return plan;
}

/** The first line of a finding: how much it matters, in words a reader scans for (the tool checked the value). */
const SEVERITY_LABELS: Record<ReviewSeverity, string> = {
  critical: '**Severity: critical**',
  high: '**Severity: high**',
  medium: '**Severity: medium**',
  low: '**Severity: low**',
};

function suggestionBlock(suggestion: string): string {
  const code = suggestion.replace(/\n$/, '');
  const fence = fenceFor(code);
  return `${fence}suggestion\n${code}\n${fence}`;
}

const rangeIn = (lines: Set<number>, from: number, to: number) => {
  for (let n = from; n <= to; n++) if (!lines.has(n)) return false;
  return true;
};

/** The files of a pull request with the lines their patches show. */
export async function readPullDiffSides(
  octokit: GitHubClient,
  repo: RepoRef,
  pull: number,
): Promise<Map<string, DiffSides>> {
  const files = await octokit.paginate(octokit.rest.pulls.listFiles, { ...repo, pull_number: pull, per_page: 100 });
  return new Map(files.map((f) => [f.filename, parsePatchLines(f.patch ?? '')]));
}

export interface ReviewOptions {
  octokit: GitHubClient;
  repo: RepoRef;
  pull: number;
  /** The head commit the comments refer to. */
  commitId?: string;
  summary: string;
  comments: readonly RecordedReviewComment[];
  files: ReadonlyMap<string, DiffSides>;
  /** Extra body sections (a patch for a fork): the action's own rendering, posted as it is. */
  appendix?: string;
  /** The run's mention budget, shared with its other comments. */
  mentions?: MentionBudget;
}

/** Posts the one review; returns its id and how many comments were inline. */
export async function publishReview(o: ReviewOptions): Promise<{ reviewId: number; inline: number; outside: number }> {
  const plan = planReview(o.comments, o.files, o.mentions);
  const outside = plan.outside.length
    ? `\n\n#### Findings outside the diff\n\n${plan.outside.join('\n\n---\n\n')}`
    : '';
  const body = `${makeInert(o.summary.trim(), o.mentions) || 'Review by agent-action.'}${outside}${o.appendix ? `\n\n${o.appendix}` : ''}`;
  const { data } = await o.octokit.rest.pulls.createReview({
    ...o.repo,
    pull_number: o.pull,
    event: 'COMMENT',
    body: capBody(body),
    ...(o.commitId ? { commit_id: o.commitId } : {}),
    comments: markedInline(plan.inline),
  });
  return { reviewId: data.id, inline: plan.inline.length, outside: plan.outside.length };
}

/**
 * Inline comments carry the action's hidden marker like its issue comments: an inline comment is a
 * `pull_request_review_comment` event, which routes commands. Posted with a token that triggers
 * workflows (a PAT, an App token), a model-written `/agent approve` would otherwise answer the
 * thread's pending question as that token's user.
 */
function markedInline(comments: readonly InlineComment[]): InlineComment[] {
  return comments.map((c) => ({ ...c, body: `${capBody(c.body)}\n\n${formatMarker('review-comment')}` }));
}

interface Hunk {
  path: string;
  oldStart: number;
  oldCount: number;
  newLines: string[];
  text: string;
}

/** Hunks of a zero-context diff (`git diff -U0`), per file, with the new text of each. */
function parseZeroContextDiff(diff: string): Hunk[] {
  const hunks: Hunk[] = [];
  let path = '';
  let cur: Hunk | undefined;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      cur = undefined;
      path = '';
    } else if (line.startsWith('+++ ')) path = line.slice(4).replace(/^b\//, '');
    else if (line.startsWith('--- ')) continue;
    else if (line.startsWith('@@')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!m) continue;
      cur = {
        path,
        oldStart: Number(m[1]),
        oldCount: m[2] === undefined ? 1 : Number(m[2]),
        newLines: [],
        text: `${line}\n`,
      };
      hunks.push(cur);
    } else if (cur && (line.startsWith('+') || line.startsWith('-') || line.startsWith('\\'))) {
      cur.text += `${line}\n`;
      if (line.startsWith('+')) cur.newLines.push(line.slice(1));
    }
  }
  return hunks;
}

/**
 * A fork's change as review comments: a hunk that replaces lines the pull request's diff shows
 * becomes a suggestion; pure insertions, deletions of whole files and hunks outside the diff go to
 * the returned patch text (`rest`), which the caller posts collapsed.
 */
export function suggestionsFromDiff(
  diff: string,
  files: ReadonlyMap<string, DiffSides>,
): { comments: RecordedReviewComment[]; rest: string[] } {
  const comments: RecordedReviewComment[] = [];
  const rest: string[] = [];
  for (const h of parseZeroContextDiff(diff)) {
    const right = files.get(h.path)?.RIGHT;
    const end = h.oldStart + h.oldCount - 1;
    if (h.path !== '/dev/null' && h.oldCount > 0 && right && rangeIn(right, h.oldStart, end)) {
      comments.push({
        path: h.path,
        line: end,
        startLine: h.oldCount > 1 ? h.oldStart : undefined,
        body: 'Suggested change:',
        suggestion: h.newLines.join('\n'),
      });
    } else {
      rest.push(`--- a/${h.path}\n+++ b/${h.path}\n${h.text}`);
    }
  }
  return { comments, rest };
}

/** The patch verbatim (so `git apply` takes it as it is) in a fence it cannot close. */
export function collapsedPatch(patch: string): string {
  const code = patch.replace(/\n$/, '');
  const fence = fenceFor(code);
  return `<details><summary>Patch (apply with <code>git apply</code>)</summary>\n\n${fence}diff\n${code}\n${fence}\n\n</details>`;
}
