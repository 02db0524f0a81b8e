/**
 * The fake GitHub's pull request routes, keyed by GitHub's operationIds: pull requests, their
 * files and diff, reviews, review comments and their replies. Where GitHub refuses, these refuse
 * alike (status, `message` and `errors` as GitHub answers them): a duplicate pull request, one
 * with no commits between base and head, an unknown head or base, a body over 65,536 characters,
 * a blank comment, a review comment on a line outside the diff or a range across two hunks.
 */
import {
  bodyRefusal,
  field,
  isoAt,
  notFound,
  ok,
  paged,
  refOf,
  unprocessable,
  validationFailed,
  type RouteResult,
  type Routes,
} from './fake-github-answers.js';
import { fileJson, pullJson, reviewCommentJson, reviewJson } from './fake-github-objects.js';
import type { FakeGitHubState, FakeIssue, FakeReview, FakeReviewComment, RecordedRequest } from './fake-github.js';

type Pull = FakeIssue & { pull: NonNullable<FakeIssue['pull']> };

function diffOf(p: Pull['pull']): string {
  return p.files
    .map((f) => {
      const a = f.status === 'added' ? '/dev/null' : `a/${f.filename}`;
      const b = f.status === 'removed' ? '/dev/null' : `b/${f.filename}`;
      return `diff --git a/${f.filename} b/${f.filename}\n--- ${a}\n+++ ${b}\n${f.patch ?? ''}\n`;
    })
    .join('');
}

/** Lines of one side that a unified-diff patch shows (context and changed lines). */
export function diffLines(patch: string, side: 'LEFT' | 'RIGHT'): Set<number> {
  const out = new Set<number>();
  let oldLine = 0;
  let newLine = 0;
  for (const line of patch.split('\n')) {
    const h = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (h) {
      oldLine = Number(h[1]);
      newLine = Number(h[2]);
      continue;
    }
    if (line.startsWith('+')) {
      if (side === 'RIGHT') out.add(newLine);
      newLine++;
    } else if (line.startsWith('-')) {
      if (side === 'LEFT') out.add(oldLine);
      oldLine++;
    } else if (line.startsWith(' ')) {
      out.add(side === 'RIGHT' ? newLine : oldLine);
      oldLine++;
      newLine++;
    }
  }
  return out;
}

/** GitHub's diff_hunk of a comment: the hunk of `patch` that shows `line`, from its header to that line. */
export function hunkOf(patch: string, line: number, side: 'LEFT' | 'RIGHT'): string {
  const lines = patch.split('\n');
  let start = 0;
  let oldLine = 0;
  let newLine = 0;
  for (const [k, l] of lines.entries()) {
    const h = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(l);
    if (h) {
      [start, oldLine, newLine] = [k, Number(h[1]), Number(h[2])];
      continue;
    }
    const left = l.startsWith('-') || l.startsWith(' ');
    const right = l.startsWith('+') || l.startsWith(' ');
    if (side === 'LEFT' ? left && oldLine === line : right && newLine === line)
      return lines.slice(start, k + 1).join('\n');
    if (left) oldLine++;
    if (right) newLine++;
  }
  return '';
}

interface Anchor {
  path: string;
  line?: number;
  side?: string;
  start_line?: number;
  start_side?: string;
}

/** Whether a comment's line (and start line) are lines the pull request's diff shows. */
function onDiff(p: Pull['pull'], c: Anchor): boolean {
  const patch = p.files.find((f) => f.filename === c.path)?.patch;
  if (!patch || c.line === undefined) return false;
  const lines = diffLines(patch, (c.side ?? 'RIGHT') as 'LEFT' | 'RIGHT');
  return (
    lines.has(c.line) &&
    (c.start_line === undefined ||
      diffLines(patch, (c.start_side ?? c.side ?? 'RIGHT') as 'LEFT' | 'RIGHT').has(c.start_line))
  );
}

/** A multi-line comment's start line is in the hunk of its line (GitHub refuses a range across hunks). */
function inOneHunk(p: Pull['pull'], c: Anchor): boolean {
  const patch = p.files.find((f) => f.filename === c.path)?.patch;
  if (!patch || c.line === undefined || c.start_line === undefined) return true;
  const header = (line: number, side: string | undefined) =>
    hunkOf(patch, line, (side ?? 'RIGHT') as 'LEFT' | 'RIGHT').split('\n')[0];
  return header(c.start_line, c.start_side ?? c.side) === header(c.line, c.side);
}

/** GitHub's refusal of a range across hunks, as its single-comment route words it. */
const ACROSS_HUNKS = 'pull_request_review_thread.start_line must be part of the same hunk as the line.';

