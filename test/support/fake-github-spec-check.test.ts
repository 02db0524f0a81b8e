/**
 * The fake GitHub checks every request against GitHub's OpenAPI description and every answer
 * against the operation's response schema, and a test that used it fails at close() on either.
 * Each test names what would slip through without the check: a route GitHub does not have, a body
 * of the wrong shape, a query value outside its enum, a query parameter the operation does not
 * take, an answer missing a required field. The review-comment routes, new in the fake, are
 * exercised here with their answers checked.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitHubClient, type GitHubClient } from '../../src/action/github-client.js';
import { pullJson } from './fake-github-objects.js';
import { formatViolations, startFakeGitHub, type FakeGitHub } from './fake-github.js';
import { checkResponse, matchOperation } from './github-openapi.js';

const repo = { owner: 'octo', repo: 'hello' };
const HEAD = 'b'.repeat(40);
const PATCH = '@@ -1,3 +1,4 @@\n line one\n-line two\n+line 2\n+line 2b\n line three';

let gh: FakeGitHub;
let octokit: GitHubClient;

beforeEach(async () => {
  gh = await startFakeGitHub();
  octokit = createGitHubClient({ token: 't', baseUrl: gh.url, secrets: [], pacing: 'none', retries: 0 });
});
afterEach(() => gh.close());

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: { status: number }) => e.status,
  );

describe('a request GitHub does not have fails the test', () => {
  it('an unknown route: answered 404 and close() throws naming it', async () => {
    expect(await status(octokit.request('GET /repos/{owner}/{repo}/no-such-thing', repo))).toBe(404);
    const violations = gh.takeViolations();
    expect(violations).toEqual([
      {
        method: 'GET',
        path: '/repos/octo/hello/no-such-thing',
        problems: ["GitHub's API has no GET /repos/octo/hello/no-such-thing"],
      },
    ]);
    expect(formatViolations(violations)).toBe(
      "fake-github: 1 request(s) outside GitHub's OpenAPI description (@octokit/openapi):\n- GET /repos/octo/hello/no-such-thing\n    GitHub's API has no GET /repos/octo/hello/no-such-thing",
    );
  });

  it('close() rejects while a violation is unclaimed, and stops the server all the same', async () => {
    const other = await startFakeGitHub();
    const client = createGitHubClient({ token: 't', baseUrl: other.url, secrets: [], pacing: 'none', retries: 0 });
    await status(client.request('DELETE /repos/{owner}/{repo}/issues/{issue_number}', { ...repo, issue_number: 1 }));
    await expect(other.close()).rejects.toThrow(
      /- DELETE \/repos\/octo\/hello\/issues\/1\n {4}GitHub's API has no DELETE/,
    );
    await expect(fetch(`${other.url}/repos/octo/hello`)).rejects.toThrow();
  });

  it('a method the path does not take: 404', async () => {
    expect(
      await status(octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/files', { ...repo, pull_number: 1 })),
    ).toBe(404);
    expect(gh.takeViolations()).toHaveLength(1);
  });

  it('a body of the wrong shape: 422 "Invalid request" naming the field', async () => {
    gh.addIssue({ number: 1, title: 'Bug' });
    const r = await octokit
      .request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
        ...repo,
        issue_number: 1,
        labels: 'bug',
      } as never)
      .catch((e: { status: number; response: { data: { message: string } } }) => e);
    expect((r as { status: number }).status).toBe(422);
    expect((r as { response: { data: { message: string } } }).response.data.message).toMatch(
      /^Invalid request\.\n\nbody/,
    );
    expect(gh.state.issues.get(1)!.labels).toEqual([]);
    expect(gh.takeViolations()[0].problems[0]).toMatch(/^body/);
  });

  it('a query value outside its enum: 422, and recorded', async () => {
    expect(
      await status(octokit.request('GET /repos/{owner}/{repo}/issues', { ...repo, state: 'opened' } as never)),
    ).toBe(422);
    expect(gh.takeViolations()[0].problems).toEqual([
      'query parameters /state: must be equal to one of the allowed values (open, closed, all)',
    ]);
  });

  it('a query parameter the operation does not take: answered (GitHub ignores it) but recorded', async () => {
    expect(await status(octokit.request('GET /repos/{owner}/{repo}/labels', { ...repo, colour: 'red' } as never))).toBe(
      200,
    );
    expect(gh.takeViolations()[0].problems).toEqual([
      "query parameter 'colour' is not one issues/list-labels-for-repo takes",
    ]);
  });

  it('a path parameter of the wrong type: 422', async () => {
    expect(
      await status(
        octokit.request('GET /repos/{owner}/{repo}/issues/comments/{comment_id}', {
          ...repo,
          comment_id: 'latest',
        } as never),
      ),
    ).toBe(422);
    expect(gh.takeViolations()[0].problems[0]).toMatch(/path parameters \/comment_id: must be integer/);
  });

  it('an operation the spec has and the fake does not serve: recorded, so the gap is seen', async () => {
    expect(await status(octokit.rest.issues.lock({ ...repo, issue_number: 1 }))).toBe(404);
    expect(gh.takeViolations()[0].problems[0]).toMatch(/^fake-github does not serve issues\/lock/);
  });
});

describe("the fake's own answers are checked against GitHub's schemas", () => {
  it('an answer missing a required field is caught (checkResponse)', () => {
    gh.addPull({
      number: 3,
      title: 'T',
      pull: {
        head: { ref: 'f', sha: HEAD, repoFullName: 'octo/hello' },
        base: { ref: 'main', sha: 'a'.repeat(40) },
        files: [],
      },
    });
    const m = matchOperation('GET', '/repos/octo/hello/pulls/3')!;
    const full = pullJson(gh.state, gh.state.issues.get(3)!);
    expect(checkResponse(m, 200, full)).toEqual([]);
    const { merged_by: _, ...lacking } = full;
    expect(checkResponse(m, 200, lacking)).toEqual(["200 answer: must have required property 'merged_by'"]);
    expect(checkResponse(m, 200, { ...full, head: { ...full.head, sha: 42 } })).toEqual([
      '200 answer /head/sha: must be string',
    ]);
  });

  it('an answer the fake builds wrong, through the server, fails the test', async () => {
    gh.addIssue({ number: 1, title: null as unknown as string });
    expect(await status(octokit.rest.issues.get({ ...repo, issue_number: 1 }))).toBe(200);
    expect(gh.takeViolations()).toEqual([
      { method: 'GET', path: '/repos/octo/hello/issues/1', problems: ["the fake's 200 answer /title: must be string"] },
    ]);
  });

  it('a pull request carries every field GitHub documents', async () => {
    gh.addPull({
      number: 3,
      title: 'T',
      pull: {
        head: { ref: 'f', sha: HEAD, repoFullName: 'octo/hello' },
        base: { ref: 'main', sha: 'a'.repeat(40) },
        files: [],
      },
    });
    const { data } = await octokit.rest.pulls.get({ ...repo, pull_number: 3 });
    expect(Object.keys(data).length).toBeGreaterThanOrEqual(42);
    expect(data).toMatchObject({
      number: 3,
      head: { sha: HEAD, repo: { full_name: 'octo/hello' } },
      base: { ref: 'main' },
      merged: false,
    });
  });
});

describe('review comments, their replies and reactions, single reviews', () => {
  beforeEach(() => {
    gh.addPull({
      number: 7,
      title: 'Feature',
      user: { login: 'writer' },
      pull: {
        head: { ref: 'feature', sha: HEAD, repoFullName: 'octo/hello' },
        base: { ref: 'main', sha: 'a'.repeat(40) },
        files: [{ filename: 'a.txt', status: 'modified', patch: PATCH }],
      },
    });
  });

  it('lists, gets, and answers in the thread: a reply to a reply joins the first comment’s thread', async () => {
    const first = gh.addReviewComment(7, {
      path: 'a.txt',
      line: 3,
      body: '/agent fix this',
      user: { login: 'writer' },
    });
    const { data: reply } = await octokit.rest.pulls.createReplyForReviewComment({
      ...repo,
      pull_number: 7,
      comment_id: first.id,
      body: 'On it.',
    });
    expect(reply).toMatchObject({
      in_reply_to_id: first.id,
      path: 'a.txt',
      line: 3,
      body: 'On it.',
      user: { login: 'github-actions[bot]' },
    });
    const { data: second } = await octokit.rest.pulls.createReplyForReviewComment({
      ...repo,
      pull_number: 7,
      comment_id: reply.id,
      body: 'Done.',
    });
    expect(second.in_reply_to_id).toBe(first.id);
    const { data: list } = await octokit.rest.pulls.listReviewComments({ ...repo, pull_number: 7 });
    expect(list.map((c) => [c.id, c.in_reply_to_id ?? null])).toEqual([
      [first.id, null],
      [reply.id, first.id],
      [second.id, first.id],
    ]);
    const { data: got } = await octokit.rest.pulls.getReviewComment({ ...repo, comment_id: first.id });
    expect(got).toMatchObject({
      id: first.id,
      diff_hunk: '@@ -1,3 +1,4 @@\n line one\n-line two\n+line 2\n+line 2b',
      side: 'RIGHT',
      commit_id: HEAD,
    });
  });

  it('a reaction on a review comment: 201 the first time, 200 with the same reaction after', async () => {
    const c = gh.addReviewComment(7, { path: 'a.txt', line: 2, body: 'Hm', user: { login: 'writer' } });
    const a = await octokit.rest.reactions.createForPullRequestReviewComment({
      ...repo,
      comment_id: c.id,
      content: 'eyes',
    });
    const b = await octokit.rest.reactions.createForPullRequestReviewComment({
      ...repo,
      comment_id: c.id,
      content: 'eyes',
    });
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.data.id).toBe(a.data.id);
    expect(gh.state.reactions).toEqual([expect.objectContaining({ subject: 'pulls', id: c.id, content: 'eyes' })]);
    expect(
      await status(
        octokit.rest.reactions.createForPullRequestReviewComment({ ...repo, comment_id: 999_999, content: 'eyes' }),
      ),
    ).toBe(404);
  });

  it('a review and its comments, by id', async () => {
    const { data: review } = await octokit.rest.pulls.createReview({
      ...repo,
      pull_number: 7,
      event: 'COMMENT',
      body: 'Looks fine',
      comments: [{ path: 'a.txt', line: 3, side: 'RIGHT', body: 'nit' }],
    });
    const { data: got } = await octokit.rest.pulls.getReview({ ...repo, pull_number: 7, review_id: review.id });
    expect(got).toMatchObject({ id: review.id, state: 'COMMENTED', body: 'Looks fine', commit_id: HEAD });
    const { data: comments } = await octokit.rest.pulls.listCommentsForReview({
      ...repo,
      pull_number: 7,
      review_id: review.id,
    });
    expect(comments.map((c) => [c.path, c.body, c.pull_request_review_id])).toEqual([['a.txt', 'nit', review.id]]);
    expect(await status(octokit.rest.pulls.getReview({ ...repo, pull_number: 7, review_id: 1 }))).toBe(404);
  });

  it('a single review comment on the diff: 201, in a review of its own', async () => {
    const { status: s, data } = await octokit.rest.pulls.createReviewComment({
      ...repo,
      pull_number: 7,
      commit_id: HEAD,
      path: 'a.txt',
      line: 2,
      side: 'LEFT',
      body: 'was this right?',
    });
    expect(s).toBe(201);
    expect(data).toMatchObject({ line: 2, side: 'LEFT', diff_hunk: '@@ -1,3 +1,4 @@\n line one\n-line two' });
    expect(gh.state.reviews.map((r) => r.id)).toEqual([data.pull_request_review_id]);
  });
});
