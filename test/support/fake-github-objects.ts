/**
 * The objects the fake GitHub answers with, each built from the example GitHub's OpenAPI
 * description gives for it (github-openapi.ts) and overridden with what the fake tracks: numbers,
 * ids, bodies, users, shas, labels, timestamps, states. So an answer carries every field of
 * GitHub's schema (a pull request has 42 required ones, most of them objects of their own), and
 * the fields the fake does not track keep GitHub's example values. URLs point at
 * https://api.github.test and https://github.test, the fake repository's own.
 */
import type {
  FakeComment,
  FakeFile,
  FakeGitHubState,
  FakeIssue,
  FakeReview,
  FakeReviewComment,
  FakeUser,
} from './fake-github.js';
import { specExample } from './github-openapi.js';

type Json = Record<string, any>;

const API = 'https://api.github.test';
const WEB = 'https://github.test';

/** A stable positive id for a name (GitHub's ids are integers; the fake has no user table). */
function idOf(name: string): number {
  let h = 7;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) % 2_000_000_000;
  return h + 1;
}

/** Every string of an example rewritten from octocat/Hello-World on github.com to `fullName` here. */
function retarget<T>(value: T, fullName: string): T {
  const text = JSON.stringify(value)
    .replaceAll('https://api.github.com/repos/octocat/Hello-World', `${API}/repos/${fullName}`)
    .replaceAll('https://github.com/octocat/Hello-World', `${WEB}/${fullName}`)
    .replaceAll('https://api.github.com', API)
    .replaceAll('https://github.com', WEB);
  return JSON.parse(text) as T;
}

const full = (s: FakeGitHubState) => `${s.owner}/${s.repo}`;

/** simple-user: the example's octocat, renamed; null for an account with no login (a deleted one). */
function userJson(u: FakeUser): Json {
  if (!u.login) return null as unknown as Json;
  const base = specExample('issue-comment').user as Json;
  const login = u.login;
  return {
    // GitHub escapes a bot's brackets in its URLs: /users/github-actions%5Bbot%5D.
    ...JSON.parse(JSON.stringify(base).replaceAll('/octocat', `/${encodeURIComponent(login)}`)),
    login,
    id: idOf(login),
    avatar_url: `https://avatars.githubusercontent.com/u/${idOf(login)}?v=4`,
    node_id: `U_${idOf(login)}`,
    type: u.type ?? 'User',
    site_admin: false,
  };
}

/** GitHub's author_association for a login: OWNER, COLLABORATOR (write or more), else NONE. */
function associationOf(s: FakeGitHubState, u: FakeUser): string {
  if (!u.login) return 'NONE';
  if (u.login === s.owner) return 'OWNER';
  if (u.type === 'Bot') return 'NONE';
  return ['admin', 'maintain', 'write'].includes(s.permissions[u.login] ?? 'none') ? 'COLLABORATOR' : 'NONE';
}

/** full-repository (GET /repos/{owner}/{repo}). */
export function fullRepoJson(s: FakeGitHubState): Json {
  const ex = retarget(specExample('full-repository-default-response'), full(s));
  for (const k of ['parent', 'source', 'template_repository', 'organization']) delete ex[k];
  return { ...ex, ...repoFields(s, full(s)), language: null };
}

/** repository (a pull request's head and base repo). */
function repoJson(s: FakeGitHubState, fullName: string): Json {
  const ex = retarget(specExample('pull-request').base.repo as Json, fullName);
  return { ...ex, ...repoFields(s, fullName) };
}

function repoFields(s: FakeGitHubState, fullName: string): Json {
  const [owner, name] = fullName.split('/');
  return {
    id: idOf(fullName),
    node_id: `R_${idOf(fullName)}`,
    name,
    full_name: fullName,
    owner: userJson({ login: owner }),
    private: Boolean(s.private),
    visibility: s.private ? 'private' : 'public',
    fork: fullName !== full(s),
    default_branch: s.defaultBranch,
  };
}

export function labelJson(s: FakeGitHubState, name: string): Json {
  const known = s.labels.find((l) => l.name === name);
  const ex = retarget(specExample('label-items')[0] as Json, full(s));
  return {
    ...ex,
    id: idOf(`label:${name}`),
    node_id: `LA_${idOf(`label:${name}`)}`,
    url: `${API}/repos/${full(s)}/labels/${encodeURIComponent(name)}`,
    name,
    color: known?.color ?? 'ededed',
    description: known?.description ?? null,
    default: false,
  };
}

function issueFields(s: FakeGitHubState, i: FakeIssue): Json {
  const api = `${API}/repos/${full(s)}/issues/${i.number}`;
  return {
    id: i.number * 10,
    node_id: `I_${i.number}`,
    url: api,
    repository_url: `${API}/repos/${full(s)}`,
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: `${WEB}/${full(s)}/${i.pull ? 'pull' : 'issues'}/${i.number}`,
    number: i.number,
    title: i.title,
    body: i.body,
    user: userJson(i.user),
    labels: i.labels.map((l) => labelJson(s, l)),
    state: i.state,
    state_reason: i.state === 'closed' ? 'completed' : null,
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: s.comments.filter((c) => c.issue_number === i.number).length,
    created_at: i.created_at,
    updated_at: i.updated_at,
    closed_at: i.state === 'closed' ? i.updated_at : null,
    author_association: associationOf(s, i.user),
  };
}

