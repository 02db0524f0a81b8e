/**
 * The fake GitHub's routes for the repository, its issues, comments, labels, reactions, git refs
 * and the search API, keyed by GitHub's operationIds (the pull request routes are in
 * fake-github-pull-routes.ts). Writes to an issue move its `updated_at`, as on GitHub. Where GitHub
 * refuses, these refuse alike: a blank or too long comment, an existing ref.
 */
import {
  bodyRefusal,
  field,
  isoAt,
  notFound,
  ok,
  paged,
  refOf,
  since,
  touch,
  validationFailed,
  type RouteResult,
  type Routes,
} from './fake-github-answers.js';
import {
  commentJson,
  fullRepoJson,
  issueJson,
  labelJson,
  permissionJson,
  reactionJson,
  refJson,
  searchItemJson,
} from './fake-github-objects.js';
import { gitDataRoutes } from './fake-github-git-data.js';
import { pullRoutes } from './fake-github-pull-routes.js';
import type { FakeComment, FakeGitHubState, FakeIssue, RecordedRequest } from './fake-github.js';

export { diffLines } from './fake-github-pull-routes.js';
export { isoAt } from './fake-github-answers.js';

/** GET /issues: state, labels (all of them), since (updated_at), sort (created, updated, comments) and direction. */
function listIssues(r: RecordedRequest, s: FakeGitHubState): RouteResult {
  const want = (r.query.labels ?? '').split(',').filter(Boolean);
  const st = r.query.state ?? 'open';
  const sort = r.query.sort ?? 'created';
  const dir = (r.query.direction ?? 'desc') === 'asc' ? 1 : -1;
  const key = (i: FakeIssue) =>
    sort === 'updated'
      ? Date.parse(i.updated_at)
      : sort === 'comments'
        ? s.comments.filter((c) => c.issue_number === i.number).length
        : Date.parse(i.created_at);
  const list = [...s.issues.values()]
    .filter(
      (i) =>
        (st === 'all' || i.state === st) &&
        want.every((l) => i.labels.includes(l)) &&
        Date.parse(i.updated_at) >= since(r),
    )
    .sort((a, b) => dir * (key(a) - key(b) || a.number - b.number));
  return paged(
    r,
    list.map((i) => issueJson(s, i)),
  );
}

/**
 * GET /search/issues: the qualifiers repo:, is:issue / is:pr, is:open / is:closed / state:, label:,
 * no:label (each may be negated with -); the other words must all occur in the title or body
 * (case-insensitive). Best match first (here: newest first), or by creation with sort=created and
 * order (GitHub's default order is desc).
 */
function searchIssues(r: RecordedRequest, s: FakeGitHubState): RouteResult {
  const q = r.query.q ?? '';
  if (!q.trim()) return validationFailed({ resource: 'Search', field: 'q', code: 'missing' });
  const words: string[] = [];
  const filters: Array<(i: FakeIssue) => boolean> = [];
  for (const token of q.match(/"[^"]*"|\S+/g) ?? []) {
    const m = /^(-?)(repo|is|state|label|no):(.+)$/.exec(token);
    if (!m) {
      words.push(token.replace(/^"|"$/g, '').toLowerCase());
      continue;
    }
    const [, neg, key, raw] = m;
    const value = raw.replace(/^"|"$/g, '');
    if (key === 'no' && value !== 'label')
      return { status: 400, body: { message: `fake-github: only no:label is served, not no:${value}` } };
    const test =
      key === 'repo'
        ? () => value === `${s.owner}/${s.repo}`
        : key === 'label'
          ? (i: FakeIssue) => i.labels.includes(value)
          : key === 'no'
            ? (i: FakeIssue) => i.labels.length === 0
            : value === 'issue'
              ? (i: FakeIssue) => !i.pull
              : value === 'pr'
                ? (i: FakeIssue) => Boolean(i.pull)
                : (i: FakeIssue) => i.state === value;
    filters.push(neg ? (i) => !test(i) : test);
  }
  const hits = [...s.issues.values()]
    .filter((i) => filters.every((f) => f(i)) && words.every((w) => `${i.title}\n${i.body}`.toLowerCase().includes(w)))
    .sort((a, b) => (r.query.sort === 'created' && r.query.order === 'asc' ? a.number - b.number : b.number - a.number))
    .map((i) => searchItemJson(s, i));
  return paged(r, hits, (items) => ({
    total_count: hits.length,
    incomplete_results: false,
    search_type: 'lexical',
    items,
  }));
}

