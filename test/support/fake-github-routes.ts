/**
 * The REST routes of the fake GitHub (test/support/fake-github.ts), as a table of
 * [method, path pattern, handler]. Paths are relative to /repos/{owner}/{repo}, except the
 * top-level ones in TOP_ROUTES (the search API). List routes paginate as GitHub does: `per_page`
 * (default 30, at most 100), `page`, and a `link` header with `next`, `last`, `prev` and `first`
 * URLs, which Octokit's paginate follows. Writes to an issue move its `updated_at`, as on GitHub.
 */
import type { FakeComment, FakeGitHubState, FakeIssue, FakeReview, RecordedRequest } from './fake-github.js';

type RouteResult = { status: number; body?: unknown; headers?: Record<string, string> };
type Handler = (m: RegExpExecArray, req: RecordedRequest, s: FakeGitHubState) => RouteResult;
export type Route = [string, RegExp, Handler];

const ok = (body: unknown, status = 200): RouteResult => ({ status, body });
const notFound = (what: string): RouteResult => ({ status: 404, body: { message: `Not Found: ${what}` } });

export const isoAt = (s: FakeGitHubState): string => new Date(s.clock()).toISOString();

/** An issue changed now: its updated_at moves (GitHub does this for comments, labels and edits). */
const touch = (s: FakeGitHubState, i: FakeIssue): void => void (i.updated_at = isoAt(s));

const refOf = (s: FakeGitHubState, name: string): string | undefined => s.refs.get(name) ?? s.resolveRef?.(name);

/** One page of `items` with GitHub's `link` header, built from the request's own URL. */
function paged(r: RecordedRequest, items: readonly unknown[], wrap?: (page: unknown[]) => unknown): RouteResult {
  const per = Math.min(100, Math.max(1, Number(r.query.per_page ?? 30) || 30));
  const page = Math.max(1, Number(r.query.page ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / per));
  const slice = items.slice((page - 1) * per, page * per);
  const url = (n: number) => `http://${String(r.headers.host)}${encodeURI(r.path)}?${new URLSearchParams({ ...r.query, page: String(n) })}`;
  const links: string[] = [];
  if (page < last) links.push(`<${url(page + 1)}>; rel="next"`, `<${url(last)}>; rel="last"`);
  if (page > 1) links.push(`<${url(page - 1)}>; rel="prev"`, `<${url(1)}>; rel="first"`);
  return { status: 200, body: wrap ? wrap(slice) : slice, headers: links.length ? { link: links.join(', ') } : {} };
}

function repoJson(s: FakeGitHubState) {
  return { id: 1, name: s.repo, full_name: `${s.owner}/${s.repo}`, owner: { login: s.owner }, default_branch: s.defaultBranch, private: false };
}

/** GitHub's author_association for a login: OWNER, COLLABORATOR (write or more), else NONE. */
function associationOf(s: FakeGitHubState, login: string): string {
  if (login === s.owner) return 'OWNER';
  return ['admin', 'maintain', 'write'].includes(s.permissions[login] ?? 'none') ? 'COLLABORATOR' : 'NONE';
}

function issueJson(s: FakeGitHubState, i: FakeIssue) {
  return {
    id: i.number * 10,
    number: i.number,
    title: i.title,
    body: i.body,
    user: { type: 'User', ...i.user },
    state: i.state,
    labels: i.labels.map((name) => ({ name })),
    created_at: i.created_at,
    updated_at: i.updated_at,
    closed_at: i.state === 'closed' ? i.updated_at : null,
    author_association: associationOf(s, i.user.login),
    comments: s.comments.filter((c) => c.issue_number === i.number).length,
    html_url: `https://github.test/${s.owner}/${s.repo}/issues/${i.number}`,
    ...(i.pull ? { pull_request: { url: `/repos/${s.owner}/${s.repo}/pulls/${i.number}` } } : {}),
  };
}

function pullJson(s: FakeGitHubState, i: FakeIssue) {
  const p = i.pull!;
  const [headOwner, headRepo] = p.head.repoFullName.split('/');
  return {
    number: i.number,
    title: i.title,
    body: i.body,
    user: { type: 'User', ...i.user },
    state: i.state,
    draft: Boolean(p.draft),
    html_url: `https://github.test/${s.owner}/${s.repo}/pull/${i.number}`,
    head: {
      ref: p.head.ref,
      sha: p.head.sha,
      label: `${headOwner}:${p.head.ref}`,
      repo: { full_name: p.head.repoFullName, name: headRepo, owner: { login: headOwner }, fork: p.head.repoFullName !== `${s.owner}/${s.repo}` },
    },
    base: { ref: p.base.ref, sha: p.base.sha, repo: repoJson(s) },
  };
}