/** issue (GET /issues/{n}, the items of GET /issues). A pull request's carries `pull_request`. */
export function issueJson(s: FakeGitHubState, i: FakeIssue): Json {
  const ex = retarget(specExample('issue-items')[0] as Json, full(s));
  delete ex.pull_request;
  delete ex.repository;
  const out: Json = { ...ex, ...issueFields(s, i), closed_by: null };
  if (i.pull) out.pull_request = pullLinks(s, i);
  return out;
}

/** issue-search-result-item (GET /search/issues). */
export function searchItemJson(s: FakeGitHubState, i: FakeIssue): Json {
  const ex = retarget(specExample('issue-search-result-item-paginated').items[0] as Json, full(s));
  delete ex.pull_request;
  const out: Json = { ...ex, ...issueFields(s, i), score: 1 };
  if (i.pull) out.pull_request = pullLinks(s, i);
  return out;
}

function pullLinks(s: FakeGitHubState, i: FakeIssue): Json {
  return {
    url: `${API}/repos/${full(s)}/pulls/${i.number}`,
    html_url: `${WEB}/${full(s)}/pull/${i.number}`,
    diff_url: `${WEB}/${full(s)}/pull/${i.number}.diff`,
    patch_url: `${WEB}/${full(s)}/pull/${i.number}.patch`,
    merged_at: null,
  };
}

/** pull-request (GET /pulls/{n}, POST /pulls); `simple` gives pull-request-simple (GET /pulls). */
export function pullJson(s: FakeGitHubState, i: FakeIssue, simple = false): Json {
  const p = i.pull!;
  const ex = retarget(specExample('pull-request'), full(s));
  const api = `${API}/repos/${full(s)}/pulls/${i.number}`;
  const side = (ref: string, sha: string, fullName: string) => ({
    ...ex.head,
    label: `${fullName.split('/')[0]}:${ref}`,
    ref,
    sha,
    user: userJson({ login: fullName.split('/')[0] }),
    repo: repoJson(s, fullName),
  });
  const issue = issueFields(s, i);
  const pull: Json = {
    ...ex,
    ...pullLinks(s, i),
    id: i.number * 10 + 1,
    node_id: `PR_${i.number}`,
    issue_url: issue.url,
    commits_url: `${api}/commits`,
    review_comments_url: `${api}/comments`,
    review_comment_url: `${API}/repos/${full(s)}/pulls/comments{/number}`,
    comments_url: issue.comments_url,
    statuses_url: `${API}/repos/${full(s)}/statuses/${p.head.sha}`,
    number: i.number,
    state: i.state,
    locked: false,
    title: i.title,
    user: issue.user,
    body: i.body,
    labels: issue.labels,
    milestone: null,
    active_lock_reason: null,
    created_at: i.created_at,
    updated_at: i.updated_at,
    closed_at: issue.closed_at,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: side(p.head.ref, p.head.sha, p.head.repoFullName),
    base: side(p.base.ref, p.base.sha, full(s)),
    author_association: issue.author_association,
    auto_merge: null,
    draft: Boolean(p.draft),
    merged: false,
    mergeable: null,
    rebaseable: null,
    mergeable_state: 'unknown',
    merged_by: null,
    comments: issue.comments,
    review_comments: s.reviewComments.filter((c) => c.pull_number === i.number).length,
    maintainer_can_modify: false,
    commits: 1,
    additions: p.files.reduce((n, f) => n + (f.additions ?? 0), 0),
    deletions: p.files.reduce((n, f) => n + (f.deletions ?? 0), 0),
    changed_files: p.files.length,
  };
  if (!simple) return pull;
  const keys = Object.keys(specExample('pull-request-simple-items')[0] as Json);
  return Object.fromEntries(keys.map((k) => [k, pull[k]]));
}

/** diff-entry (GET /pulls/{n}/files). */
export function fileJson(s: FakeGitHubState, i: FakeIssue, f: FakeFile): Json {
  const ex = retarget(specExample('diff-entry-items')[0] as Json, full(s));
  const sha = i.pull!.head.sha;
  const additions = f.additions ?? 0;
  const deletions = f.deletions ?? 0;
  return {
    ...ex,
    sha: 'f'.repeat(40),
    filename: f.filename,
    status: f.status,
    additions,
    deletions,
    changes: additions + deletions,
    blob_url: `${WEB}/${full(s)}/blob/${sha}/${f.filename}`,
    raw_url: `${WEB}/${full(s)}/raw/${sha}/${f.filename}`,
    contents_url: `${API}/repos/${full(s)}/contents/${f.filename}?ref=${sha}`,
    patch: f.patch,
  };
}

