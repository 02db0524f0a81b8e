/**
 * A loopback, stateful GitHub REST server for the routes agent-action uses. Real Octokit talks to
 * it over HTTP (GITHUB_API_URL). It records every request and injects failures (500, 502, a 403
 * secondary rate limit with retry-after) on request. Lists paginate with `link` headers; issues
 * carry `updated_at`, moved by every write as on GitHub, on the state's clock (a test can step it).
 * Start it in-process with `startFakeGitHub`; a child process (the bundled action) reaches it
 * through the URL it returns. The routes are in fake-github-routes.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRoutes, isoAt, TOP_ROUTES, type Route } from './fake-github-routes.js';

export { diffLines } from './fake-github-routes.js';

type Permission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

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

interface FakeFile {
  filename: string;
  status: 'added' | 'modified' | 'removed' | 'renamed';
  patch?: string;
  additions?: number;
  deletions?: number;
}

interface FakePull {
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
  /** Moved by every comment, label change and edit (GitHub's own rule). */
  updated_at: string;
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

interface Failure {
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
  /** Milliseconds since the epoch for every timestamp the fake writes; a test may step it. */
  clock: () => number;
}

export interface FakeGitHub {
  url: string;
  state: FakeGitHubState;
  requests: RecordedRequest[];
  fail(f: Failure): void;
  addIssue(issue: Partial<FakeIssue> & { title: string }): FakeIssue;
  addPull(issue: Partial<FakeIssue> & { title: string; pull: FakePull }): FakeIssue;
  /** A comment as if posted at `createdAt` (default now): the issue's updated_at moves to it when later. */
  addComment(issueNumber: number, body: string, user: FakeUser, createdAt?: string): FakeComment;
  /** Requests matching method and path pattern. */
  calls(method: string, path: RegExp): RecordedRequest[];
  close(): Promise<void>;
}

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
    clock: () => Date.now(),
  };
}

export async function startFakeGitHub(state: FakeGitHubState = createFakeGitHubState()): Promise<FakeGitHub> {
  const requests: RecordedRequest[] = [];
  const failures: Failure[] = [];
  const routes: Route[] = createRoutes();

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
    const top = !rec.path.startsWith('/repos/');
    if (!top && !rec.path.startsWith(prefix)) return send(res, 404, { message: `fake-github: unknown repository in ${rec.path}` });
    const path = top ? rec.path : rec.path.slice(prefix.length) || '/';
    for (const [method, pattern, handler] of top ? TOP_ROUTES : routes) {
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
      created_at: i.created_at ?? isoAt(state),
      updated_at: i.updated_at ?? i.created_at ?? isoAt(state),
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
      const at = createdAt ?? isoAt(state);
      const c: FakeComment = { id: state.nextId++, issue_number: n, body, user, created_at: at, updated_at: at };
      state.comments.push(c);
      const issue = state.issues.get(n);
      if (issue && Date.parse(at) > Date.parse(issue.updated_at)) issue.updated_at = at;
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