function diffOf(p: NonNullable<FakeIssue['pull']>): string {
  return p.files
    .map((f) => {
      const a = f.status === 'added' ? '/dev/null' : `a/${f.filename}`;
      const b = f.status === 'removed' ? '/dev/null' : `b/${f.filename}`;
      return `diff --git a/${f.filename} b/${f.filename}\n--- ${a}\n+++ ${b}\n${f.patch ?? ''}\n`;
    })
    .join('');
}

const commentJson = (s: FakeGitHubState, c: FakeComment) => ({
  ...c,
  user: { type: 'User', ...c.user },
  author_association: c.user.type === 'Bot' ? 'NONE' : associationOf(s, c.user.login),
  html_url: `https://github.test/${s.owner}/${s.repo}/issues/${c.issue_number}#issuecomment-${c.id}`,
});

const since = (r: RecordedRequest) => (r.query.since ? Date.parse(r.query.since) : Number.NEGATIVE_INFINITY);

/** GET /issues: state, labels (all of them), since (updated_at), sort (created, updated, comments) and direction. */
function listIssues(r: RecordedRequest, s: FakeGitHubState): RouteResult {
  const want = (r.query.labels ?? '').split(',').filter(Boolean);
  const st = r.query.state ?? 'open';
  const sort = r.query.sort ?? 'created';
  const dir = (r.query.direction ?? 'desc') === 'asc' ? 1 : -1;
  const key = (i: FakeIssue) => (sort === 'updated' ? Date.parse(i.updated_at) : sort === 'comments' ? s.comments.filter((c) => c.issue_number === i.number).length : Date.parse(i.created_at));
  const list = [...s.issues.values()]
    .filter((i) => (st === 'all' || i.state === st) && want.every((l) => i.labels.includes(l)) && Date.parse(i.updated_at) >= since(r))
    .sort((a, b) => dir * (key(a) - key(b) || a.number - b.number));
  return paged(
    r,
    list.map((i) => issueJson(s, i)),
  );
}

/**
 * GET /search/issues: the qualifiers repo:, is:issue / is:pr, is:open / is:closed / state:, label:;
 * the other words must all occur in the title or body (case-insensitive). Best match first: here,
 * newest first.
 */
function searchIssues(r: RecordedRequest, s: FakeGitHubState): RouteResult {
  const q = r.query.q ?? '';
  if (!q.trim()) return { status: 422, body: { message: 'Validation Failed', errors: [{ field: 'q', code: 'missing' }] } };
  const words: string[] = [];
  const filters: Array<(i: FakeIssue) => boolean> = [];
  for (const token of q.match(/"[^"]*"|\S+/g) ?? []) {
    const m = /^(-?)(repo|is|state|label):(.+)$/.exec(token);
    if (!m) {
      words.push(token.replace(/^"|"$/g, '').toLowerCase());
      continue;
    }
    const [, neg, key, raw] = m;
    const value = raw.replace(/^"|"$/g, '');
    const test =
      key === 'repo'
        ? () => value === `${s.owner}/${s.repo}`
        : key === 'label'
          ? (i: FakeIssue) => i.labels.includes(value)
          : value === 'issue'
            ? (i: FakeIssue) => !i.pull
            : value === 'pr'
              ? (i: FakeIssue) => Boolean(i.pull)
              : (i: FakeIssue) => i.state === value;
    filters.push(neg ? (i) => !test(i) : test);
  }
  const hits = [...s.issues.values()]
    .filter((i) => filters.every((f) => f(i)) && words.every((w) => `${i.title}\n${i.body}`.toLowerCase().includes(w)))
    .sort((a, b) => b.number - a.number)
    .map((i) => ({ ...issueJson(s, i), score: 1 }));
  return paged(r, hits, (items) => ({ total_count: hits.length, incomplete_results: false, items }));
}

/** GraphQL: only `viewer { login }`, who the token is (the account the action posts as). */
function graphql(r: RecordedRequest, s: FakeGitHubState): RouteResult {
  const query = (r.body as { query?: unknown } | undefined)?.query;
  if (typeof query !== 'string' || !/^\s*query\s*\{\s*viewer\s*\{\s*login\s*\}\s*\}\s*$/.test(query)) return { status: 400, body: { message: 'fake-github: only `query { viewer { login } }` is served' } };
  return ok({ data: { viewer: { login: s.self.login } } });
}

/** Routes outside /repos/{owner}/{repo}. */
export const TOP_ROUTES: Route[] = [
  ['GET', /^\/search\/issues$/, (_m, r, s) => searchIssues(r, s)],
  ['POST', /^\/graphql$/, (_m, r, s) => graphql(r, s)],
];

