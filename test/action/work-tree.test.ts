/**
 * prepareWorkTree on the workspaces a runner really gives (test/support/runner-model.ts): whatever
 * the workflow checked out, a pull request's command ends up on the head `refs/pull/N/head` names,
 * without the clone's history growing and without carrying an earlier step's changes along; what
 * earlier steps left is recorded, path by path.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitWorktree, pushHead } from '../../src/action/publish/commits.js';
import { prepareWorkTree, readLeftovers } from '../../src/action/work-tree.js';
import { git, writeFiles } from '../support/git-repo.js';
import { createRemote, jobFor } from '../support/runner-model.js';

const FILES = { 'README.md': '# hello\n', 'src/a.js': 'export const a = 1;\n' };
const remoteWithPull = () =>
  createRemote({
    files: FILES,
    pulls: [
      {
        number: 2,
        head: 'feature',
        files: { 'src/a.js': 'export const a = 2;\n', 'src/new.js': 'export const n = 0;\n' },
      },
    ],
  });
const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');

describe('prepareWorkTree: a pull request command works on the head', () => {
  it('issue_comment (the default branch, one commit deep): moves to the head, fetches the base, stays one commit deep', async () => {
    const remote = remoteWithPull();
    remote.push('main', { 'docs.md': 'later on main\n' }); // main moves on after the pull request was opened
    const { checkout } = jobFor(remote, { name: 'issue_comment', pull: 2 });
    const pr = remote.pull(2);
    const prepared = await prepareWorkTree({
      root: checkout.dir,
      remote: { url: remote.dir },
      pull: { number: 2, baseSha: pr.baseSha },
    });

    expect(prepared).toMatchObject({ head: pr.headSha, leftovers: [], notes: [] });
    expect(git(checkout.dir, 'rev-parse', 'HEAD')).toBe(pr.headSha);
    expect(() => git(checkout.dir, 'symbolic-ref', '-q', 'HEAD'), 'HEAD detached').toThrow();
    expect(read(checkout.dir, 'src/a.js')).toBe('export const a = 2;\n');
    expect(existsSync(join(checkout.dir, 'docs.md'))).toBe(false);
    // One commit of the head, not the project's history; the base commit is there for the trusted configuration.
    expect(git(checkout.dir, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(git(checkout.dir, 'cat-file', '-t', pr.baseSha)).toBe('commit');
    expect(prepared!.logLine).toBe(
      `work tree: pull request #2's head ${pr.headSha} (refs/pull/2/head); the workflow had checked out ${remote.branches().main}`,
    );
  });

  it('a review comment (the merge ref, detached): the head, not the test-merge commit', async () => {
    const remote = remoteWithPull();
    const { checkout } = jobFor(remote, { name: 'pull_request_review_comment', pull: 2 });
    expect(checkout.sha).toBe(remote.pull(2).mergeSha);
    const prepared = await prepareWorkTree({ root: checkout.dir, remote: { url: remote.dir }, pull: { number: 2 } });
    expect(prepared?.head).toBe(remote.pull(2).headSha);
    expect(git(checkout.dir, 'rev-parse', 'HEAD')).toBe(remote.pull(2).headSha);
  });

  it('a full clone (fetch-depth 0): the head with its history, the clone not made shallow', async () => {
    const remote = remoteWithPull();
    const { checkout } = jobFor(
      remote,
      { name: 'issue_comment', pull: 2 },
      { fetchDepth: 0, persistCredentials: false },
    );
    await prepareWorkTree({ root: checkout.dir, remote: { url: remote.dir }, pull: { number: 2 } });
    expect(git(checkout.dir, 'rev-parse', 'HEAD')).toBe(remote.pull(2).headSha);
    expect(git(checkout.dir, 'rev-parse', '--is-shallow-repository')).toBe('false');
    expect(git(checkout.dir, 'rev-list', '--count', 'HEAD')).toBe('2');
  });

  it('the head already checked out (ref: refs/pull/N/head): nothing moves, leftovers recorded', async () => {
    const remote = remoteWithPull();
    const { checkout } = jobFor(remote, { name: 'pull_request_target', pull: 2 }, { ref: 'refs/pull/2/head' });
    writeFiles(checkout.dir, { 'out.txt': 'built\n' });
    const prepared = await prepareWorkTree({ root: checkout.dir, remote: { url: remote.dir }, pull: { number: 2 } });
    expect(prepared).toMatchObject({ head: remote.pull(2).headSha, leftovers: [{ path: 'out.txt', mode: '100644' }] });
    expect(prepared!.logLine).toContain('as checked out');
  });

  it("earlier steps' files: a new one stays (recorded), a change to a tracked file stays behind, one the head also has gives way", async () => {
    const remote = remoteWithPull();
    const { checkout } = jobFor(remote, { name: 'issue_comment', pull: 2 });
    const dir = checkout.dir;
    writeFiles(dir, {
      '.gemini/context.json': '{"from":"a step"}\n',
      'README.md': '# changed by a step\n',
      'src/new.js': 'a step wrote this\n',
    });
    const prepared = await prepareWorkTree({ root: dir, remote: { url: remote.dir }, pull: { number: 2 } });

    expect(prepared!.leftovers.map((l) => l.path)).toEqual(['.gemini/context.json']);
    expect(prepared!.leftovers[0].blob).toBe(git(dir, 'hash-object', '.gemini/context.json'));
    expect(read(dir, '.gemini/context.json')).toBe('{"from":"a step"}\n');
    expect(read(dir, 'README.md')).toBe('# hello\n');
    expect(read(dir, 'src/new.js')).toBe('export const n = 0;\n');
    expect(prepared!.notes).toEqual([
      "Earlier steps of the job changed `README.md` in the commit the workflow checked out; the agent works on the pull request's head, without those changes.",
      "Earlier steps of the job wrote `src/new.js`, which the pull request's head has too: the head's version is in the work tree.",
      "`.gemini/context.json`, left in the work tree by earlier steps of the job, is not the agent's work: never committed.",
    ]);
  });

  it('a head that cannot be fetched fails, naming the cause', async () => {
    const remote = remoteWithPull();
    const { checkout } = jobFor(remote, { name: 'issue_comment', pull: 2 });
    await expect(
      prepareWorkTree({ root: checkout.dir, remote: { url: remote.dir }, pull: { number: 9 } }),
    ).rejects.toThrow(
      /^the pull request's head could not be fetched \(refs\/pull\/9\/head\): fatal: couldn't find remote ref refs\/pull\/9\/head/,
    );
    expect(git(checkout.dir, 'rev-parse', 'HEAD')).toBe(remote.branches().main);
  });

  it('not a pull request: nothing is fetched, the leftovers are what differs from HEAD', async () => {
    const remote = remoteWithPull();
    const { checkout } = jobFor(remote, { name: 'issues' });
    writeFileSync(join(checkout.dir, 'README.md'), '# step\n');
    const prepared = await prepareWorkTree({ root: checkout.dir, remote: { url: '/nonexistent' } });
    expect(prepared).toMatchObject({
      head: remote.branches().main,
      leftovers: [{ path: 'README.md', mode: '100644', blob: git(checkout.dir, 'hash-object', 'README.md') }],
    });
    expect(await readLeftovers(checkout.dir, remote.branches().main)).toEqual(prepared!.leftovers);
  });
});

describe('the agent commit on a one-commit-deep clone', () => {
  it('goes on the head, and is replayed onto a head that moved, with no more history fetched', async () => {
    const remote = remoteWithPull();
    const { checkout } = jobFor(remote, { name: 'issue_comment', pull: 2 });
    const dir = checkout.dir;
    const start = await prepareWorkTree({ root: dir, remote: { url: remote.dir }, pull: { number: 2 } });
    writeFiles(dir, { 'README.md': '# hello, agent\n' });
    const commit = await commitWorktree(dir, { subject: 'agent-action: fix (#2)', start });
    const moved = remote.push('feature', { 'src/later.js': 'pushed while the agent worked\n' });
    const pushed = await pushHead(dir, 'feature', { remote: { url: remote.dir } });

    expect(pushed.rebased).toBe(true);
    expect(git(remote.dir, 'rev-list', '--parents', '-n', '1', 'feature')).toBe(`${pushed.sha} ${moved}`);
    expect(git(remote.dir, 'show', 'feature:README.md')).toBe('# hello, agent');
    expect(git(remote.dir, 'show', 'feature:src/later.js')).toBe('pushed while the agent worked');
    expect(commit.parent).toBe(start!.head);
    expect(git(dir, 'rev-parse', '--is-shallow-repository')).toBe('true');
  });
});
