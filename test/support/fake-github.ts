/**
 * A loopback, stateful GitHub REST server for the routes agent-action uses. Real Octokit talks to
 * it over HTTP (GITHUB_API_URL). Every request is checked against GitHub's own OpenAPI description
 * (github-openapi.ts): a route the spec does not have is answered 404, a parameter or body outside
 * the operation's schema 422 `Invalid request`, as GitHub does; every answer the fake gives is
 * checked against the operation's response schema. Each such finding is a violation, and `close()`
 * throws listing them, so every test that uses the fake fails on a request GitHub would not take
 * (or on the fake's own wrong answer) without opting in. The job's `permissions:` (`jobPermissions`,
 * by default the example workflow's) decide what is answered 403 "Resource not accessible by
 * integration" (github-permissions.ts). It records every request and injects failures (500, 502, a
 * 403 secondary rate limit with retry-after) on request. Lists paginate with `link` headers; issues
 * carry `updated_at`, moved by every write as on GitHub, on the state's clock (a test can step it).
 * Start it in-process with `startFakeGitHub`; a child process (the bundled action) reaches it
 * through the URL it returns. The routes are in fake-github-routes.ts and fake-github-pull-routes.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RouteResult } from './fake-github-answers.js';
import { hunkOf } from './fake-github-pull-routes.js';
import { answerGraphql, createRoutes, isoAt } from './fake-github-routes.js';
import {
  checkRequest,
  checkResponse,
  documentationUrl,
  matchOperation,
  type OperationMatch,
} from './github-openapi.js';
import { missingPermission, readExamplePermissions, type JobPermissions } from './github-permissions.js';

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

export interface FakeFile {
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
  comments: Array<{
    path: string;
    line?: number;
    side?: string;
    start_line?: number;
    start_side?: string;
    body: string;
  }>;
  user: FakeUser;
  submitted_at?: string;
}

/** A pull request review comment (an inline comment or a reply in its thread). */
export interface FakeReviewComment {
  id: number;
  pull_number: number;
  review_id: number;
  path: string;
  line?: number;
  side: 'LEFT' | 'RIGHT';
  start_line?: number;
  start_side?: 'LEFT' | 'RIGHT';
  body: string;
  user: FakeUser;
  /** The first comment of the thread, for a reply. */
  in_reply_to_id?: number;
  commit_id: string;
  diff_hunk: string;
  created_at: string;
  updated_at: string;
}

/** A request GitHub would not take, or an answer outside GitHub's schema: a test's failure. */
export interface Violation {
  method: string;
  path: string;
  problems: string[];
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
  /** `subject` is `issues` (an issue comment) or `pulls` (a review comment); `id` the comment's. */
  reactions: Array<{
    subject: string;
    id: number;
    content: string;
    user: FakeUser;
    reactionId?: number;
    created_at?: string;
  }>;
  reviews: FakeReview[];
  reviewComments: FakeReviewComment[];
  refs: Map<string, string>;
  /**
   * Optional: where refs missing from `refs` are looked up (e.g. a bare git repository that the
   * action under test pushes to), since this fake has no git of its own. Name without `refs/`.
   */
  resolveRef?: (name: string) => string | undefined;
  /**
   * Optional: how many commits `head` has that `base` lacks (shas), from the same repository;
   * POST /pulls refuses "No commits between" at 0. Without it, only head == base counts as none.
   */
  commitsBetween?: (base: string, head: string) => number | undefined;
  /**
   * Optional: the bare repository behind the Git database routes (blobs, trees, commits) and ref
   * writes (fake-github-git-data.ts); without it those writes stay in `refs` and the database routes answer 404.
   */
  gitDir?: string;
  /** A private repository answers `none` for a non-collaborator's permission; a public one `read`. */
  private?: boolean;
  /** The job's `permissions:` block, which GITHUB_TOKEN has (absent scopes are `none`). */
  jobPermissions: JobPermissions;
  nextId: number;
  nextNumber: number;
  /** Milliseconds since the epoch for every timestamp the fake writes; a test may step it. */
  clock: () => number;
  /**
   * The web server's files (GITHUB_SERVER_URL, not the REST API): an attachment at
   * `/user-attachments/assets/<id>` answers as GitHub does, with a redirect to the file's signed
   * place (`to`), or the bytes themselves. Keyed by path.
   */
  webFiles: Map<string, WebFile>;
}

