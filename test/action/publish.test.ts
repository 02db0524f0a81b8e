import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitHubClient, type GitHubClient } from '../../src/action/github-client.js';
import { commitWorktree, pushHead } from '../../src/action/publish/commits.js';
import { publishIssueFix, slugOf } from '../../src/action/publish/pull-request.js';
import { readLeftovers } from '../../src/action/work-tree.js';
import {
  parsePatchLines,
  planReview,
  publishReview,
  readPullDiffSides,
  suggestionsFromDiff,
} from '../../src/action/publish/review.js';
import { createRepo, git, makeTempDir, writeFiles } from '../support/git-repo.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';

let gh: FakeGitHub;
let octokit: GitHubClient;
const repo = { owner: 'octo', repo: 'hello' };

beforeEach(async () => {
  gh = await startFakeGitHub();
  octokit = createGitHubClient({ token: 't', baseUrl: gh.url, secrets: [], pacing: 'none', retryAfterBaseMs: 1 });
});
afterEach(() => gh.close());

describe('commits to a same-repository pull request branch', () => {
  it('commits with an explicit identity and the requester as co-author, and pushes without force', async () => {
    const { dir, remote } = createRepo({ 'a.txt': 'one\n' }, { remote: true });
    git(dir, 'checkout', '-q', '-b', 'feature');
    git(dir, 'push', '-q', 'origin', 'feature');
    const start = git(dir, 'rev-parse', 'HEAD');
    writeFiles(dir, { 'a.txt': 'two\n', 'new/b.txt': 'b\n' });
    const commit = await commitWorktree(dir, { subject: 'agent-action: fix', coAuthor: 'maintainer' });
    expect(commit).toMatchObject({ parent: start, files: ['a.txt', 'new/b.txt'], leftOut: [] });
    const pushed = await pushHead(dir, 'feature', { remote: { url: remote! } });
    expect(pushed).toEqual({ sha: commit.sha, rebased: false });
    expect(git(remote!, 'rev-parse', 'feature')).toBe(commit.sha);
    const msg = git(remote!, 'log', '-1', '--format=%an <%ae>|%cn|%B', 'feature');
    expect(msg).toContain(
      'github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>|github-actions[bot]|agent-action: fix',
    );
    expect(msg).toContain('Co-authored-by: maintainer <maintainer@users.noreply.github.com>');
    expect(git(remote!, 'show', 'feature:new/b.txt')).toBe('b');
    // HEAD is detached at the commit; the local branch the workflow checked out did not move, the index is the commit's.
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(commit.sha);
    expect(git(dir, 'rev-parse', 'refs/heads/feature')).toBe(start);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('nothing to commit: no commit, HEAD where it was', async () => {
    const { dir } = createRepo();
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(await commitWorktree(dir, { subject: 'x' })).toEqual({ parent: head, files: [], leftOut: [] });
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('what earlier steps left is never committed: untouched, or edited by the agent; it stays in the work tree', async () => {
    const { dir } = createRepo({ 'a.txt': 'one\n', 'conf.txt': 'committed\n' });
    // Earlier steps of the job: a credentials file written, a tracked file changed.
    writeFiles(dir, { 'gha-creds-1.json': '{"private_key":"k"}\n', 'conf.txt': 'changed by a step\n' });
    const start = {
      head: git(dir, 'rev-parse', 'HEAD'),
      leftovers: await readLeftovers(dir, git(dir, 'rev-parse', 'HEAD')),
    };
    expect(start.leftovers.map((l) => l.path)).toEqual(['conf.txt', 'gha-creds-1.json']);
    // The agent: its own change, and an edit of the step's file.
    writeFiles(dir, { 'a.txt': 'two\n', 'conf.txt': 'changed by a step, then by the agent\n' });
    const commit = await commitWorktree(dir, { subject: 'fix', start });
    expect(commit.files).toEqual(['a.txt']);
    expect(commit.leftOut).toEqual([
      { path: 'conf.txt', reason: 'leftover-edited' },
      { path: 'gha-creds-1.json', reason: 'leftover' },
    ]);
    expect(git(dir, 'ls-tree', '-r', '--name-only', commit.sha!)).toBe('a.txt\nconf.txt');
    expect(git(dir, 'show', `${commit.sha}:conf.txt`)).toBe('committed');
    expect(readFileSync(join(dir, 'gha-creds-1.json'), 'utf8')).toBe('{"private_key":"k"}\n');
    expect(readFileSync(join(dir, 'conf.txt'), 'utf8')).toBe('changed by a step, then by the agent\n');
  });

  it('a file over max-file-size is left out with its size; a run with only such a file commits nothing', async () => {
    const { dir } = createRepo({ 'a.txt': 'one\n' });
    writeFiles(dir, { 'big.bin': Buffer.alloc(2049, 7), 'a.txt': 'two\n' });
    const commit = await commitWorktree(dir, { subject: 'fix', maxFileBytes: 2048 });
    expect(commit.files).toEqual(['a.txt']);
    expect(commit.leftOut).toEqual([{ path: 'big.bin', reason: 'too-large', bytes: 2049, limit: 2048 }]);
    const only = createRepo({ 'a.txt': 'one\n' }).dir;
    writeFiles(only, { 'big.bin': Buffer.alloc(2049, 7) });
    expect((await commitWorktree(only, { subject: 'fix', maxFileBytes: 2048 })).sha).toBeUndefined();
  });

  it("max-file-size above GitHub's 100 MiB still stops at 100 MiB", async () => {
    const { dir } = createRepo({ 'a.txt': 'one\n' });
    writeFiles(dir, { 'huge.bin': Buffer.alloc(100 * 1024 * 1024 + 1) });
    const commit = await commitWorktree(dir, { subject: 'fix', maxFileBytes: 1024 ** 3 });
    expect(commit.leftOut).toEqual([{ path: 'huge.bin', reason: 'too-large', bytes: 104_857_601, limit: 104_857_600 }]);
  });

  it('when the branch moved: replays the commit onto its new tip and pushes once more (one parent, author kept, never forced)', async () => {
    const { dir, remote } = createRepo({ 'a.txt': 'one\n', 'b.txt': 'b\n' }, { remote: true });
    git(dir, 'checkout', '-q', '-b', 'feature');
    git(dir, 'push', '-q', 'origin', 'feature');
    // Someone else pushes to the branch meanwhile.
    const other = makeTempDir();
    git(other, 'clone', '-q', '-b', 'feature', remote!, '.');
    writeFiles(other, { 'b.txt': 'theirs\n' });
    git(other, 'commit', '-qam', 'theirs');
    git(other, 'push', '-q', 'origin', 'feature');
    const theirs = git(other, 'rev-parse', 'HEAD');

    writeFiles(dir, { 'a.txt': 'ours\n' });
    const commit = await commitWorktree(dir, {
      subject: 'ours',
      identity: { name: 'Agent', email: 'agent@example.test' },
    });
    const pushed = await pushHead(dir, 'feature', { remote: { url: remote! } });
    expect(pushed.rebased).toBe(true);
    expect(git(remote!, 'rev-parse', 'feature')).toBe(pushed.sha);
    expect(git(remote!, 'log', '-1', '--format=%P', 'feature')).toBe(theirs);
    expect(git(remote!, 'log', '-1', '--format=%an <%ae> %at|%B', 'feature')).toBe(
      `${git(dir, 'log', '-1', '--format=%an <%ae> %at', commit.sha!)}|ours`,
    );
    expect(git(remote!, 'show', 'feature:a.txt')).toBe('ours');
    expect(git(remote!, 'show', 'feature:b.txt')).toBe('theirs');
    // The work tree followed: HEAD is the pushed commit, theirs is in the files.
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(pushed.sha);
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('theirs\n');
  });

  it('a conflicting move pushes nothing and names the files', async () => {
    const { dir, remote } = createRepo({ 'a.txt': 'one\n', 'c.txt': 'c\n' }, { remote: true });
    const other = makeTempDir();
    git(other, 'clone', '-q', remote!, '.');
    writeFiles(other, { 'a.txt': 'theirs\n', 'c.txt': 'theirs\n' });
    git(other, 'commit', '-qam', 'theirs');
    git(other, 'push', '-q', 'origin', 'main');
    const theirs = git(other, 'rev-parse', 'HEAD');
    writeFiles(dir, { 'a.txt': 'ours\n' });
    await commitWorktree(dir, { subject: 'ours' });
    await expect(pushHead(dir, 'main', { remote: { url: remote! } })).rejects.toThrow(
      /^main moved while the agent worked \(to [0-9a-f]{12}\), and the agent's changes conflict with it in `a\.txt`; nothing was pushed$/,
    );
    expect(git(remote!, 'rev-parse', 'main')).toBe(theirs);
  });

  it('a new branch that appeared meanwhile is not pushed onto', async () => {
    const { dir, remote } = createRepo({ 'a.txt': 'one\n' }, { remote: true });
    git(dir, 'push', '-q', 'origin', 'main:taken');
    git(
      remote!,
      'update-ref',
      'refs/heads/taken',
      git(remote!, 'commit-tree', '-m', 'other', git(remote!, 'rev-parse', 'main^{tree}')),
    );
    writeFiles(dir, { 'a.txt': 'ours\n' });
    await commitWorktree(dir, { subject: 'ours' });
    await expect(pushHead(dir, 'taken', { remote: { url: remote! }, isNew: true })).rejects.toThrow(
      /the branch taken appeared on the remote while the agent worked; nothing was pushed/,
    );
  });
});

describe('issue fix: branch, push, then pull request', () => {
  it('pushes agent-action/issue-N-slug and opens a pull request that says Fixes #N', async () => {
    const { dir, remote } = createRepo({ 'a.txt': 'one\n' }, { remote: true });
    gh.state.refs.set('heads/main', git(dir, 'rev-parse', 'HEAD'));
    gh.addIssue({ number: 12, title: 'Crash on empty input!' });
    writeFiles(dir, { 'a.txt': 'fixed\n' });
    await commitWorktree(dir, { subject: 'Fix #12: Crash on empty input!' });
    const r = await publishIssueFix({
      octokit,
      repo,
      root: dir,
      issue: { number: 12, title: 'Crash on empty input!' },
      baseBranch: 'main',
      branchPrefix: 'agent-action/',
      requester: 'maintainer',
      summary: 'Guarded the empty case.',
      remote: { url: remote! },
    });
    // The fake has no git: the first attempt cannot see the pushed branch, so the PR is not opened...
    expect(r).toMatchObject({ status: 'pushed', branch: 'agent-action/issue-12-crash-on-empty-input' });
    // ...but the branch is on the remote: the work is kept.
    expect(git(remote!, 'show', 'agent-action/issue-12-crash-on-empty-input:a.txt')).toBe('fixed');
  });

  it('opens the pull request once GitHub knows the pushed branch', async () => {
    const { dir, remote } = createRepo({ 'a.txt': 'one\n' }, { remote: true });
    gh.state.refs.set('heads/main', git(dir, 'rev-parse', 'HEAD'));
    gh.addIssue({ number: 3, title: 'Typo' });
    gh.state.refs.set('heads/agent-action/issue-3-typo', 'pending'); // what the push will create
    git(remote!, 'branch', 'unrelated', 'main');
    writeFiles(dir, { 'a.txt': 'fixed\n' });
    // An existing remote branch of the same name makes it pick "-2".
    git(dir, 'push', '-q', 'origin', 'main:agent-action/issue-3-typo');
    gh.state.refs.set('heads/agent-action/issue-3-typo-2', 'pending');
    await commitWorktree(dir, { subject: 'Fix #3: Typo' });
    const r = await publishIssueFix({
      octokit,
      repo,
      root: dir,
      issue: { number: 3, title: 'Typo' },
      baseBranch: 'main',
      branchPrefix: 'agent-action/',
      requester: 'maintainer',
      summary: 'Fixed.',
      remote: { url: remote! },
    });
    expect(r).toMatchObject({ status: 'opened', branch: 'agent-action/issue-3-typo-2' });
    const [create] = gh.calls('POST', /\/pulls$/);
    expect(create.body).toMatchObject({ head: 'agent-action/issue-3-typo-2', base: 'main', title: 'Fix #3: Typo' });
    expect((create.body as { body: string }).body).toContain('Fixes #3');
    expect(git(remote!, 'show', 'agent-action/issue-3-typo-2:a.txt')).toBe('fixed');
  });

  it.each([
    ['Crash on empty input!', 'crash-on-empty-input'],
    ['  ', ''],
    ['Ünïcode ✓ title', 'unicode-title'],
  ])('slugOf(%j) = %j', (t, s) => expect(slugOf(t)).toBe(s));
});

const PATCH = '@@ -1,3 +1,4 @@\n line1\n-old2\n+new2\n+new3\n line3\n@@ -10,2 +11,2 @@\n ctx10\n-gone\n+here';

describe('review', () => {
  it('parsePatchLines knows both sides', () => {
    const s = parsePatchLines(PATCH);
    expect([...s.RIGHT].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 11, 12]);
    expect([...s.LEFT].sort((a, b) => a - b)).toEqual([1, 2, 3, 10, 11]);
  });

  it('planReview keeps inline only comments on diff lines', () => {
    const files = new Map([['src/a.ts', parsePatchLines(PATCH)]]);
    const plan = planReview(
      [
        { path: 'src/a.ts', line: 2, body: 'in diff' },
        { path: 'src/a.ts', line: 7, body: 'outside' },
        { path: 'src/b.ts', line: 1, body: 'other file' },
        { path: 'src/a.ts', line: 4, startLine: 2, body: 'range', suggestion: 'x\ny' },
        { path: 'src/a.ts', line: 5, startLine: 4, body: 'range leaves the hunk' },
        { path: 'src/a.ts', line: 11, side: 'LEFT', body: 'deleted line' },
      ],
      files,
    );
    expect(plan.inline.map((c) => c.body.split('\n')[0])).toEqual(['in diff', 'range', 'deleted line']);
    expect(plan.inline[1]).toMatchObject({ start_line: 2, line: 4, side: 'RIGHT' });
    expect(plan.inline[1].body).toContain('```suggestion\nx\ny\n```');
    expect(plan.outside).toHaveLength(3);
  });

  it('publishes one COMMENT review whose inline comments all sit on diff lines', async () => {
    gh.addPull({
      number: 4,
      title: 'pr',
      pull: {
        head: { ref: 'f', sha: 'h'.repeat(40), repoFullName: 'octo/hello' },
        base: { ref: 'main', sha: 'b'.repeat(40) },
        files: [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }],
      },
    });
    const files = await readPullDiffSides(octokit, repo, 4);
    const r = await publishReview({
      octokit,
      repo,
      pull: 4,
      summary: 'Looks fine.',
      files,
      comments: [
        { path: 'src/a.ts', line: 3, body: 'nit' },
        { path: 'src/a.ts', line: 8, body: 'not in diff' },
      ],
    });
    expect(r).toMatchObject({ inline: 1, outside: 1 });
    const [review] = gh.state.reviews;
    expect(review.event).toBe('COMMENT');
    // Hidden marker: a comment the action posted is never a command (pull_request_review_comment routes them).
    expect(review.comments).toEqual([
      { path: 'src/a.ts', line: 3, side: 'RIGHT', body: 'nit\n\n<!-- agent-action:review-comment -->' },
    ]);
    expect(review.body).toContain('src/a.ts:8');
  });

  it('bodies over GitHub’s 65,536 characters are cut with a note, so the review is not refused', async () => {
    gh.addPull({
      number: 5,
      title: 'pr',
      pull: {
        head: { ref: 'f', sha: 'h'.repeat(40), repoFullName: 'octo/hello' },
        base: { ref: 'main', sha: 'b'.repeat(40) },
        files: [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }],
      },
    });
    const files = await readPullDiffSides(octokit, repo, 5);
    await publishReview({
      octokit,
      repo,
      pull: 5,
      summary: 'S'.repeat(70_000),
      files,
      comments: [{ path: 'src/a.ts', line: 3, body: 'C'.repeat(70_000) }],
      appendix: 'A'.repeat(10),
    });
    const [review] = gh.state.reviews;
    expect(review.body.length).toBeLessThanOrEqual(65_536);
    expect(review.body).toMatch(/^S{60000}\n\n\[\.\.\. 10012 characters cut \.\.\.\]$/);
    expect(review.comments[0].body.length).toBeLessThanOrEqual(65_536);
    expect(review.comments[0].body).toMatch(
      /^C{60000}\n\n\[\.\.\. 10000 characters cut \.\.\.\]\n\n<!-- agent-action:review-comment -->$/,
    );
  });

  it('a fork’s change: suggestions inside the diff, the rest as a patch', async () => {
    const { dir } = createRepo({ 'src/a.ts': Array.from({ length: 14 }, (_, i) => `l${i + 1}`).join('\n') + '\n' });
    const text = readFileSync(join(dir, 'src/a.ts'), 'utf8').replace('l2\n', 'L2\n').replace('l9\n', 'L9\n');
    writeFiles(dir, { 'src/a.ts': text });
    const diff = git(dir, 'diff', '-U0', 'HEAD');
    const files = new Map([['src/a.ts', parsePatchLines(PATCH)]]);
    const { comments, rest } = suggestionsFromDiff(diff, files);
    expect(comments).toEqual([
      { path: 'src/a.ts', line: 2, startLine: undefined, body: 'Suggested change:', suggestion: 'L2' },
    ]);
    expect(rest).toHaveLength(1);
    expect(rest[0]).toContain('+L9');
  });
});
