/**
 * The search behind the `search_issues` tool: GitHub's issue search, always scoped to this
 * repository's issues. The model gives words only: any `key:value` qualifier it writes (another
 * `repo:`, `org:`, `is:pr`, `author:`) is dropped, so it cannot read beyond this repository's issues
 * with a token that may see more.
 */
import { AgentError } from '../../common/errors.js';
import type { IssueHit, SearchIssues } from '../../tools/github/issue-tools.js';
import type { GitHubClient } from '../github-client.js';
import type { RepoRef } from '../run-context.js';
import { labelNamesOf } from './triage-marker.js';

/** Pure: the model's text as plain search words, qualifiers and operators removed; '' when none is left. */
export function parseSearchWords(text: string): string {
  return text
    .replace(/["\\]/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 0 && !/^-?[\w.-]+:/.test(w) && !/^(AND|OR|NOT)$/.test(w) && !w.startsWith('-'))
    .join(' ')
    .slice(0, 200)
    .trim();
}

export function createIssueSearch(octokit: GitHubClient, repo: RepoRef, perPage = 10): SearchIssues {
  return async (text, signal) => {
    const words = parseSearchWords(text);
    if (!words)
      throw new AgentError('input', 'the search needs words (qualifiers such as repo: or is: are not allowed)');
    const { data } = await octokit.rest.search.issuesAndPullRequests({
      q: `repo:${repo.owner}/${repo.repo} is:issue ${words}`,
      per_page: perPage,
      request: { signal },
    });
    return data.items.map((i): IssueHit => ({
      number: i.number,
      title: i.title,
      state: i.state,
      labels: labelNamesOf(i.labels),
    }));
  };
}
