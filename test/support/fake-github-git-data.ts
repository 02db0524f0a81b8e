/**
 * The fake GitHub's Git database routes (blobs, trees, commits) and its ref writes, backed by a real
 * bare repository (`state.gitDir`, the one the test's clone pushes to and fetches from): a blob is
 * `git hash-object -w`, a tree is the base tree through a throwaway index with the entries applied,
 * a commit is a commit object written as GitHub writes one for a request without an author (the
 * token's account as author, GitHub as committer, a signature), and a ref write is `git update-ref`
 * with the old value, refused as GitHub refuses: an existing ref, a missing object, an update that is
 * not a fast-forward. So a commit made through the API is a real commit a test can fetch and read.
 * Every ref write carries the reflog message REFLOG_MESSAGE: a bare repository with
 * `core.logAllRefUpdates=always` tells an API update from a push.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { field, ok, validationFailed, type RouteResult, type Routes } from './fake-github-answers.js';
import { refJson } from './fake-github-objects.js';
import type { FakeGitHubState, RecordedRequest } from './fake-github.js';

/** The reflog message of every ref the fake's API writes. */
export const REFLOG_MESSAGE = 'fake-github: the git refs API';

/** GitHub's blob API takes at most 100 MB. */
const MAX_BLOB_BYTES = 100 * 1024 * 1024;

const API = 'https://api.github.test';

/** What GitHub answers for a request without author or committer, made with a workflow's token. */
const TOKEN_ACCOUNT = { name: 'github-actions[bot]', email: '41898282+github-actions[bot]@users.noreply.github.com' };
const GITHUB_COMMITTER = { name: 'GitHub', email: 'noreply@github.com' };

function git(dir: string, args: string[], o: { input?: Buffer | string; env?: Record<string, string> } = {}): string {
  return execFileSync('git', ['--git-dir', dir, ...args], {
    input: o.input,
    env: { ...process.env, ...o.env },
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 512 * 1024 * 1024,
  }).trim();
}

