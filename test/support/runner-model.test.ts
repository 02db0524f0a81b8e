/**
 * The runner model against GitHub's table of events and actions/checkout's defaults: each case
 * names the fact it holds, so a model that drifts (a comment on a pull request checking out the
 * head, a depth-1 clone carrying refs/pull/N/head) goes red here before an e2e test trusts it.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { git } from './git-repo.js';
import {
  checkoutFor,
  checkoutHeader,
  CHECKOUT_HEADER_KEY,
  createRemote,
  jobFor,
  jobRefsFor,
  pullFiles,
  RUNNER_TOKEN,
} from './runner-model.js';

const FILES = { 'README.md': '# hello\n', 'src/a.js': 'export const a = 1;\n' };

const remoteWithPulls = () =>
  createRemote({
    files: FILES,
    branches: { docs: { 'docs/x.md': 'x\n' } },
    pulls: [
      { number: 2, head: 'feature', files: { 'src/a.js': 'export const a = 2;\n' } },
      { number: 3, head: 'patch-1', fork: 'contributor/hello', files: { 'src/b.js': 'export const b = 3;\n' } },
    ],
  });

const tryGit = (dir: string, ...args: string[]) => {
  try {
    return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
};

describe('runner model: GITHUB_REF and GITHUB_SHA per event', () => {
  it('a comment on a pull request runs on the default branch, not the pull request', () => {
    const remote = remoteWithPulls();
    const refs = jobRefsFor(remote, { name: 'issue_comment', pull: 2 });
    expect(refs.ref).toBe('refs/heads/main');
    expect(refs.sha).toBe(remote.branches().main);
    expect(refs.sha).not.toBe(remote.pull(2).headSha);
  });

  it.each(['pull_request', 'pull_request_review', 'pull_request_review_comment'])(
    '%s runs on refs/pull/N/merge, a merge of head into base',
    (name) => {
      const remote = remoteWithPulls();
      const refs = jobRefsFor(remote, { name, pull: 2 });
      const pr = remote.pull(2);
      expect(refs.ref).toBe('refs/pull/2/merge');
      expect(refs.sha).toBe(pr.mergeSha);
      expect(git(remote.dir, 'log', '-1', '--format=%P %s', refs.sha)).toBe(
        `${pr.baseSha} ${pr.headSha} Merge ${pr.headSha} into ${pr.baseSha}`,
      );
    },
  );

  it('pull_request_target runs on the base branch; only pull_request and pull_request_target set GITHUB_HEAD_REF', () => {
    const remote = remoteWithPulls();
    const target = jobFor(remote, { name: 'pull_request_target', pull: 3 });
    expect(target.env).toMatchObject({
      GITHUB_REF: 'refs/heads/main',
      GITHUB_SHA: remote.branches().main,
      GITHUB_HEAD_REF: 'patch-1',
      GITHUB_BASE_REF: 'main',
    });
    expect(jobFor(remote, { name: 'pull_request_review', pull: 2 }).env.GITHUB_HEAD_REF).toBeUndefined();
    expect(jobFor(remote, { name: 'issue_comment', pull: 2 }).env.GITHUB_HEAD_REF).toBeUndefined();
  });

  it('a fork pull_request run is restricted (no secrets, read-only token); a same-repository one is not', () => {
    const remote = remoteWithPulls();
    expect(jobRefsFor(remote, { name: 'pull_request', pull: 3 }).restricted).toBe(true);
    expect(jobRefsFor(remote, { name: 'pull_request', pull: 2 }).restricted).toBe(false);
    expect(jobRefsFor(remote, { name: 'pull_request_target', pull: 3 }).restricted).toBe(false);
  });

  it('a conflicting pull request has no merge ref: GitHub runs no pull_request workflow for it', () => {
    const remote = createRemote({
      files: FILES,
      pulls: [{ number: 4, head: 'clash', files: { 'src/a.js': 'export const a = 4;\n' } }],
    });
    remote.push('main', { 'src/a.js': 'export const a = 5;\n' });
    expect(remote.pull(4).mergeSha).toBeUndefined();
    expect(() => jobRefsFor(remote, { name: 'pull_request', pull: 4 })).toThrow(/no merge ref/);
  });

  it('workflow_dispatch runs on the ref chosen', () => {
    const remote = remoteWithPulls();
    expect(jobRefsFor(remote, { name: 'workflow_dispatch', dispatchRef: 'refs/heads/docs' })).toMatchObject({
      ref: 'refs/heads/docs',
      sha: remote.branches().docs,
    });
  });
});

describe('runner model: what actions/checkout leaves in the workspace', () => {
  it('defaults: one commit of the branch, checked out with -B, no other branch, no pull refs, the token in .git/config', () => {
    const remote = remoteWithPulls();
    const job = jobFor(remote, { name: 'issue_comment', pull: 2 });
    const dir = job.checkout.dir;
    expect(job.checkout).toMatchObject({ sha: remote.branches().main, branch: 'main' });
    expect(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    expect(git(dir, 'rev-parse', '--is-shallow-repository')).toBe('true');
    expect(git(dir, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/main\nrefs/remotes/origin/main');
    expect(tryGit(dir, 'cat-file', '-e', `${remote.pull(2).headSha}^{commit}`)).toBeUndefined();
    expect(git(dir, 'config', '--local', '--get', CHECKOUT_HEADER_KEY)).toBe(checkoutHeader(RUNNER_TOKEN));
    expect(checkoutHeader('t')).toBe(`AUTHORIZATION: basic ${Buffer.from('x-access-token:t').toString('base64')}`);
  });

  it('a review comment event: the merge commit, detached, under refs/remotes/pull/N/merge', () => {
    const remote = remoteWithPulls();
    const job = jobFor(remote, { name: 'pull_request_review_comment', pull: 2 });
    const dir = job.checkout.dir;
    expect(job.checkout.branch).toBeUndefined();
    expect(tryGit(dir, 'symbolic-ref', '-q', 'HEAD')).toBeUndefined();
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(remote.pull(2).mergeSha);
    expect(git(dir, 'for-each-ref', '--format=%(refname)')).toBe('refs/remotes/pull/2/merge');
  });

  it('persist-credentials false leaves no header; fetch-depth 0 brings every branch and the history', () => {
    const remote = remoteWithPulls();
    const refs = jobRefsFor(remote, { name: 'issue_comment' });
    const dir = checkoutFor(remote, refs, { persistCredentials: false, fetchDepth: 0 }).dir;
    expect(tryGit(dir, 'config', '--local', '--get', CHECKOUT_HEADER_KEY)).toBeUndefined();
    expect(git(dir, 'rev-parse', '--is-shallow-repository')).toBe('false');
    expect(git(dir, 'for-each-ref', '--format=%(refname)', 'refs/remotes')).toBe(
      'refs/remotes/origin/docs\nrefs/remotes/origin/feature\nrefs/remotes/origin/main',
    );
  });

  it("with ref: refs/pull/N/head the workflow gets the head (also a fork's), detached", () => {
    const remote = remoteWithPulls();
    const refs = jobRefsFor(remote, { name: 'pull_request_target', pull: 3 });
    const co = checkoutFor(remote, refs, { ref: 'refs/pull/3/head' });
    expect(co.sha).toBe(remote.pull(3).headSha);
    expect(co.branch).toBeUndefined();
  });
});

describe('runner model: the repository on GitHub', () => {
  it("a fork's head lives in the fork; the base repository keeps refs/pull/N/head for it", () => {
    const remote = remoteWithPulls();
    const pr = remote.pull(3);
    expect(pr).toMatchObject({ isFork: true, headRepository: 'contributor/hello', headRef: 'patch-1' });
    expect(tryGit(remote.dir, 'rev-parse', '--verify', 'refs/heads/patch-1')).toBeUndefined();
    expect(git(remote.dir, 'rev-parse', 'refs/pull/3/head')).toBe(pr.headSha);
    expect(git(remote.forks['contributor/hello'], 'rev-parse', 'refs/heads/patch-1')).toBe(pr.headSha);
  });

  it('a push to the head branch moves refs/pull/N/head and remakes the merge ref', () => {
    const remote = remoteWithPulls();
    const before = remote.pull(2);
    const sha = remote.push('feature', { 'src/c.js': 'c\n' });
    const after = remote.pull(2);
    expect(after.headSha).toBe(sha);
    expect(git(remote.dir, 'rev-parse', 'refs/pull/2/head')).toBe(sha);
    expect(after.mergeSha).not.toBe(before.mergeSha);
    expect(git(remote.dir, 'log', '-1', '--format=%P', after.mergeSha!)).toBe(`${after.baseSha} ${sha}`);
  });

  it('pull files are base...head with patches, as GET /pulls/{n}/files lists them', () => {
    const remote = remoteWithPulls();
    expect(pullFiles(remote, 2)).toEqual([
      {
        filename: 'src/a.js',
        status: 'modified',
        patch: '@@ -1 +1 @@\n-export const a = 1;\n+export const a = 2;',
        additions: 1,
        deletions: 1,
      },
    ]);
    expect(pullFiles(remote, 3)).toEqual([
      {
        filename: 'src/b.js',
        status: 'added',
        patch: '@@ -0,0 +1 @@\n+export const b = 3;',
        additions: 1,
        deletions: 0,
      },
    ]);
  });
});
