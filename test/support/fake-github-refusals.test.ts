/**
 * The fake GitHub refuses what GitHub refuses, as GitHub answers it, through the real Octokit
 * (the action's own client). Each test names the request a fake that accepted it would let through:
 * a duplicate pull request, one with no commits, an unknown head, an existing ref, bodies over
 * 65,536 characters, blank comments, review comments off the diff; and the answers GitHub gives
 * that our old picture of it did not: `read` for a stranger on a public repository, 403 when the
 * job's `permissions:` lack the scope.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitHubClient, type GitHubClient } from '../../src/action/github-client.js';
import { createFakeGitHubState, startFakeGitHub, type FakeGitHub } from './fake-github.js';
import type { JobPermissions } from './github-permissions.js';

const repo = { owner: 'octo', repo: 'hello' };
const MAIN = 'a'.repeat(40);
const FEATURE = 'b'.repeat(40);
const PATCH = '@@ -1,3 +1,4 @@\n line one\n-line two\n+line 2\n+line 2b\n line three';

let gh: FakeGitHub;
let octokit: GitHubClient;

async function open(jobPermissions?: JobPermissions) {
  gh = await startFakeGitHub(createFakeGitHubState(jobPermissions ? { jobPermissions } : {}));
  gh.state.refs.set('heads/main', MAIN);
  gh.state.refs.set('heads/feature', FEATURE);
  octokit = createGitHubClient({ token: 't', baseUrl: gh.url, secrets: [], pacing: 'none', retries: 0 });
}

beforeEach(() => open());
afterEach(() => gh.close());

/** The error Octokit throws for a request: its status and GitHub's body. */
async function refusal(p: Promise<unknown>): Promise<{ status: number; data: Record<string, any> }> {
  const e = await p.then(
    () => expect.unreachable('GitHub would refuse this request'),
    (err: unknown) => err as { status: number; response: { data: Record<string, any> } },
  );
  return { status: e.status, data: e.response.data };
}

const addFeaturePull = () =>
  gh.addPull({
    number: 7,
    title: 'Feature',
    user: { login: 'writer' },
    pull: {
      head: { ref: 'feature', sha: FEATURE, repoFullName: 'octo/hello' },
      base: { ref: 'main', sha: MAIN },
      files: [{ filename: 'a.txt', status: 'modified', patch: PATCH }],
    },
  });

describe('pull requests GitHub will not open', () => {
  it('a second open pull request for the same head and base: 422 "A pull request already exists"', async () => {
    addFeaturePull();
    const r = await refusal(octokit.rest.pulls.create({ ...repo, title: 'Again', head: 'feature', base: 'main' }));
    expect(r.status).toBe(422);
    expect(r.data).toMatchObject({
      message: 'Validation Failed',
      errors: [{ resource: 'PullRequest', code: 'custom', message: 'A pull request already exists for octo:feature.' }],
    });
    expect(r.data.documentation_url).toBe('https://docs.github.com/rest/pulls/pulls#create-a-pull-request');
  });

  it('a closed pull request for the same head does not block a new one', async () => {
    addFeaturePull().state = 'closed';
    const { status, data } = await octokit.rest.pulls.create({
      ...repo,
      title: 'Again',
      head: 'feature',
      base: 'main',
    });
    expect(status).toBe(201);
    expect(data.head).toMatchObject({ ref: 'feature', sha: FEATURE });
  });

  it('no commits between base and head: 422 "No commits between main and feature"', async () => {
    gh.state.commitsBetween = (base, head) => (base === MAIN && head === FEATURE ? 0 : undefined);
    const r = await refusal(octokit.rest.pulls.create({ ...repo, title: 'Nothing', head: 'feature', base: 'main' }));
    expect(r.status).toBe(422);
    expect(r.data.errors).toEqual([
      { resource: 'PullRequest', code: 'custom', message: 'No commits between main and feature' },
    ]);
  });

  it('a head at the base commit has no commits, without a resolver', async () => {
    gh.state.refs.set('heads/same', MAIN);
    const r = await refusal(octokit.rest.pulls.create({ ...repo, title: 'Nothing', head: 'same', base: 'main' }));
    expect(r.data.errors[0].message).toBe('No commits between main and same');
  });

  it('a head branch GitHub does not have: 422 on field head, code invalid', async () => {
    const r = await refusal(octokit.rest.pulls.create({ ...repo, title: 'Lost', head: 'never-pushed', base: 'main' }));
    expect(r.status).toBe(422);
    expect(r.data.errors).toEqual([{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
  });

  it('a body over 65,536 characters: 422 "body is too long"', async () => {
    const r = await refusal(
      octokit.rest.pulls.create({ ...repo, title: 'Long', head: 'feature', base: 'main', body: 'x'.repeat(65_537) }),
    );
    expect(r.data.errors).toEqual([
      {
        resource: 'PullRequest',
        code: 'custom',
        field: 'body',
        message: 'body is too long (maximum is 65536 characters)',
      },
    ]);
    const { status } = await octokit.rest.pulls.create({
      ...repo,
      title: 'Exactly at the limit',
      head: 'feature',
      base: 'main',
      body: 'x'.repeat(65_536),
    });
    expect(status).toBe(201);
  });
});

describe('comments GitHub will not take', () => {
  beforeEach(() => void gh.addIssue({ number: 1, title: 'Bug' }));

  it('a blank comment: 422 "body cannot be blank"', async () => {
    const r = await refusal(octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: '  \n' }));
    expect(r.status).toBe(422);
    expect(r.data.errors).toEqual([
      { resource: 'IssueComment', code: 'custom', field: 'body', message: 'body cannot be blank' },
    ]);
    expect(gh.state.comments).toHaveLength(0);
  });

  it('a comment with no body at all: 422 "Invalid request", and the test fails at close', async () => {
    const r = await refusal(
      octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        ...repo,
        issue_number: 1,
      } as never),
    );
    expect(r.status).toBe(422);
    expect(r.data.message).toMatch(/^Invalid request\.\n\n/);
    expect(gh.takeViolations().flatMap((v) => v.problems)).toEqual([expect.stringMatching(/body/)]);
  });

  it('a comment over 65,536 characters: 422 "Body is too long"; an edit to one too', async () => {
    const r = await refusal(octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: 'y'.repeat(65_537) }));
    expect(r.data.errors).toEqual([
      {
        resource: 'IssueComment',
        code: 'unprocessable',
        field: 'data',
        message: 'Body is too long (maximum is 65536 characters)',
      },
    ]);
    const { data: c } = await octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: 'short' });
    const edit = await refusal(
      octokit.rest.issues.updateComment({ ...repo, comment_id: c.id, body: 'y'.repeat(65_537) }),
    );
    expect(edit.data.errors).toEqual([
      {
        resource: 'IssueComment',
        code: 'custom',
        field: 'body',
        message: 'body is too long (maximum is 65536 characters)',
      },
    ]);
    expect(gh.state.comments[0].body).toBe('short');
  });

  it('an issue body over 65,536 characters: 422', async () => {
    const r = await refusal(octokit.rest.issues.create({ ...repo, title: 'Long', body: 'z'.repeat(65_537) }));
    expect(r.data.errors).toEqual([
      { resource: 'Issue', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' },
    ]);
  });
});

