/**
 * A loopback, stateful GitHub REST server for the routes agent-action uses. Real Octokit talks to
 * it over HTTP (GITHUB_API_URL). It records every request and injects failures (500, 502, a 403
 * secondary rate limit with retry-after) on request. Start it in-process with `startFakeGitHub`;
 * a child process (the bundled action) reaches it through the URL it returns.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Permission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface FakeUser {
  login: string;
  type?: 'User' | 'Bot';
}

export interface FakeComment {
  id: number;
  issue_number: number;
  body: string;
  user: FakeUser;
  created_at: string;
  updated_at: string;
}

export interface FakeFile {
  filename: string;
  status: 'added' | 'modified' | 'removed' | 'renamed';
  patch?: string;
  additions?: number;
  deletions?: number;
}

export interface FakePull {
  head: { ref: string; sha: string; repoFullName: string };
  base: { ref: string; sha: string };
  files: FakeFile[];
  draft?: boolean;
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  user: FakeUser;
  state: 'open' | 'closed';
  labels: string[];
  created_at: string;
  pull?: FakePull;
}

export interface FakeReview {
  id: number;
  pull_number: number;
  body: string;
  event: string;
  commit_id?: string;
  comments: Array<{ path: string; line?: number; side?: string; start_line?: number; start_side?: string; body: string }>;
  user: FakeUser;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

export interface Failure {
  method?: string;
  /** Matched against the path (no query). */
  path: RegExp;
  status: 500 | 502 | 403 | 404 | 422;
  /** For 403: a secondary rate limit with this retry-after (seconds). */
  retryAfter?: number;
  times?: number;
}

export interface FakeGitHubState {
  owner: string;
  repo: string;
  defaultBranch: string;
  self: FakeUser;
  permissions: Record<string, Permission>;
  labels: Array<{ name: string; color: string; description: string | null }>;
  issues: Map<number, FakeIssue>;
  comments: FakeComment[];
  reactions: Array<{ subject: string; id: number; content: string; user: FakeUser }>;
  reviews: FakeReview[];
  refs: Map<string, string>;
  /**
   * Optional: where refs missing from `refs` are looked up (e.g. a bare git repository that the
   * action under test pushes to), since this fake has no git of its own. Name without `refs/`.
   */
  resolveRef?: (name: string) => string | undefined;
  nextId: number;
  nextNumber: number;
}

export interface FakeGitHub {
  url: string;
  state: FakeGitHubState;
  requests: RecordedRequest[];
  fail(f: Failure): void;
  addIssue(issue: Partial<FakeIssue> & { title: string }): FakeIssue;
  addPull(issue: Partial<FakeIssue> & { title: string; pull: FakePull }): FakeIssue;
  addComment(issueNumber: number, body: string, user: FakeUser, createdAt?: string): FakeComment;
  /** Requests matching method and path pattern. */
  calls(method: string, path: RegExp): RecordedRequest[];
  close(): Promise<void>;
}

type Handler = (m: RegExpExecArray, req: RecordedRequest, s: FakeGitHubState) => { status: number; body?: unknown; headers?: Record<string, string> };

const now = () => new Date().toISOString();

const refOf = (s: FakeGitHubState, name: string): string | undefined => s.refs.get(name) ?? s.resolveRef?.(name);

export function createFakeGitHubState(init: Partial<Pick<FakeGitHubState, 'owner' | 'repo' | 'defaultBranch' | 'permissions' | 'labels' | 'self'>> = {}): FakeGitHubState {
  return {
    owner: init.owner ?? 'octo',
    repo: init.repo ?? 'hello',
    defaultBranch: init.defaultBranch ?? 'main',
    self: init.self ?? { login: 'github-actions[bot]', type: 'Bot' },
    permissions: init.permissions ?? { maintainer: 'admin', writer: 'write', reader: 'read' },
    labels: init.labels ?? [
      { name: 'bug', color: 'd73a4a', description: 'Something is broken' },
      { name: 'enhancement', color: 'a2eeef', description: 'New feature' },
      { name: 'needs-triage', color: 'ededed', description: null },
    ],
    issues: new Map(),
    comments: [],
    reactions: [],
    reviews: [],
    refs: new Map(),
    nextId: 1000,
    nextNumber: 1,
  };
}