/** A file on the fake's web server: bytes, or a redirect to another URL. */
type WebFile = { body: Buffer; type: string } | { redirect: string };

export interface FakeGitHub {
  url: string;
  state: FakeGitHubState;
  requests: RecordedRequest[];
  fail(f: Failure): void;
  addIssue(issue: Partial<FakeIssue> & { title: string }): FakeIssue;
  addPull(issue: Partial<FakeIssue> & { title: string; pull: FakePull }): FakeIssue;
  /** A comment as if posted at `createdAt` (default now): the issue's updated_at moves to it when later. */
  addComment(issueNumber: number, body: string, user: FakeUser, createdAt?: string): FakeComment;
  /** An inline comment on a pull request's diff (in a review of its own), or a reply when `in_reply_to_id` is given. */
  addReviewComment(
    pullNumber: number,
    c: {
      path: string;
      line: number;
      body: string;
      user: FakeUser;
      side?: 'LEFT' | 'RIGHT';
      start_line?: number;
      in_reply_to_id?: number;
      createdAt?: string;
    },
  ): FakeReviewComment;
  /** Requests matching method and path pattern. */
  calls(method: string, path: RegExp): RecordedRequest[];
  /** What the spec check found so far. */
  violations: Violation[];
  /** The violations so far, cleared: for a test that makes a request GitHub refuses on purpose. */
  takeViolations(): Violation[];
  /** Stops the server; throws when a request or answer broke GitHub's OpenAPI description. */
  close(): Promise<void>;
}

export function createFakeGitHubState(
  init: Partial<
    Pick<
      FakeGitHubState,
      'owner' | 'repo' | 'defaultBranch' | 'permissions' | 'labels' | 'self' | 'private' | 'jobPermissions'
    >
  > = {},
): FakeGitHubState {
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
    reviewComments: [],
    refs: new Map(),
    private: init.private ?? false,
    jobPermissions: init.jobPermissions ?? readExamplePermissions(),
    nextId: 1000,
    nextNumber: 1,
    webFiles: new Map(),
    clock: () => Date.now(),
  };
}