function newReviewComment(
  s: FakeGitHubState,
  i: Pull,
  c: Anchor & { body: string },
  o: { review_id: number; in_reply_to_id?: number; commit_id?: string },
): FakeReviewComment {
  const patch = i.pull.files.find((f) => f.filename === c.path)?.patch ?? '';
  const side = (c.side ?? 'RIGHT') as 'LEFT' | 'RIGHT';
  const rc: FakeReviewComment = {
    id: s.nextId++,
    pull_number: i.number,
    review_id: o.review_id,
    path: c.path,
    line: c.line,
    side,
    start_line: c.start_line,
    start_side: c.start_side as FakeReviewComment['start_side'],
    body: c.body,
    user: s.self,
    in_reply_to_id: o.in_reply_to_id,
    commit_id: o.commit_id ?? i.pull.head.sha,
    diff_hunk: c.line === undefined ? '' : hunkOf(patch, c.line, side),
    created_at: isoAt(s),
    updated_at: isoAt(s),
  };
  s.reviewComments.push(rc);
  return rc;
}

/** POST /pulls: GitHub's refusals first (unknown branch, duplicate, no commits, long body), then the pull request. */
function createPull(s: FakeGitHubState, r: RecordedRequest): RouteResult {
  const title = field<string>(r, 'title');
  const base = field<string>(r, 'base') ?? '';
  const rawHead = field<string>(r, 'head') ?? '';
  const [headOwner, head] = rawHead.includes(':') ? rawHead.split(':', 2) : [s.owner, rawHead];
  const body = field<string>(r, 'body');
  if (!title) return validationFailed({ resource: 'PullRequest', code: 'missing_field', field: 'title' });
  const headSha = headOwner === s.owner ? refOf(s, `heads/${head}`) : undefined;
  const baseSha = refOf(s, `heads/${base}`);
  if (!baseSha) return validationFailed({ resource: 'PullRequest', field: 'base', code: 'invalid' });
  if (!headSha) return validationFailed({ resource: 'PullRequest', field: 'head', code: 'invalid' });
  const open = [...s.issues.values()].find(
    (i) =>
      i.state === 'open' &&
      i.pull?.head.ref === head &&
      i.pull.head.repoFullName === `${headOwner}/${s.repo}` &&
      i.pull.base.ref === base,
  );
  if (open)
    return validationFailed({
      resource: 'PullRequest',
      code: 'custom',
      message: `A pull request already exists for ${headOwner}:${head}.`,
    });
  const commits = s.commitsBetween?.(baseSha, headSha) ?? (baseSha === headSha ? 0 : 1);
  if (commits === 0)
    return validationFailed({
      resource: 'PullRequest',
      code: 'custom',
      message: `No commits between ${base} and ${head}`,
    });
  const refused = bodyRefusal('PullRequest', body, { blankAllowed: true });
  if (refused) return refused;
  const number = s.nextNumber++;
  const i: Pull = {
    number,
    title,
    body: body ?? '',
    user: s.self,
    state: 'open',
    labels: [],
    created_at: isoAt(s),
    updated_at: isoAt(s),
    pull: {
      head: { ref: head, sha: headSha, repoFullName: `${headOwner}/${s.repo}` },
      base: { ref: base, sha: baseSha },
      files: [],
      draft: field<boolean>(r, 'draft'),
    },
  };
  s.issues.set(number, i);
  return ok(pullJson(s, i), 201);
}

/** POST /pulls/{n}/reviews: the whole review is refused when one inline comment is off the diff. */
function createReview(s: FakeGitHubState, i: Pull, r: RecordedRequest): RouteResult {
  const b = (r.body ?? {}) as Partial<FakeReview> & { comments?: Array<Anchor & { body: string; position?: number }> };
  const event = b.event ?? 'PENDING';
  if (event === 'REQUEST_CHANGES' && !b.body?.trim())
    return unprocessable('You need to leave a comment indicating the requested changes.');
  if ((b.body?.length ?? 0) > 65_536) return unprocessable('Body is too long (maximum is 65536 characters)');
  for (const c of b.comments ?? []) {
    if (!onDiff(i.pull, c))
      return unprocessable(
        "Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank",
      );
    if (!inOneHunk(i.pull, c)) return unprocessable(ACROSS_HUNKS);
    if (!c.body?.trim()) return unprocessable("Body can't be blank");
  }
  const review: FakeReview = {
    id: s.nextId++,
    pull_number: i.number,
    body: b.body ?? '',
    event,
    commit_id: b.commit_id,
    comments: b.comments ?? [],
    user: s.self,
    submitted_at: isoAt(s),
  };
  s.reviews.push(review);
  for (const c of review.comments) newReviewComment(s, i, c, { review_id: review.id, commit_id: review.commit_id });
  return ok(reviewJson(s, review));
}