export function createRoutes(): Route[] {
  const issue = (s: FakeGitHubState, n: string) => s.issues.get(Number(n));
  return [
    ['GET', /^\/$/, (_m, _r, s) => ok(repoJson(s))],
    [
      'GET',
      /^\/collaborators\/([^/]+)\/permission$/,
      (m, _r, s) => {
        const permission = s.permissions[m[1]];
        if (!permission) return notFound(`${m[1]} is not a collaborator`);
        return ok({ permission: permission === 'maintain' ? 'write' : permission === 'triage' ? 'read' : permission, role_name: permission, user: { login: m[1] } });
      },
    ],
    ['GET', /^\/labels$/, (_m, r, s) => paged(r, s.labels)],
    ['GET', /^\/issues$/, (_m, r, s) => listIssues(r, s)],
    [
      'GET',
      /^\/issues\/(\d+)$/,
      (m, _r, s) => {
        const i = issue(s, m[1]);
        return i ? ok(issueJson(s, i)) : notFound(`issue ${m[1]}`);
      },
    ],
    [
      'GET',
      /^\/issues\/(\d+)\/comments$/,
      (m, r, s) =>
        paged(
          r,
          s.comments.filter((c) => c.issue_number === Number(m[1]) && Date.parse(c.updated_at) >= since(r)).map((c) => commentJson(s, c)),
        ),
    ],
    [
      'POST',
      /^\/issues\/(\d+)\/comments$/,
      (m, r, s) => {
        const i = issue(s, m[1]);
        if (!i) return notFound(`issue ${m[1]}`);
        const body = (r.body as { body?: string })?.body ?? '';
        const c: FakeComment = { id: s.nextId++, issue_number: Number(m[1]), body, user: s.self, created_at: isoAt(s), updated_at: isoAt(s) };
        s.comments.push(c);
        touch(s, i);
        return ok(commentJson(s, c), 201);
      },
    ],
    [
      'GET',
      /^\/issues\/comments\/(\d+)$/,
      (m, _r, s) => {
        const c = s.comments.find((x) => x.id === Number(m[1]));
        return c ? ok(commentJson(s, c)) : notFound(`comment ${m[1]}`);
      },
    ],
    [
      'PATCH',
      /^\/issues\/comments\/(\d+)$/,
      (m, r, s) => {
        const c = s.comments.find((x) => x.id === Number(m[1]));
        if (!c) return notFound(`comment ${m[1]}`);
        c.body = (r.body as { body?: string })?.body ?? c.body;
        c.updated_at = isoAt(s);
        const i = s.issues.get(c.issue_number);
        if (i) touch(s, i);
        return ok(commentJson(s, c));
      },
    ],
    [
      'POST',
      /^\/(issues|pulls)\/comments\/(\d+)\/reactions$/,
      (m, r, s) => {
        const content = (r.body as { content?: string })?.content ?? '';
        s.reactions.push({ subject: m[1], id: Number(m[2]), content, user: s.self });
        return ok({ id: s.nextId++, content, user: s.self }, 201);
      },
    ],
    [
      'POST',
      /^\/issues\/(\d+)\/labels$/,
      (m, r, s) => {
        const i = issue(s, m[1]);
        if (!i) return notFound(`issue ${m[1]}`);
        const labels = ((r.body as { labels?: string[] })?.labels ?? []) as string[];
        for (const l of labels) {
          if (!s.labels.some((x) => x.name === l)) s.labels.push({ name: l, color: 'ededed', description: null }); // GitHub creates unknown labels
          if (!i.labels.includes(l)) i.labels.push(l);
        }
        touch(s, i);
        return ok(i.labels.map((name) => ({ name })));
      },
    ],
    [
      'DELETE',
      /^\/issues\/(\d+)\/labels\/(.+)$/,
      (m, _r, s) => {
        const i = issue(s, m[1]);
        if (!i || !i.labels.includes(m[2])) return notFound(`label ${m[2]} on issue ${m[1]}`);
        i.labels = i.labels.filter((l) => l !== m[2]);
        touch(s, i);
        return ok(i.labels.map((name) => ({ name })));
      },
    ],
    [
      'GET',
      /^\/pulls\/(\d+)$/,
      (m, r, s) => {
        const i = issue(s, m[1]);
        if (!i?.pull) return notFound(`pull ${m[1]}`);
        const accept = String(r.headers.accept ?? '');
        if (accept.includes('diff')) return { status: 200, body: diffOf(i.pull) };
        return ok(pullJson(s, i));
      },
    ],
    [
      'GET',
      /^\/pulls\/(\d+)\/files$/,
      (m, r, s) => {
        const i = issue(s, m[1]);
        if (!i?.pull) return notFound(`pull ${m[1]}`);
        return paged(
          r,
          i.pull.files.map((f) => ({ sha: 'f'.repeat(40), additions: 0, deletions: 0, changes: 0, ...f })),
        );
      },
    ],
    [
      'GET',
      /^\/pulls$/,
      (_m, r, s) => {
        const head = r.query.head; // owner:branch
        const list = [...s.issues.values()].filter((i) => i.pull && (!head || `${i.pull.head.repoFullName.split('/')[0]}:${i.pull.head.ref}` === head));
        return ok(list.map((i) => pullJson(s, i)));
      },
    ],
    [
      'POST',
      /^\/pulls$/,
      (_m, r, s) => {
        const b = r.body as { title: string; body?: string; head: string; base: string; draft?: boolean };
        if (!b?.head || !b.base || !b.title) return { status: 422, body: { message: 'Validation Failed: head, base and title are required' } };
        const headSha = refOf(s, `heads/${b.head}`);
        if (!headSha) return { status: 422, body: { message: `Validation Failed: head ${b.head} does not exist` } };
        const number = s.nextNumber++;
        const i: FakeIssue = {
          number,
          title: b.title,
          body: b.body ?? '',
          user: s.self,
          state: 'open',
          labels: [],
          created_at: isoAt(s),
          updated_at: isoAt(s),
          pull: { head: { ref: b.head, sha: headSha, repoFullName: `${s.owner}/${s.repo}` }, base: { ref: b.base, sha: refOf(s, `heads/${b.base}`) ?? '' }, files: [], draft: b.draft },
        };
        s.issues.set(number, i);
        return ok(pullJson(s, i), 201);
      },
    ],
    ['GET', /^\/pulls\/(\d+)\/reviews$/, (m, _r, s) => ok(s.reviews.filter((v) => v.pull_number === Number(m[1])))],
    [
      'POST',
      /^\/pulls\/(\d+)\/reviews$/,
      (m, r, s) => {
        const i = issue(s, m[1]);
        if (!i?.pull) return notFound(`pull ${m[1]}`);
        const b = (r.body ?? {}) as Partial<FakeReview>;
        // GitHub rejects the whole review when one inline comment is not on a line of the diff.
        for (const c of b.comments ?? []) {
          const f = i.pull.files.find((x) => x.filename === c.path);
          const lines = f?.patch ? diffLines(f.patch, (c.side ?? 'RIGHT') as 'LEFT' | 'RIGHT') : new Set<number>();
          if (c.line === undefined || !lines.has(c.line)) return { status: 422, body: { message: 'Unprocessable Entity', errors: [`Line could not be resolved: ${c.path}:${c.line}`] } };
        }
        const review: FakeReview = { id: s.nextId++, pull_number: i.number, body: b.body ?? '', event: b.event ?? 'PENDING', commit_id: b.commit_id, comments: b.comments ?? [], user: s.self };
        s.reviews.push(review);
        return ok({
          id: review.id,
          body: review.body,
          state: review.event === 'COMMENT' ? 'COMMENTED' : review.event,
          html_url: `https://github.test/${s.owner}/${s.repo}/pull/${i.number}#pullrequestreview-${review.id}`,
        });
      },
    ],
    [
      'GET',
      /^\/git\/ref\/(.+)$/,
      (m, _r, s) => {
        const sha = refOf(s, m[1]);
        return sha ? ok({ ref: `refs/${m[1]}`, object: { sha, type: 'commit' } }) : notFound(`ref ${m[1]}`);
      },
    ],
    [
      'POST',
      /^\/git\/refs$/,
      (_m, r, s) => {
        const b = r.body as { ref: string; sha: string };
        const name = b.ref.replace(/^refs\//, '');
        if (s.refs.has(name)) return { status: 422, body: { message: 'Reference already exists' } };
        s.refs.set(name, b.sha);
        return ok({ ref: b.ref, object: { sha: b.sha, type: 'commit' } }, 201);
      },
    ],
    [
      'PATCH',
      /^\/git\/refs\/(.+)$/,
      (m, r, s) => {
        if (!s.refs.has(m[1])) return notFound(`ref ${m[1]}`);
        const b = r.body as { sha: string };
        s.refs.set(m[1], b.sha);
        return ok({ ref: `refs/${m[1]}`, object: { sha: b.sha, type: 'commit' } });
      },
    ],
    ['DELETE', /^\/git\/refs\/(.+)$/, (m, _r, s) => (s.refs.delete(m[1]) ? { status: 204 } : notFound(`ref ${m[1]}`))],
  ];
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