describe('reviews GitHub will not take', () => {
  beforeEach(() => void addFeaturePull());

  it('a review whose inline comment is off the diff: 422, and none of it is posted', async () => {
    const comments = [
      { path: 'a.txt', line: 2, side: 'RIGHT', body: 'on the diff' },
      { path: 'a.txt', line: 40, side: 'RIGHT', body: 'off the diff' },
    ];
    const r = await refusal(
      octokit.rest.pulls.createReview({ ...repo, pull_number: 7, event: 'COMMENT', body: 'Review', comments }),
    );
    expect(r.status).toBe(422);
    expect(r.data).toMatchObject({
      message: 'Unprocessable Entity',
      errors: [
        "Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank",
      ],
    });
    expect(gh.state.reviews).toHaveLength(0);
  });

  it('a review body over 65,536 characters: 422', async () => {
    const r = await refusal(
      octokit.rest.pulls.createReview({ ...repo, pull_number: 7, event: 'COMMENT', body: 'r'.repeat(65_537) }),
    );
    expect(r.data.errors).toEqual(['Body is too long (maximum is 65536 characters)']);
  });

  it('a review comment off the diff: 422 on pull_request_review_thread.line', async () => {
    const r = await refusal(
      octokit.rest.pulls.createReviewComment({
        ...repo,
        pull_number: 7,
        commit_id: FEATURE,
        path: 'a.txt',
        line: 40,
        side: 'RIGHT',
        body: 'here?',
      }),
    );
    expect(r.data.errors).toEqual([
      {
        resource: 'PullRequestReviewComment',
        code: 'custom',
        field: 'pull_request_review_thread.line',
        message: 'pull_request_review_thread.line must be part of the diff',
      },
    ]);
    const other = await refusal(
      octokit.rest.pulls.createReviewComment({
        ...repo,
        pull_number: 7,
        commit_id: FEATURE,
        path: 'b.txt',
        line: 1,
        side: 'RIGHT',
        body: 'no such file in the diff',
      }),
    );
    expect(other.status).toBe(422);
  });

  // Red if the fake takes any start_line the diff shows: GitHub wants the range inside one hunk.
  it('a multi-line comment across two hunks: 422 on start_line; inside one hunk (a suggestion) it is taken', async () => {
    gh.addPull({
      number: 8,
      title: 'Two hunks',
      user: { login: 'writer' },
      pull: {
        head: { ref: 'feature', sha: FEATURE, repoFullName: 'octo/hello' },
        base: { ref: 'main', sha: MAIN },
        files: [
          {
            filename: 'b.txt',
            status: 'modified',
            patch: '@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n@@ -20,2 +20,2 @@\n twenty\n-twenty-one\n+TWENTY-ONE',
          },
        ],
      },
    });
    const comment = { path: 'b.txt', side: 'RIGHT', start_side: 'RIGHT', body: '```suggestion\nx\n```' } as const;
    const across = await refusal(
      octokit.rest.pulls.createReviewComment({
        ...repo,
        pull_number: 8,
        commit_id: FEATURE,
        ...comment,
        start_line: 2,
        line: 21,
      }),
    );
    expect(across.status).toBe(422);
    expect(across.data.errors).toEqual([
      {
        resource: 'PullRequestReviewComment',
        code: 'custom',
        field: 'pull_request_review_thread.start_line',
        message: 'pull_request_review_thread.start_line must be part of the same hunk as the line.',
      },
    ]);
    const inReview = await refusal(
      octokit.rest.pulls.createReview({
        ...repo,
        pull_number: 8,
        event: 'COMMENT',
        body: 'Review',
        comments: [{ ...comment, start_line: 2, line: 21 }],
      }),
    );
    expect(inReview.status).toBe(422);
    const { status } = await octokit.rest.pulls.createReview({
      ...repo,
      pull_number: 8,
      event: 'COMMENT',
      body: 'Review',
      comments: [{ ...comment, start_line: 20, line: 21 }],
    });
    expect(status).toBe(200);
  });

  it('a blank reply in a review thread: 422; a long one too', async () => {
    const c = gh.addReviewComment(7, { path: 'a.txt', line: 2, body: 'Why?', user: { login: 'writer' } });
    const blank = await refusal(
      octokit.rest.pulls.createReplyForReviewComment({ ...repo, pull_number: 7, comment_id: c.id, body: '' }),
    );
    expect(blank.data.errors).toEqual([
      { resource: 'PullRequestReviewComment', code: 'custom', field: 'body', message: 'body cannot be blank' },
    ]);
    const long = await refusal(
      octokit.rest.pulls.createReplyForReviewComment({
        ...repo,
        pull_number: 7,
        comment_id: c.id,
        body: 'q'.repeat(65_537),
      }),
    );
    expect(long.status).toBe(422);
  });
});

