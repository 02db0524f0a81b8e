/**
 * The table from a refused request to the `permissions:` line it needed, and the recognition of
 * GitHub's and git's refusals. A wrong row sends a maintainer to add the wrong permission.
 */
import { describe, expect, it } from 'vitest';
import {
  isGitPermissionRefusal,
  isPermissionRefusal,
  missingScopeIn,
  permissionHint,
  scopeOfRequest,
  withPermissionHint,
} from '../../src/action/permissions.js';

describe('scopeOfRequest: every write the action makes, and the reads', () => {
  it.each([
    // the pull request opened for an issue fix, reviews, review-thread replies and their reactions
    ['POST', '/repos/{owner}/{repo}/pulls', 'pull-requests: write'],
    ['POST', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews', 'pull-requests: write'],
    ['POST', '/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies', 'pull-requests: write'],
    ['POST', '/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions', 'pull-requests: write'],
    // comments, their edits and reactions, labels: issues (a pull request's conversation too)
    ['POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', 'issues: write'],
    ['PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}', 'issues: write'],
    ['POST', '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', 'issues: write'],
    ['POST', '/repos/{owner}/{repo}/issues/{issue_number}/labels', 'issues: write'],
    ['DELETE', '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', 'issues: write'],
    ['POST', '/repos/{owner}/{repo}/labels', 'issues: write'],
    // refs (sessions, the triaged marker's store): contents
    ['POST', '/repos/{owner}/{repo}/git/refs', 'contents: write'],
    ['PATCH', '/repos/{owner}/{repo}/git/refs/{ref}', 'contents: write'],
    ['DELETE', '/repos/{owner}/{repo}/git/refs/{ref}', 'contents: write'],
    // reads need read
    ['GET', '/repos/{owner}/{repo}/pulls/{pull_number}/files', 'pull-requests: read'],
    ['GET', '/repos/{owner}/{repo}/issues/{issue_number}/comments', 'issues: read'],
    ['GET', '/repos/{owner}/{repo}/git/ref/{ref}', 'contents: read'],
    // a page Octokit's paginate follows is an absolute URL with a query
    ['GET', 'https://api.github.com/repos/octo/hello/pulls/2/comments?per_page=100&page=2', 'pull-requests: read'],
  ])('%s %s needs %s', (method, url, scope) => {
    expect(scopeOfRequest(method, url)).toBe(scope);
  });

  it.each([
    ['GET', '/repos/{owner}/{repo}/collaborators/{username}/permission'],
    ['GET', '/repos/{owner}/{repo}'],
    ['GET', '/search/issues'],
    ['POST', '/repos/{owner}/{repo}/pullsx'],
  ])('%s %s is not in the table: no hint rather than a wrong one', (method, url) => {
    expect(scopeOfRequest(method, url)).toBeUndefined();
  });
});

describe('refusals', () => {
  it("GitHub's permission refusal is a 403 with its own words; a secondary rate limit is not one", () => {
    expect(
      isPermissionRefusal(
        403,
        'Resource not accessible by integration - https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
      ),
    ).toBe(true);
    expect(isPermissionRefusal(403, 'You have exceeded a secondary rate limit.')).toBe(false);
    expect(isPermissionRefusal(404, 'Resource not accessible by integration')).toBe(false);
  });

  it("git's refused push, over HTTPS and as GitHub words it", () => {
    expect(
      isGitPermissionRefusal(
        "fatal: unable to access 'https://github.com/octo/hello/': The requested URL returned error: 403",
      ),
    ).toBe(true);
    expect(isGitPermissionRefusal('remote: Permission to octo/hello.git denied to github-actions[bot].')).toBe(true);
    expect(isGitPermissionRefusal('! [rejected] HEAD -> main (fetch first)')).toBe(false);
  });

  it('the hint names the line to add; the scope is read back from a message that carries it', () => {
    const hint = permissionHint('pull-requests: write');
    expect(hint).toBe(
      "the workflow's token lacks `pull-requests: write`: add `pull-requests: write` to the job's `permissions:` (or give that permission to the token in `github-token`)",
    );
    expect(
      missingScopeIn(`The pull request could not be opened: Resource not accessible by integration (${hint})`),
    ).toBe('pull-requests: write');
    expect(missingScopeIn('The review could not be posted: Validation Failed')).toBeUndefined();
  });

  it('a refused push gets contents: write, once; other messages are left alone', () => {
    const push =
      "Publishing the changes failed: git push to feature failed: remote: Permission to octo/hello.git denied to github-actions[bot].\nfatal: unable to access 'x': The requested URL returned error: 403";
    const hinted = withPermissionHint(push);
    expect(hinted).toBe(`${push} (${permissionHint('contents: write')})`);
    expect(withPermissionHint(hinted)).toBe(hinted);
    expect(missingScopeIn(hinted)).toBe('contents: write');
    expect(withPermissionHint('git push to feature was rejected twice')).toBe('git push to feature was rejected twice');
  });
});
