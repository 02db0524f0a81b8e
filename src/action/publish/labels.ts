/**
 * Triage labels: only labels the repository already has are applied (matched case-insensitively,
 * applied with the repository's spelling); the rest are reported, never created.
 */
import type { GitHubClient } from '../github-client.js';
import type { RepoRef } from '../run-context.js';

export async function readRepoLabels(octokit: GitHubClient, repo: RepoRef): Promise<string[]> {
  const labels = await octokit.paginate(octokit.rest.issues.listLabelsForRepo, { ...repo, per_page: 100 });
  return labels.map((l) => l.name);
}

/** Pure: which wanted labels exist (in the repository's spelling) and which do not. */
export function filterLabels(wanted: readonly string[], existing: readonly string[]): { apply: string[]; dropped: string[] } {
  const byLower = new Map(existing.map((l) => [l.toLowerCase(), l]));
  const apply: string[] = [];
  const dropped: string[] = [];
  for (const w of wanted) {
    const hit = byLower.get(w.trim().toLowerCase());
    if (hit) {
      if (!apply.includes(hit)) apply.push(hit);
    } else dropped.push(w);
  }
  return { apply, dropped };
}

export async function publishLabels(octokit: GitHubClient, repo: RepoRef, issue: number, wanted: readonly string[], existing?: readonly string[]) {
  const { apply, dropped } = filterLabels(wanted, existing ?? (await readRepoLabels(octokit, repo)));
  if (apply.length > 0) await octokit.rest.issues.addLabels({ ...repo, issue_number: issue, labels: apply });
  return { applied: apply, dropped };
}