export async function startFakeGitHub(state: FakeGitHubState = createFakeGitHubState()): Promise<FakeGitHub> {
  const requests: RecordedRequest[] = [];
  const failures: Failure[] = [];
  const violations: Violation[] = [];
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
    if (rec.method === 'POST' && url.pathname === '/graphql') {
      // Outside the REST description, so outside its check; an injected failure still applies.
      const failure = failures.find(
        (f) => (!f.method || f.method === rec.method) && f.path.test(rec.path) && (f.times ?? 1) > 0,
      );
      if (failure) failure.times = (failure.times ?? 1) - 1;
      const out = failure
        ? { status: failure.status, body: { message: `injected ${failure.status}` }, headers: {} }
        : answerGraphql(rec, state);
      return send(res, out.status, out.body, out.headers);
    }
    const web = rec.method === 'GET' ? state.webFiles.get(url.pathname) : undefined;
    if (web) {
      // The web server, outside the REST description: attachments and raw files, behind the token.
      if (!/^Bearer \S+$/.test(req.headers.authorization ?? '') && !url.searchParams.has('jwt'))
        return send(res, 404, { message: 'Not Found' }, {});
      if ('redirect' in web) {
        res.writeHead(302, { location: web.redirect });
        return res.end();
      }
      res.writeHead(200, { 'content-type': web.type, 'content-length': String(web.body.length) });
      return res.end(web.body);
    }
    const match = matchOperation(rec.method, url.pathname);
    const out = answer(rec, match);
    if (out.status >= 400 && out.body && typeof out.body === 'object' && !Array.isArray(out.body)) {
      out.body = { ...out.body, documentation_url: documentationUrl(match), status: String(out.status) };
    }
    if (match && !out.injected) {
      const problems = checkResponse(match, out.status, out.body);
      if (problems.length)
        violations.push({ method: rec.method, path: rec.path, problems: problems.map((p) => `the fake's ${p}`) });
    }
    if (typeof out.body === 'string') {
      res.writeHead(out.status, { 'content-type': 'text/plain', ...out.headers });
      return res.end(out.body);
    }
    return send(res, out.status, out.body, out.headers);
  }

  /** The spec check, the repository, an injected failure, the job's permissions, then the route. */
  function answer(rec: RecordedRequest, match: OperationMatch | undefined): RouteResult & { injected?: boolean } {
    const violation = (problems: string[]) => violations.push({ method: rec.method, path: rec.path, problems });
    if (!match) {
      violation([`GitHub's API has no ${rec.method} ${rec.path}`]);
      return { status: 404, body: { message: 'Not Found' } };
    }
    const { operation, params } = match;
    const problems = checkRequest(match, rec.query, rec.body);
    if (problems.invalid.length || problems.unknown.length) violation([...problems.invalid, ...problems.unknown]);
    if (problems.invalid.length)
      return { status: 422, body: { message: `Invalid request.\n\n${problems.invalid.join('\n')}` } };
    if (params.owner !== undefined && (params.owner !== state.owner || params.repo !== state.repo))
      return { status: 404, body: { message: 'Not Found' } };
    const failure = failures.find(
      (f) => (!f.method || f.method === rec.method) && f.path.test(rec.path) && (f.times ?? 1) > 0,
    );
    if (failure) {
      failure.times = (failure.times ?? 1) - 1;
      if (failure.status === 403 && failure.retryAfter !== undefined) {
        return {
          status: 403,
          body: {
            message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          },
          headers: { 'retry-after': String(failure.retryAfter) },
          injected: true,
        };
      }
      return { status: failure.status, body: { message: `injected ${failure.status}` }, injected: true };
    }
    const handler = routes[operation.operationId];
    if (!handler) {
      violation([
        `fake-github does not serve ${operation.operationId} (${operation.method} ${operation.template}); add a route`,
      ]);
      return { status: 404, body: { message: 'Not Found' } };
    }
    const number = params.issue_number ?? params.pull_number;
    const missing = missingPermission(
      operation.operationId,
      state.jobPermissions,
      Boolean(number && state.issues.get(Number(number))?.pull),
    );
    if (missing) return { status: 403, body: { message: 'Resource not accessible by integration' } };
    try {
      return handler(params, rec, state);
    } catch (e) {
      violation([`fake-github's ${operation.operationId} route threw: ${(e as Error).stack ?? String(e)}`]);
      return { status: 500, body: { message: 'fake-github: the route threw' } };
    }
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
    addReviewComment: (n, c) => addReviewComment(state, n, c),
    calls: (method, path) => requests.filter((r) => r.method === method && path.test(r.path)),
    violations,
    takeViolations: () => violations.splice(0),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      if (violations.length) throw new Error(formatViolations(violations.splice(0)));
    },
  };
}

/** One line per request, each problem under it: what a failing test prints. */
export function formatViolations(violations: readonly Violation[]): string {
  const lines = violations.map((v) => `- ${v.method} ${v.path}\n${v.problems.map((p) => `    ${p}`).join('\n')}`);
  return `fake-github: ${violations.length} request(s) outside GitHub's OpenAPI description (@octokit/openapi):\n${lines.join('\n')}`;
}

function addReviewComment(
  state: FakeGitHubState,
  n: number,
  c: Parameters<FakeGitHub['addReviewComment']>[1],
): FakeReviewComment {
  const pull = state.issues.get(n)?.pull;
  if (!pull) throw new Error(`fake-github: addReviewComment: #${n} is not a pull request`);
  const at = c.createdAt ?? isoAt(state);
  const parent =
    c.in_reply_to_id === undefined ? undefined : state.reviewComments.find((x) => x.id === c.in_reply_to_id);
  const review: FakeReview = {
    id: state.nextId++,
    pull_number: n,
    body: '',
    event: 'COMMENT',
    comments: [],
    user: c.user,
    submitted_at: at,
  };
  state.reviews.push(review);
  const patch = pull.files.find((f) => f.filename === c.path)?.patch ?? '';
  const rc: FakeReviewComment = {
    id: state.nextId++,
    pull_number: n,
    review_id: review.id,
    path: c.path,
    line: c.line,
    side: c.side ?? 'RIGHT',
    start_line: c.start_line,
    body: c.body,
    user: c.user,
    in_reply_to_id: parent ? (parent.in_reply_to_id ?? parent.id) : undefined,
    commit_id: pull.head.sha,
    diff_hunk: parent?.diff_hunk ?? hunkOf(patch, c.line, c.side ?? 'RIGHT'),
    created_at: at,
    updated_at: at,
  };
  state.reviewComments.push(rc);
  return rc;
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