/** POST /pulls/{n}/comments: a single review comment (its own COMMENTED review), or a reply by `in_reply_to`. */
function createReviewComment(s: FakeGitHubState, i: Pull, r: RecordedRequest): RouteResult {
  const b = (r.body ?? {}) as Anchor & { body: string; commit_id?: string; in_reply_to?: number };
  const refused = bodyRefusal('PullRequestReviewComment', b.body);
  if (refused) return refused;
  if (b.in_reply_to !== undefined) return reply(s, i, b.in_reply_to, b.body);
  if (!onDiff(i.pull, b))
    return validationFailed({
      resource: 'PullRequestReviewComment',
      code: 'custom',
      field: 'pull_request_review_thread.line',
      message: 'pull_request_review_thread.line must be part of the diff',
    });
  if (!inOneHunk(i.pull, b))
    return validationFailed({
      resource: 'PullRequestReviewComment',
      code: 'custom',
      field: 'pull_request_review_thread.start_line',
      message: ACROSS_HUNKS,
    });
  const review: FakeReview = {
    id: s.nextId++,
    pull_number: i.number,
    body: '',
    event: 'COMMENT',
    commit_id: b.commit_id,
    comments: [b],
    user: s.self,
    submitted_at: isoAt(s),
  };
  s.reviews.push(review);
  return ok(reviewCommentJson(s, newReviewComment(s, i, b, { review_id: review.id, commit_id: b.commit_id })), 201);
}

/** A reply goes into the thread of `to` (GitHub threads replies under the first comment). */
function reply(s: FakeGitHubState, i: Pull, to: number, body: string): RouteResult {
  const parent = s.reviewComments.find((c) => c.id === to && c.pull_number === i.number);
  if (!parent) return notFound();
  const root = parent.in_reply_to_id ?? parent.id;
  const review: FakeReview = {
    id: s.nextId++,
    pull_number: i.number,
    body: '',
    event: 'COMMENT',
    comments: [],
    user: s.self,
    submitted_at: isoAt(s),
  };
  s.reviews.push(review);
  const rc = newReviewComment(
    s,
    i,
    { ...parent, body },
    { review_id: review.id, in_reply_to_id: root, commit_id: parent.commit_id },
  );
  rc.diff_hunk = parent.diff_hunk;
  return ok(reviewCommentJson(s, rc), 201);
}

export function pullRoutes(): Routes {
  const pull = (s: FakeGitHubState, n: string): Pull | undefined => {
    const i = s.issues.get(Number(n));
    return i?.pull ? (i as Pull) : undefined;
  };
  const review = (s: FakeGitHubState, p: Record<string, string>) =>
    s.reviews.find((v) => v.id === Number(p.review_id) && v.pull_number === Number(p.pull_number));
  return {
    'pulls/list': (_p, r, s) => {
      const head = r.query.head; // owner:branch
      const st = r.query.state ?? 'open';
      const list = [...s.issues.values()].filter(
        (i) =>
          i.pull &&
          (st === 'all' || i.state === st) &&
          (!head || `${i.pull.head.repoFullName.split('/')[0]}:${i.pull.head.ref}` === head) &&
          (!r.query.base || i.pull.base.ref === r.query.base),
      );
      return paged(
        r,
        list.map((i) => pullJson(s, i, true)),
      );
    },
    'pulls/create': (_p, r, s) => createPull(s, r),
    'pulls/get': (p, r, s) => {
      const i = pull(s, p.pull_number);
      if (!i) return notFound();
      if (String(r.headers.accept ?? '').includes('diff')) return { status: 200, body: diffOf(i.pull) };
      return ok(pullJson(s, i));
    },
    'pulls/list-files': (p, r, s) => {
      const i = pull(s, p.pull_number);
      if (!i) return notFound();
      return paged(
        r,
        i.pull.files.map((f) => fileJson(s, i, f)),
      );
    },
    'pulls/list-reviews': (p, r, s) =>
      paged(
        r,
        s.reviews.filter((v) => v.pull_number === Number(p.pull_number)).map((v) => reviewJson(s, v)),
      ),
    'pulls/get-review': (p, _r, s) => {
      const v = review(s, p);
      return v ? ok(reviewJson(s, v)) : notFound();
    },
    'pulls/list-comments-for-review': (p, r, s) => {
      if (!review(s, p)) return notFound();
      return paged(
        r,
        s.reviewComments.filter((c) => c.review_id === Number(p.review_id)).map((c) => reviewCommentJson(s, c, true)),
      );
    },
    'pulls/create-review': (p, r, s) => {
      const i = pull(s, p.pull_number);
      return i ? createReview(s, i, r) : notFound();
    },
    'pulls/list-review-comments': (p, r, s) =>
      paged(
        r,
        s.reviewComments.filter((c) => c.pull_number === Number(p.pull_number)).map((c) => reviewCommentJson(s, c)),
      ),
    'pulls/get-review-comment': (p, _r, s) => {
      const c = s.reviewComments.find((x) => x.id === Number(p.comment_id));
      return c ? ok(reviewCommentJson(s, c)) : notFound();
    },
    'pulls/create-review-comment': (p, r, s) => {
      const i = pull(s, p.pull_number);
      return i ? createReviewComment(s, i, r) : notFound();
    },
    'pulls/create-reply-for-review-comment': (p, r, s) => {
      const i = pull(s, p.pull_number);
      if (!i) return notFound();
      const body = field<string>(r, 'body') ?? '';
      return bodyRefusal('PullRequestReviewComment', body) ?? reply(s, i, Number(p.comment_id), body);
    },
  };
}