/** issue-comment. */
export function commentJson(s: FakeGitHubState, c: FakeComment): Json {
  const ex = retarget(specExample('issue-comment'), full(s));
  return {
    ...ex,
    id: c.id,
    node_id: `IC_${c.id}`,
    url: `${API}/repos/${full(s)}/issues/comments/${c.id}`,
    html_url: `${WEB}/${full(s)}/issues/${c.issue_number}#issuecomment-${c.id}`,
    issue_url: `${API}/repos/${full(s)}/issues/${c.issue_number}`,
    body: c.body,
    user: userJson(c.user),
    created_at: c.created_at,
    updated_at: c.updated_at,
    author_association: associationOf(s, c.user),
  };
}

/** reaction. */
export function reactionJson(r: { id: number; content: string; user: FakeUser; created_at: string }): Json {
  return {
    ...specExample('reaction'),
    id: r.id,
    node_id: `REA_${r.id}`,
    user: userJson(r.user),
    content: r.content,
    created_at: r.created_at,
  };
}

const REVIEW_STATE: Record<string, string> = {
  COMMENT: 'COMMENTED',
  APPROVE: 'APPROVED',
  REQUEST_CHANGES: 'CHANGES_REQUESTED',
  PENDING: 'PENDING',
};

/** pull-request-review. */
export function reviewJson(s: FakeGitHubState, v: FakeReview): Json {
  const ex = retarget(specExample('pull-request-review'), full(s));
  const html = `${WEB}/${full(s)}/pull/${v.pull_number}#pullrequestreview-${v.id}`;
  const pr = `${API}/repos/${full(s)}/pulls/${v.pull_number}`;
  return {
    ...ex,
    id: v.id,
    node_id: `PRR_${v.id}`,
    user: userJson(v.user),
    body: v.body,
    state: REVIEW_STATE[v.event] ?? v.event,
    html_url: html,
    pull_request_url: pr,
    _links: { html: { href: html }, pull_request: { href: pr } },
    submitted_at: v.event === 'PENDING' ? undefined : (v.submitted_at ?? ex.submitted_at),
    commit_id: v.commit_id ?? s.issues.get(v.pull_number)?.pull?.head.sha ?? ex.commit_id,
    author_association: associationOf(s, v.user),
  };
}

/** pull-request-review-comment; `forReview` gives review-comment (GET /pulls/{n}/reviews/{id}/comments). */
export function reviewCommentJson(s: FakeGitHubState, c: FakeReviewComment, forReview = false): Json {
  const ex = retarget(specExample(forReview ? 'review-comment-items' : 'pull-request-review-comment'), full(s));
  const base = Array.isArray(ex) ? (ex[0] as Json) : ex;
  const url = `${API}/repos/${full(s)}/pulls/comments/${c.id}`;
  const html = `${WEB}/${full(s)}/pull/${c.pull_number}#discussion_r${c.id}`;
  const pr = `${API}/repos/${full(s)}/pulls/${c.pull_number}`;
  const out: Json = {
    ...base,
    url,
    pull_request_review_id: c.review_id,
    id: c.id,
    node_id: `PRRC_${c.id}`,
    diff_hunk: c.diff_hunk,
    path: c.path,
    position: c.line ?? null,
    original_position: c.line ?? null,
    commit_id: c.commit_id,
    original_commit_id: c.commit_id,
    user: userJson(c.user),
    body: c.body,
    created_at: c.created_at,
    updated_at: c.updated_at,
    html_url: html,
    pull_request_url: pr,
    author_association: associationOf(s, c.user),
    _links: { self: { href: url }, html: { href: html }, pull_request: { href: pr } },
    start_line: c.start_line ?? null,
    original_start_line: c.start_line ?? null,
    start_side: c.start_line ? (c.start_side ?? 'RIGHT') : null,
    line: c.line ?? null,
    original_line: c.line ?? null,
    side: c.side ?? 'RIGHT',
    subject_type: 'line',
  };
  if (c.in_reply_to_id === undefined) delete out.in_reply_to_id;
  else out.in_reply_to_id = c.in_reply_to_id;
  return out;
}

/** git-ref. */
export function refJson(s: FakeGitHubState, name: string, sha: string): Json {
  return {
    ref: `refs/${name}`,
    node_id: `REF_${idOf(name)}`,
    url: `${API}/repos/${full(s)}/git/refs/${name}`,
    object: { type: 'commit', sha, url: `${API}/repos/${full(s)}/git/commits/${sha}` },
  };
}

/** repository-collaborator-permission. */
export function permissionJson(login: string, permission: string, roleName: string): Json {
  const ex = specExample('repository-collaborator-permission-response-if-user-has-admin-permissions');
  const user = userJson({ login });
  const push = ['admin', 'maintain', 'write'].includes(roleName);
  return {
    ...ex,
    permission,
    role_name: roleName,
    user: {
      ...user,
      role_name: roleName,
      permissions: {
        admin: roleName === 'admin',
        maintain: ['admin', 'maintain'].includes(roleName),
        push,
        triage: push || roleName === 'triage',
        pull: roleName !== 'none',
      },
    },
  };
}