describe('refs', () => {
  it('creating a ref that exists: 422 "Reference already exists"', async () => {
    const r = await refusal(octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/feature', sha: MAIN }));
    expect(r.status).toBe(422);
    expect(r.data.message).toBe('Reference already exists');
    expect(gh.state.refs.get('heads/feature')).toBe(FEATURE);
  });

  it('a ref only the bare origin knows (resolveRef) exists too', async () => {
    gh.state.resolveRef = (name) => (name === 'heads/pushed' ? FEATURE : undefined);
    const r = await refusal(octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/pushed', sha: MAIN }));
    expect(r.data.message).toBe('Reference already exists');
  });
});

describe("a user's permission", () => {
  it('a non-collaborator on a public repository: 200 read, not 404', async () => {
    const { status, data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username: 'stranger' });
    expect(status).toBe(200);
    expect(data).toMatchObject({ permission: 'read', role_name: 'read', user: { login: 'stranger' } });
  });

  it('a non-collaborator on a private repository: 200 none', async () => {
    gh.state.private = true;
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username: 'stranger' });
    expect(data.permission).toBe('none');
  });
});

describe("the job's permissions", () => {
  it('by default the example workflow’s: contents, issues and pull-requests write', () => {
    expect(gh.state.jobPermissions).toEqual({ contents: 'write', issues: 'write', 'pull-requests': 'write' });
  });

  it('without pull-requests: write, opening a pull request is 403 "Resource not accessible by integration"', async () => {
    await gh.close();
    await open({ contents: 'write', issues: 'write', 'pull-requests': 'read' });
    const r = await refusal(octokit.rest.pulls.create({ ...repo, title: 'Fix', head: 'feature', base: 'main' }));
    expect(r.status).toBe(403);
    expect(r.data.message).toBe('Resource not accessible by integration');
    expect((await octokit.rest.pulls.list({ ...repo })).status).toBe(200);
  });

  it('a comment on a pull request takes issues or pull-requests: write; on an issue only issues', async () => {
    await gh.close();
    await open({ contents: 'read', 'pull-requests': 'write' });
    addFeaturePull();
    gh.addIssue({ number: 8, title: 'Bug' });
    expect((await octokit.rest.issues.createComment({ ...repo, issue_number: 7, body: 'on the PR' })).status).toBe(201);
    const r = await refusal(octokit.rest.issues.createComment({ ...repo, issue_number: 8, body: 'on the issue' }));
    expect(r.status).toBe(403);
  });

  it('without contents: write, creating a ref is 403; metadata is always readable', async () => {
    await gh.close();
    await open({});
    expect((await refusal(octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/new', sha: MAIN }))).status).toBe(403);
    expect((await octokit.rest.repos.get({ ...repo })).status).toBe(200);
  });
});