/**
 * A user's permission: a collaborator's role; anyone else gets `read` on a public repository (as
 * GitHub answers) and `none` on a private one. `permission` folds maintain into write and triage
 * into read; `role_name` keeps them.
 */
function collaboratorPermission(s: FakeGitHubState, login: string): RouteResult {
  const role = s.permissions[login] ?? (s.private ? 'none' : 'read');
  const permission = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
  return ok(permissionJson(login, permission, role));
}

/**
 * POST /graphql, which GitHub's REST description does not cover: only `query { viewer { login } }`,
 * who the token is (the account the action posts as); any other query is refused, so a new one
 * needs a deliberate answer here.
 */
export function answerGraphql(r: RecordedRequest, s: FakeGitHubState): RouteResult {
  const query = (r.body as { query?: unknown } | undefined)?.query;
  if (typeof query !== 'string' || !/^\s*query\s*\{\s*viewer\s*\{\s*login\s*\}\s*\}\s*$/.test(query))
    return { status: 400, body: { message: 'fake-github: only `query { viewer { login } }` is served' } };
  return ok({ data: { viewer: { login: s.self.login } } });
}

function createComment(s: FakeGitHubState, i: FakeIssue, r: RecordedRequest): RouteResult {
  const body = field<string>(r, 'body') ?? '';
  const refused = bodyRefusal('IssueComment', body, { tooLongCode: 'unprocessable' });
  if (refused) return refused;
  const c: FakeComment = {
    id: s.nextId++,
    issue_number: i.number,
    body,
    user: s.self,
    created_at: isoAt(s),
    updated_at: isoAt(s),
  };
  s.comments.push(c);
  touch(s, i);
  return ok(commentJson(s, c), 201);
}

function createIssue(s: FakeGitHubState, r: RecordedRequest): RouteResult {
  const body = field<string>(r, 'body');
  const refused = bodyRefusal('Issue', body, { blankAllowed: true });
  if (refused) return refused;
  const number = s.nextNumber++;
  const labels = (field<Array<string | { name?: string }>>(r, 'labels') ?? [])
    .map((l) => (typeof l === 'string' ? l : (l.name ?? '')))
    .filter(Boolean);
  const i: FakeIssue = {
    number,
    title: String(field(r, 'title')),
    body: body ?? '',
    user: s.self,
    state: 'open',
    labels,
    created_at: isoAt(s),
    updated_at: isoAt(s),
  };
  s.issues.set(number, i);
  return ok(issueJson(s, i), 201);
}

/** A reaction: 201 when new, 200 with the existing one when this user already reacted so. */
function react(s: FakeGitHubState, subject: 'issues' | 'pulls', id: number, r: RecordedRequest): RouteResult {
  const content = field<string>(r, 'content') ?? '';
  const existing = s.reactions.find(
    (x) => x.subject === subject && x.id === id && x.content === content && x.user.login === s.self.login,
  );
  if (existing)
    return ok(
      reactionJson({ ...existing, id: existing.reactionId ?? id, created_at: existing.created_at ?? isoAt(s) }),
    );
  const reaction = { subject, id, content, user: s.self, reactionId: s.nextId++, created_at: isoAt(s) };
  s.reactions.push(reaction);
  return ok(reactionJson({ ...reaction, id: reaction.reactionId }), 201);
}

export function createRoutes(): Routes {
  const routes = createIssueRoutes();
  return { ...routes, ...gitDataRoutes(routes) };
}

