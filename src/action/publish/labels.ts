/**
 * Labels the model may apply. A label is more than a tag here: `fix-label` starts a fix run and
 * `triage-label` a triage run, so a model that labels a stranger's issue `agent-fix` would start
 * a run with write access on the stranger's say-so. Only labels on the allow-list are applied:
 * the `triage-labels` input when set, else every repository label except those two (and
 * `review-label`, which starts a review on pull_request_target). Labels are
 * never created; matching is case-insensitive and applies the repository's spelling.
 */
import type { GitHubClient } from '../github-client.js';
import type { RepoRef } from '../run-context.js';

async function readRepoLabels(octokit: GitHubClient, repo: RepoRef): Promise<string[]> {
  const labels = await octokit.paginate(octokit.rest.issues.listLabelsForRepo, { ...repo, per_page: 100 });
  return labels.map((l) => l.name);
}

export interface LabelSettings {
  /** The `triage-labels` input; empty: the default below. */
  triageLabels: readonly string[];
  fixLabel: string;
  triageLabel: string;
  /** Starts a review on pull_request_target: a trigger too. */
  reviewLabel?: string;
}

/** Pure: the repository labels the model may apply, in the repository's spelling. */
export function allowedLabels(existing: readonly string[], s: LabelSettings): string[] {
  const lower = (l: string) => l.trim().toLowerCase();
  if (s.triageLabels.length > 0) {
    const listed = new Set(s.triageLabels.map(lower));
    return existing.filter((l) => listed.has(lower(l)));
  }
  const triggers = new Set([s.fixLabel, s.triageLabel, s.reviewLabel ?? ''].filter(Boolean).map(lower));
  return existing.filter((l) => !triggers.has(lower(l)));
}

/** The labels a run may apply, read from the repository. */
export async function readAllowedLabels(octokit: GitHubClient, repo: RepoRef, s: LabelSettings): Promise<string[]> {
  return allowedLabels(await readRepoLabels(octokit, repo), s);
}

/** Pure: which wanted labels are allowed (in the repository's spelling) and which are not. */
export function filterLabels(
  wanted: readonly string[],
  allowed: readonly string[],
): { apply: string[]; dropped: string[] } {
  const byLower = new Map(allowed.map((l) => [l.toLowerCase(), l]));
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

/**
 * The allowed ones of `wanted`, plus the action's own labels (`own`: the triaged label), in one
 * request. Only the model's are filtered and reported as applied.
 */
export async function publishLabels(o: {
  octokit: GitHubClient;
  repo: RepoRef;
  issue: number;
  wanted: readonly string[];
  allowed: readonly string[];
  own?: readonly string[];
}) {
  const { octokit, repo, issue } = o;
  const { apply, dropped } = filterLabels(o.wanted, o.allowed);
  const labels = [...apply, ...(o.own ?? []).filter((l) => l !== '' && !apply.includes(l))];
  if (labels.length > 0) await octokit.rest.issues.addLabels({ ...repo, issue_number: issue, labels });
  return { applied: apply, dropped };
}