const typeOf = (dir: string, sha: string): string | undefined => {
  const r = spawnSync('git', ['--git-dir', dir, 'cat-file', '-t', sha], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
};

const repoUrl = (s: FakeGitHubState) => `${API}/repos/${s.owner}/${s.repo}`;

function createBlob(dir: string, r: RecordedRequest, s: FakeGitHubState): RouteResult {
  const content = field<string>(r, 'content') ?? '';
  const encoding = field<string>(r, 'encoding') ?? 'utf-8';
  if (encoding !== 'utf-8' && encoding !== 'base64')
    return validationFailed({ resource: 'Blob', field: 'encoding', code: 'invalid' });
  const bytes = Buffer.from(content, encoding === 'base64' ? 'base64' : 'utf8');
  if (bytes.length > MAX_BLOB_BYTES)
    return validationFailed({ resource: 'Blob', field: 'content', code: 'too_large', message: 'content too large' });
  const sha = git(dir, ['hash-object', '-w', '--stdin'], { input: bytes });
  return { status: 201, body: { url: `${repoUrl(s)}/git/blobs/${sha}`, sha } };
}

interface TreeEntry {
  path?: string;
  mode?: string;
  type?: string;
  sha?: string | null;
  content?: string;
}

/** The index line of one entry (mode 0 removes the path), or why GitHub would refuse it. */
function indexLine(dir: string, e: TreeEntry): string | { error: string } {
  if (!e.path || !e.mode) return { error: 'tree entries need a path and a mode' };
  if (e.sha === null) return `0 ${'0'.repeat(40)}\t${e.path}\0`;
  if (e.type === 'tree' || e.mode === '040000') return { error: 'fake-github serves no tree entries of type tree' };
  const sha = e.content !== undefined ? git(dir, ['hash-object', '-w', '--stdin'], { input: e.content }) : e.sha;
  if (!sha) return { error: `tree.sha or content is needed for ${e.path}` };
  const want = e.mode === '160000' ? 'commit' : 'blob';
  if ((e.type ?? want) !== want) return { error: `mode ${e.mode} needs type ${want} (${e.path})` };
  if (want === 'blob' && typeOf(dir, sha) !== 'blob') return { error: `tree.sha ${sha} is not a valid blob` };
  return `${e.mode} ${sha}\t${e.path}\0`;
}

function createTree(dir: string, r: RecordedRequest, s: FakeGitHubState): RouteResult {
  const base = field<string>(r, 'base_tree');
  const entries = field<TreeEntry[]>(r, 'tree') ?? [];
  if (base !== undefined && typeOf(dir, base) !== 'tree')
    return validationFailed({
      resource: 'Tree',
      field: 'base_tree',
      code: 'invalid',
      message: 'base_tree is not a valid tree oid',
    });
  const lines: string[] = [];
  for (const e of entries) {
    const line = indexLine(dir, e);
    if (typeof line !== 'string') return { status: 422, body: { message: `GitRPC::BadObjectState: ${line.error}` } };
    lines.push(line);
  }
  const tmp = mkdtempSync(join(tmpdir(), 'fake-github-index-'));
  try {
    const env = { GIT_INDEX_FILE: join(tmp, 'index') };
    git(dir, base ? ['read-tree', base] : ['read-tree', '--empty'], { env });
    git(dir, ['update-index', '-z', '--index-info'], { env, input: lines.join('') });
    const sha = git(dir, ['write-tree'], { env });
    return { status: 201, body: treeJson(dir, s, sha) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** git-tree: the top-level entries, as GitHub answers without `recursive`. */
function treeJson(dir: string, s: FakeGitHubState, sha: string) {
  const out = git(dir, ['ls-tree', '-l', '-z', sha]);
  const tree = out
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [meta, path] = line.split('\t');
      const [mode, type, id, size] = meta.split(/\s+/);
      const kind = type === 'tree' ? 'trees' : 'blobs';
      return {
        path,
        mode,
        type,
        sha: id,
        ...(size !== '-' ? { size: Number(size) } : {}),
        url: `${repoUrl(s)}/git/${kind}/${id}`,
      };
    });
  return { sha, url: `${repoUrl(s)}/git/trees/${sha}`, truncated: false, tree };
}

interface Person {
  name: string;
  email: string;
  date?: string;
}

function createCommit(dir: string, r: RecordedRequest, s: FakeGitHubState): RouteResult {
  const message = field<string>(r, 'message') ?? '';
  const tree = field<string>(r, 'tree') ?? '';
  const parents = field<string[]>(r, 'parents') ?? [];
  const author = field<Person>(r, 'author');
  const committer = field<Person>(r, 'committer');
  if (typeOf(dir, tree) !== 'tree')
    return validationFailed({ resource: 'Commit', field: 'tree', code: 'invalid', message: 'Tree SHA does not exist' });
  for (const p of parents)
    if (typeOf(dir, p) !== 'commit')
      return validationFailed({
        resource: 'Commit',
        field: 'parents',
        code: 'invalid',
        message: 'Parent SHA does not exist or is not a commit object',
      });
  // No author and no committer: the token's account, GitHub as committer, and GitHub signs it.
  const signed = !author && !committer;
  const when = Math.floor(s.clock() / 1000);
  const a = author ?? TOKEN_ACCOUNT;
  const c = committer ?? (author ? author : GITHUB_COMMITTER);
  const stamp = (p: Person) => `${p.name} <${p.email}> ${p.date ? Math.floor(Date.parse(p.date) / 1000) : when} +0000`;
  const headers = [
    `tree ${tree}`,
    ...parents.map((p) => `parent ${p}`),
    `author ${stamp(a)}`,
    `committer ${stamp(c)}`,
    ...(signed ? [`gpgsig -----BEGIN PGP SIGNATURE-----\n \n ${FAKE_SIGNATURE}\n -----END PGP SIGNATURE-----`] : []),
  ];
  const text = `${headers.join('\n')}\n\n${message}`;
  const sha = git(dir, ['hash-object', '-t', 'commit', '-w', '--stdin'], { input: text });
  const iso = (p: Person) => (p.date ? new Date(p.date) : new Date(when * 1000)).toISOString().replace('.000Z', 'Z');
  return {
    status: 201,
    body: {
      sha,
      node_id: `C_${sha.slice(0, 16)}`,
      url: `${repoUrl(s)}/git/commits/${sha}`,
      html_url: `https://github.test/${s.owner}/${s.repo}/commit/${sha}`,
      author: { name: a.name, email: a.email, date: iso(a) },
      committer: { name: c.name, email: c.email, date: iso(c) },
      message,
      tree: { sha: tree, url: `${repoUrl(s)}/git/trees/${tree}` },
      parents: parents.map((p) => ({
        sha: p,
        url: `${repoUrl(s)}/git/commits/${p}`,
        html_url: `https://github.test/${s.owner}/${s.repo}/commit/${p}`,
      })),
      verification: signed
        ? {
            verified: true,
            reason: 'valid',
            signature: FAKE_SIGNATURE,
            payload: text,
            verified_at: new Date(when * 1000).toISOString(),
          }
        : { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
    },
  };
}

/** What the fake writes where GitHub writes its signature: a test can tell a commit the API made. */
export const FAKE_SIGNATURE = 'fake-github signed this commit';

const readRef = (dir: string, ref: string): string | undefined => {
  const r = spawnSync('git', ['--git-dir', dir, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
    encoding: 'utf8',
  });
  return r.status === 0 ? r.stdout.trim() : undefined;
};

function createRef(dir: string, r: RecordedRequest, s: FakeGitHubState): RouteResult {
  const ref = String(field(r, 'ref'));
  const sha = String(field(r, 'sha'));
  if (!/^refs\/.+\/.+/.test(ref)) return { status: 422, body: { message: `${ref} is not a valid ref name.` } };
  if (readRef(dir, ref)) return { status: 422, body: { message: 'Reference already exists' } };
  if (typeOf(dir, sha) !== 'commit') return { status: 422, body: { message: 'Object does not exist' } };
  git(dir, ['update-ref', '-m', REFLOG_MESSAGE, ref, sha, '']);
  return ok(refJson(s, ref.replace(/^refs\//, ''), sha), 201);
}

function updateRef(dir: string, name: string, r: RecordedRequest, s: FakeGitHubState): RouteResult {
  const ref = `refs/${name}`;
  const old = readRef(dir, ref);
  const sha = String(field(r, 'sha'));
  if (!old) return { status: 422, body: { message: 'Reference does not exist' } };
  if (typeOf(dir, sha) !== 'commit') return { status: 422, body: { message: 'Object does not exist' } };
  const ff = spawnSync('git', ['--git-dir', dir, 'merge-base', '--is-ancestor', old, sha]).status === 0;
  if (!ff && field(r, 'force') !== true) return { status: 422, body: { message: 'Update is not a fast forward' } };
  git(dir, ['update-ref', '-m', REFLOG_MESSAGE, ref, sha, old]);
  return ok(refJson(s, name, sha));
}

/** The routes, when the state has a repository behind it; without one, ref writes stay in `state.refs`. */
export function gitDataRoutes(fallback: Routes): Routes {
  const backed =
    (
      route: (dir: string, p: Record<string, string>, r: RecordedRequest, s: FakeGitHubState) => RouteResult,
      id: string,
    ) =>
    (p: Record<string, string>, r: RecordedRequest, s: FakeGitHubState): RouteResult => {
      if (s.gitDir) return route(s.gitDir, p, r, s);
      const other = fallback[id];
      return other ? other(p, r, s) : { status: 404, body: { message: 'Not Found' } };
    };
  return {
    'git/create-blob': backed((dir, _p, r, s) => createBlob(dir, r, s), 'git/create-blob'),
    'git/create-tree': backed((dir, _p, r, s) => createTree(dir, r, s), 'git/create-tree'),
    'git/create-commit': backed((dir, _p, r, s) => createCommit(dir, r, s), 'git/create-commit'),
    'git/create-ref': backed((dir, _p, r, s) => createRef(dir, r, s), 'git/create-ref'),
    'git/update-ref': backed((dir, p, r, s) => updateRef(dir, p.ref, r, s), 'git/update-ref'),
  };
}