function createIssueRoutes(): Routes {
  const issue = (s: FakeGitHubState, n: string) => s.issues.get(Number(n));
  const comment = (s: FakeGitHubState, id: string) => s.comments.find((x) => x.id === Number(id));
  return {
    'repos/get': (_p, _r, s) => ok(fullRepoJson(s)),
    'repos/get-collaborator-permission-level': (p, _r, s) => collaboratorPermission(s, p.username),
    'search/issues-and-pull-requests': (_p, r, s) => searchIssues(r, s),
    'issues/list-labels-for-repo': (_p, r, s) =>
      paged(
        r,
        s.labels.map((l) => labelJson(s, l.name)),
      ),
    'issues/list-for-repo': (_p, r, s) => listIssues(r, s),
    'issues/create': (_p, r, s) => createIssue(s, r),
    'issues/get': (p, _r, s) => {
      const i = issue(s, p.issue_number);
      return i ? ok(issueJson(s, i)) : notFound();
    },
    'issues/list-comments': (p, r, s) => {
      if (!issue(s, p.issue_number)) return notFound();
      return paged(
        r,
        s.comments
          .filter((c) => c.issue_number === Number(p.issue_number) && Date.parse(c.updated_at) >= since(r))
          .map((c) => commentJson(s, c)),
      );
    },
    'issues/create-comment': (p, r, s) => {
      const i = issue(s, p.issue_number);
      return i ? createComment(s, i, r) : notFound();
    },
    'issues/get-comment': (p, _r, s) => {
      const c = comment(s, p.comment_id);
      return c ? ok(commentJson(s, c)) : notFound();
    },
    'issues/update-comment': (p, r, s) => {
      const c = comment(s, p.comment_id);
      if (!c) return notFound();
      const body = field<string>(r, 'body') ?? '';
      const refused = bodyRefusal('IssueComment', body);
      if (refused) return refused;
      c.body = body;
      c.updated_at = isoAt(s);
      const i = s.issues.get(c.issue_number);
      if (i) touch(s, i);
      return ok(commentJson(s, c));
    },
    'reactions/create-for-issue-comment': (p, r, s) =>
      comment(s, p.comment_id) ? react(s, 'issues', Number(p.comment_id), r) : notFound(),
    'reactions/create-for-pull-request-review-comment': (p, r, s) =>
      s.reviewComments.some((c) => c.id === Number(p.comment_id))
        ? react(s, 'pulls', Number(p.comment_id), r)
        : notFound(),
    'issues/add-labels': (p, r, s) => {
      const i = issue(s, p.issue_number);
      if (!i) return notFound();
      const raw = Array.isArray(r.body) ? r.body : (field<unknown[]>(r, 'labels') ?? []);
      const labels = raw.map((l) => (typeof l === 'string' ? l : String((l as { name?: string }).name ?? '')));
      for (const l of labels) {
        if (!s.labels.some((x) => x.name === l)) s.labels.push({ name: l, color: 'ededed', description: null }); // GitHub creates unknown labels
        if (!i.labels.includes(l)) i.labels.push(l);
      }
      touch(s, i);
      return ok(i.labels.map((l) => labelJson(s, l)));
    },
    'issues/remove-label': (p, _r, s) => {
      const i = issue(s, p.issue_number);
      if (!i || !i.labels.includes(p.name)) return notFound();
      i.labels = i.labels.filter((l) => l !== p.name);
      touch(s, i);
      return ok(i.labels.map((l) => labelJson(s, l)));
    },
    'git/get-ref': (p, _r, s) => {
      const sha = refOf(s, p.ref);
      return sha ? ok(refJson(s, p.ref, sha)) : notFound();
    },
    'git/create-ref': (_p, r, s) => {
      const ref = String(field(r, 'ref'));
      const sha = String(field(r, 'sha'));
      if (!/^refs\/.+\/.+/.test(ref)) return { status: 422, body: { message: `${ref} is not a valid ref name.` } };
      const name = ref.replace(/^refs\//, '');
      if (refOf(s, name)) return { status: 422, body: { message: 'Reference already exists' } };
      s.refs.set(name, sha);
      return ok(refJson(s, name, sha), 201);
    },
    'git/update-ref': (p, r, s) => {
      if (!refOf(s, p.ref)) return { status: 422, body: { message: 'Reference does not exist' } };
      const sha = String(field(r, 'sha'));
      s.refs.set(p.ref, sha);
      return ok(refJson(s, p.ref, sha));
    },
    'git/delete-ref': (p, _r, s) => {
      if (!refOf(s, p.ref)) return { status: 422, body: { message: 'Reference does not exist' } };
      s.refs.delete(p.ref);
      return { status: 204 };
    },
    ...pullRoutes(),
  };
}