export async function startFakeGitHub(state: FakeGitHubState = createFakeGitHubState()): Promise<FakeGitHub> {
  const requests: RecordedRequest[] = [];
  const failures: Failure[] = [];
  const routes = createRoutes();

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake.test');
    const raw = await readBody(req);
    let body: unknown = undefined;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: decodeURIComponent(url.pathname),
      query: Object.fromEntries(url.searchParams),
      body,
      headers: req.headers,
    };
    requests.push(rec);
    const failure = failures.find((f) => (!f.method || f.method === rec.method) && f.path.test(rec.path) && (f.times ?? 1) > 0);
    if (failure) {
      failure.times = (failure.times ?? 1) - 1;
      if (failure.status === 403 && failure.retryAfter !== undefined) {
        return send(res, 403, { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }, { 'retry-after': String(failure.retryAfter) });
      }
      return send(res, failure.status, { message: `injected ${failure.status}` });
    }
    const prefix = `/repos/${state.owner}/${state.repo}`;
    if (!rec.path.startsWith(prefix)) return send(res, 404, { message: `fake-github: unknown repository in ${rec.path}` });
    const path = rec.path.slice(prefix.length) || '/';
    for (const [method, pattern, handler] of routes) {
      if (method !== rec.method) continue;
      const m = pattern.exec(path);
      if (!m) continue;
      const out = handler(m, rec, state);
      if (typeof out.body === 'string') {
        res.writeHead(out.status, { 'content-type': 'text/plain', ...out.headers });
        return res.end(out.body);
      }
      return send(res, out.status, out.body, out.headers);
    }
    return send(res, 404, { message: `fake-github: no route for ${rec.method} ${rec.path}` });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const addIssue = (i: Partial<FakeIssue> & { title: string }): FakeIssue => {
    const number = i.number ?? state.nextNumber;
    state.nextNumber = Math.max(state.nextNumber, number) + 1;
    const issue: FakeIssue = {
      number,
      title: i.title,
      body: i.body ?? '',
      user: i.user ?? { login: 'reporter' },
      state: i.state ?? 'open',
      labels: i.labels ?? [],
      created_at: i.created_at ?? now(),
      pull: i.pull,
    };
    state.issues.set(number, issue);
    return issue;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    requests,
    fail: (f) => failures.push({ ...f }),
    addIssue,
    addPull: (i) => addIssue(i),
    addComment: (n, body, user, createdAt) => {
      const c: FakeComment = { id: state.nextId++, issue_number: n, body, user, created_at: createdAt ?? now(), updated_at: createdAt ?? now() };
      state.comments.push(c);
      return c;
    },
    calls: (method, path) => requests.filter((r) => r.method === method && path.test(r.path)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const ok = (body: unknown, status = 200) => ({ status, body });
const notFound = (what: string) => ({ status: 404, body: { message: `Not Found: ${what}` } });

function repoJson(s: FakeGitHubState) {
  return { id: 1, name: s.repo, full_name: `${s.owner}/${s.repo}`, owner: { login: s.owner }, default_branch: s.defaultBranch, private: false };
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
    head: { ref: p.head.ref, sha: p.head.sha, label: `${headOwner}:${p.head.ref}`, repo: { full_name: p.head.repoFullName, name: headRepo, owner: { login: headOwner }, fork: p.head.repoFullName !== `${s.owner}/${s.repo}` } },
    base: { ref: p.base.ref, sha: p.base.sha, repo: repoJson(s) },
  };
}

function diffOf(p: FakePull): string {
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
  html_url: `https://github.test/${s.owner}/${s.repo}/issues/${c.issue_number}#issuecomment-${c.id}`,
});

