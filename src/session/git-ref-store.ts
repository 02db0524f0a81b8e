/**
 * Sessions stored in the repository itself: each session is a commit on
 * `refs/agent-action/sessions/<id>` whose tree holds one `session.json`, parented on the previous
 * version. It needs only `contents: write`, outlives artifacts, and works across workflows.
 *
 * Every write is `git push --force-with-lease=<ref>:<expected>`: the server compares the ref with
 * the expected commit under its ref lock, so it is a real compare-and-swap. The ref is only ever
 * replaced whole (a new commit), so a runner that dies mid-write leaves the previous version.
 * Writing objects uses plumbing only (hash-object, mktree, commit-tree): the work tree, the index
 * and HEAD of the checkout are never touched.
 */
import { randomBytes } from 'node:crypto';
import { AgentError } from '../common/errors.js';
import { encodeSession, parseSession, type SessionDoc } from './codec.js';
import { assertGit, GIT_REMOTE, runGit, SESSION_IDENTITY, type GitRemote } from '../git/git.js';
import type { SessionKey } from './sign.js';
import type { CasResult, SessionStore, StoredSession } from './store.js';

export const SESSION_REF_PREFIX = 'refs/agent-action/sessions/';
/** Local copies of fetched sessions; kept apart from the remote's namespace. */
const LOCAL_PREFIX = 'refs/agent-action/fetched/';
const FILE = 'session.json';

export interface GitRefStoreOptions {
  /** A clone of the repository (the workspace). */
  root: string;
  /** The repository that holds the sessions (read before the model ran), with the token to push. */
  remote: GitRemote;
  /** Signs every document written and verifies every document read. */
  key: SessionKey;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function assertId(id: string): void {
  if (!ID.test(id) || id.includes('..') || id.endsWith('.lock') || id.endsWith('.')) {
    throw new AgentError('internal', `session id ${JSON.stringify(id)} cannot name a git ref`);
  }
}

export function createGitRefStore(opts: GitRefStoreOptions): SessionStore {
  const { root, remote, key } = opts;
  const refOf = (id: string) => (assertId(id), `${SESSION_REF_PREFIX}${id}`);

  async function writeCommit(doc: SessionDoc, parent: string | undefined): Promise<string> {
    const blob = await assertGit(root, ['hash-object', '-w', '--stdin'], { input: encodeSession(doc, key) });
    const tree = await assertGit(root, ['mktree'], { input: `100644 blob ${blob}\t${FILE}\n` });
    if (parent && (await runGit(root, ['cat-file', '-e', `${parent}^{commit}`])).code !== 0) {
      // The parent only links versions for inspection; a clone that never fetched it still writes.
      parent = undefined;
    }
    // A random write id makes every commit unique. Two runs writing the same document at the same
    // second would otherwise build the same commit, and git reports a push of a commit the remote
    // already has as "up to date" without checking the lease: both would think they won.
    const message = `agent-action session ${doc.id}: request ${doc.request.status}\n\nwrite ${randomBytes(8).toString('hex')}\n`;
    return assertGit(root, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], {
      env: SESSION_IDENTITY,
    });
  }

  /** Push `src` (a commit id, or '' to delete) to the ref only if the remote still has `expected`. */
  async function casPush(ref: string, expected: string, src: string): Promise<CasResult> {
    const r = await runGit(
      root,
      ['push', '--porcelain', '--no-verify', `--force-with-lease=${ref}:${expected}`, GIT_REMOTE, `${src}:${ref}`],
      { remote },
    );
    const lines = r.stdout.toString('utf8').split('\n');
    const line = lines.find((l) => l.split('\t')[1]?.endsWith(`:${ref}`));
    // '=' (already up to date) means the remote has this very commit: never ours to claim.
    if (line?.startsWith('!') || (line?.startsWith('=') && src !== expected)) {
      const why = line.split('\t')[2] ?? 'rejected';
      return { ok: false, reason: 'conflict', message: `session ref ${ref} changed since it was read (${why})` };
    }
    if (r.code !== 0 || !line) {
      throw new AgentError(
        'general',
        `could not write ${ref} to ${remote.url}: ${r.stderr.trim() || `git push exited ${r.code}`}`,
      );
    }
    return { ok: true, version: src || expected };
  }

  return {
    async read(id) {
      const ref = refOf(id);
      const local = `${LOCAL_PREFIX}${id}`;
      const r = await runGit(
        root,
        ['fetch', '--no-tags', '--quiet', '--no-write-fetch-head', GIT_REMOTE, `+${ref}:${local}`],
        { remote },
      );
      if (r.code !== 0) {
        if (/couldn't find remote ref/i.test(r.stderr)) return undefined;
        throw new AgentError('general', `could not fetch ${ref} from ${remote.url}: ${r.stderr.trim()}`);
      }
      const version = await assertGit(root, ['rev-parse', '--verify', `${local}^{commit}`]);
      const blob = await runGit(root, ['cat-file', 'blob', `${version}:${FILE}`]);
      const parsed =
        blob.code === 0
          ? parseSession(blob.stdout.toString('utf8'), key)
          : ({
              ok: false,
              error: { code: 'invalid', message: `session commit ${version.slice(0, 12)} has no ${FILE}` },
            } as const);
      return { id, version, parsed } satisfies StoredSession;
    },

    async create(doc) {
      return casPush(refOf(doc.id), '', await writeCommit(doc, undefined));
    },

    async update(id, expected, doc) {
      if (doc.id !== id)
        throw new AgentError('internal', `session ${id}: cannot store a document of session ${doc.id}`);
      return casPush(refOf(id), expected, await writeCommit(doc, expected));
    },

    async delete(id, expected) {
      return casPush(refOf(id), expected, '');
    },

    async list() {
      const out = await assertGit(root, ['ls-remote', '--refs', GIT_REMOTE, `${SESSION_REF_PREFIX}*`], { remote });
      return out
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [version, ref] = l.split('\t');
          return { id: ref.slice(SESSION_REF_PREFIX.length), version };
        });
    },
  };
}