function createRoutes(): Array<[string, RegExp, Handler]> {
  const issue = (s: FakeGitHubState, n: string) => s.issues.get(Number(n));
  return [
    ['GET', /^\/$/, (_m, _r, s) => ok(repoJson(s))],
    ['GET', /^\/collaborators\/([^/]+)\/permission$/, (m, _r, s) => {
      const permission = s.permissions[m[1]];
      if (!permission) return notFound(`${m[1]} is not a collaborator`);
      return ok({ permission: permission === 'maintain' ? 'write' : permission === 'triage' ? 'read' : permission, role_name: permission, user: { login: m[1] } });
    }],
    ['GET', /^\/labels$/, (_m, _r, s) => ok(s.labels)],
    ['GET', /^\/issues$/, (_m, r, s) => {
      const want = (r.query.labels ?? '').split(',').filter(Boolean);
      const st = r.query.state ?? 'open';
      const list = [...s.issues.values()].filter((i) => (st === 'all' || i.state === st) && want.every((l) => i.labels.includes(l)));
      return ok(list.map((i) => issueJson(s, i)));
    }],
    ['GET', /^\/issues\/(\d+)$/, (m, _r, s) => {
      const i = issue(s, m[1]);
      return i ? ok(issueJson(s, i)) : notFound(`issue ${m[1]}`);
    }],
    ['GET', /^\/issues\/(\d+)\/comments$/, (m, _r, s) => ok(s.comments.filter((c) => c.issue_number === Number(m[1])).map((c) => commentJson(s, c)))],
    ['POST', /^\/issues\/(\d+)\/comments$/, (m, r, s) => {
      if (!issue(s, m[1])) return notFound(`issue ${m[1]}`);
      const body = (r.body as { body?: string })?.body ?? '';
      const c: FakeComment = { id: s.nextId++, issue_number: Number(m[1]), body, user: s.self, created_at: now(), updated_at: now() };
      s.comments.push(c);
      return ok(commentJson(s, c), 201);
    }],
    ['GET', /^\/issues\/comments\/(\d+)$/, (m, _r, s) => {
      const c = s.comments.find((x) => x.id === Number(m[1]));
      return c ? ok(commentJson(s, c)) : notFound(`comment ${m[1]}`);
    }],
    ['PATCH', /^\/issues\/comments\/(\d+)$/, (m, r, s) => {
      const c = s.comments.find((x) => x.id === Number(m[1]));
      if (!c) return notFound(`comment ${m[1]}`);
      c.body = (r.body as { body?: string })?.body ?? c.body;
      c.updated_at = now();
      return ok(commentJson(s, c));
    }],
    ['POST', /^\/(issues|pulls)\/comments\/(\d+)\/reactions$/, (m, r, s) => {
      const content = (r.body as { content?: string })?.content ?? '';
      s.reactions.push({ subject: m[1], id: Number(m[2]), content, user: s.self });
      return ok({ id: s.nextId++, content, user: s.self }, 201);
    }],
    ['POST', /^\/issues\/(\d+)\/labels$/, (m, r, s) => {
      const i = issue(s, m[1]);
      if (!i) return notFound(`issue ${m[1]}`);
      const labels = ((r.body as { labels?: string[] })?.labels ?? []) as string[];
      for (const l of labels) {
        if (!s.labels.some((x) => x.name === l)) s.labels.push({ name: l, color: 'ededed', description: null }); // GitHub creates unknown labels
        if (!i.labels.includes(l)) i.labels.push(l);
      }
      return ok(i.labels.map((name) => ({ name })));
    }],
    ['GET', /^\/pulls\/(\d+)$/, (m, r, s) => {
      const i = issue(s, m[1]);
      if (!i?.pull) return notFound(`pull ${m[1]}`);
      const accept = String(r.headers.accept ?? '');
      if (accept.includes('diff')) return { status: 200, body: diffOf(i.pull) };
      return ok(pullJson(s, i));
    }],
    ['GET', /^\/pulls\/(\d+)\/files$/, (m, r, s) => {
      const i = issue(s, m[1]);
      if (!i?.pull) return notFound(`pull ${m[1]}`);
      const per = Number(r.query.per_page ?? 30);
      const page = Number(r.query.page ?? 1);
      return ok(i.pull.files.slice((page - 1) * per, page * per).map((f) => ({ sha: 'f'.repeat(40), additions: 0, deletions: 0, changes: 0, ...f })));
    }],
    ['GET', /^\/pulls$/, (_m, r, s) => {
      const head = r.query.head; // owner:branch
      const list = [...s.issues.values()].filter((i) => i.pull && (!head || `${i.pull.head.repoFullName.split('/')[0]}:${i.pull.head.ref}` === head));
      return ok(list.map((i) => pullJson(s, i)));
    }],
    ['POST', /^\/pulls$/, (_m, r, s) => {
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
        created_at: now(),
        pull: { head: { ref: b.head, sha: headSha, repoFullName: `${s.owner}/${s.repo}` }, base: { ref: b.base, sha: refOf(s, `heads/${b.base}`) ?? '' }, files: [], draft: b.draft },
      };
      s.issues.set(number, i);
      return ok(pullJson(s, i), 201);
    }],
    ['GET', /^\/pulls\/(\d+)\/reviews$/, (m, _r, s) => ok(s.reviews.filter((v) => v.pull_number === Number(m[1])))],
    ['POST', /^\/pulls\/(\d+)\/reviews$/, (m, r, s) => {
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
      return ok({ id: review.id, body: review.body, state: review.event === 'COMMENT' ? 'COMMENTED' : review.event, html_url: `https://github.test/${s.owner}/${s.repo}/pull/${i.number}#pullrequestreview-${review.id}` });
    }],
    ['GET', /^\/git\/ref\/(.+)$/, (m, _r, s) => {
      const sha = refOf(s, m[1]);
      return sha ? ok({ ref: `refs/${m[1]}`, object: { sha, type: 'commit' } }) : notFound(`ref ${m[1]}`);
    }],
    ['POST', /^\/git\/refs$/, (_m, r, s) => {
      const b = r.body as { ref: string; sha: string };
      const name = b.ref.replace(/^refs\//, '');
      if (s.refs.has(name)) return { status: 422, body: { message: 'Reference already exists' } };
      s.refs.set(name, b.sha);
      return ok({ ref: b.ref, object: { sha: b.sha, type: 'commit' } }, 201);
    }],
    ['PATCH', /^\/git\/refs\/(.+)$/, (m, r, s) => {
      if (!s.refs.has(m[1])) return notFound(`ref ${m[1]}`);
      const b = r.body as { sha: string };
      s.refs.set(m[1], b.sha);
      return ok({ ref: `refs/${m[1]}`, object: { sha: b.sha, type: 'commit' } });
    }],
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
    if (line.startsWith('+')) (side === 'RIGHT' && out.add(newLine), newLine++);
    else if (line.startsWith('-')) (side === 'LEFT' && out.add(oldLine), oldLine++);
    else if (line.startsWith(' ')) {
      out.add(side === 'RIGHT' ? newLine : oldLine);
      oldLine++;
      newLine++;
    }
  }
  return out;
}
