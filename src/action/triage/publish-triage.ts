/**
 * What one issue's triage writes, in this order: the labels (those the model chose that are on
 * the allow-list, plus `triaged-label`, minus those the issue has) in one request, then one
 * comment: what was applied, the duplicate link, the model's note if it wrote one, and the
 * triaged marker. The comment goes last because it is the marker (triage-marker.ts): a run killed
 * between the two writes has left no marker, and the next run triages the issue again, adding no
 * label twice. Every write first takes a slot from the pacer.
 */
import { cutNote } from '../../context/untrusted.js';
import { PUBLISH_LIMITS } from '../../tools/github/recorder.js';
import { createMentionBudget, makeInert, makeInertLine } from '../publish/inert-text.js';
import { filterLabels } from '../publish/labels.js';
import type { GitHubClient } from '../github-client.js';
import type { RepoRef } from '../run-context.js';
import type { DuplicateOf } from '../../tools/github/issue-tools.js';
import { formatTriagedMarker } from './triage-marker.js';
import type { WritePacer } from './write-pacer.js';

/** What the model recorded for one issue. */
export interface TriageRecord {
  labels: readonly string[];
  replies: readonly string[];
  duplicateOf?: DuplicateOf;
  /** The run stopped at a limit: said in the comment, so a maintainer knows the triage is partial. */
  stoppedAt?: string;
}

export interface TriageTarget {
  number: number;
  /** Labels the issue carries now. */
  labels: readonly string[];
  /** The issue's updated_at as the triage read it: the marker's `seen`. */
  seenUpdatedAt: string;
}

export interface PublishTriageOptions {
  octokit: GitHubClient;
  repo: RepoRef;
  pacer: WritePacer;
  /** Labels the model may apply (the allow-list, triaged-label excluded). */
  allowed: readonly string[];
  triagedLabel: string;
  runId?: string;
  runUrl?: string;
  /** Compute, write nothing. */
  dryRun: boolean;
}

export interface PublishedTriage {
  /** Labels triage applied (or would apply): allowed, chosen by the model. */
  labels: string[];
  /** Chosen but not allowed (or not in the repository). */
  dropped: string[];
  commentUrl?: string;
}

/** GitHub refuses comments over 65,536 characters; the marker and the run link must still fit. */
const MAX_COMMENT_CHARS = 60_000;

export async function publishTriage(
  target: TriageTarget,
  record: TriageRecord,
  o: PublishTriageOptions,
): Promise<PublishedTriage> {
  const { apply, dropped } = filterLabels(record.labels.slice(0, PUBLISH_LIMITS.labels), o.allowed);
  if (o.dryRun) return { labels: apply, dropped };
  const toAdd = [...apply, o.triagedLabel].filter((l) => !target.labels.includes(l));
  if (toAdd.length > 0) {
    await o.pacer.take();
    await o.octokit.rest.issues.addLabels({ ...o.repo, issue_number: target.number, labels: toAdd });
  }
  await o.pacer.take();
  const { data } = await o.octokit.rest.issues.createComment({
    ...o.repo,
    issue_number: target.number,
    body: renderTriageComment(target, record, { runId: o.runId, runUrl: o.runUrl, applied: apply }),
  });
  return { labels: apply, dropped, commentUrl: data.html_url };
}

/**
 * Pure: the triage comment, marker last. The model's words (its notes, the duplicate's reason) are
 * made inert as every published text is (publish/inert-text.ts): no mention pages anyone, no
 * marker of ours survives in them.
 */
export function renderTriageComment(
  target: TriageTarget,
  record: TriageRecord,
  o: Pick<PublishTriageOptions, 'runId' | 'runUrl'> & { applied: readonly string[] },
): string {
  const { applied } = o;
  const mentions = createMentionBudget();
  const labels = applied.length
    ? `labelled ${applied.map((l) => `\`${l.replace(/`/g, "'")}\``).join(', ')}`
    : 'no label applied';
  const dup = record.duplicateOf
    ? ` Possible duplicate of #${record.duplicateOf.number}: ${makeInertLine(record.duplicateOf.reason)}`
    : '';
  const limit = record.stoppedAt
    ? `\n\nThe triage stopped early (${record.stoppedAt}); a maintainer may want to look again.`
    : '';
  const notes = record.replies
    .slice(0, PUBLISH_LIMITS.replies)
    .map((r) => `\n\n${makeInert(r.trim(), mentions)}`)
    .join('');
  const run = o.runUrl ? `\n\n<sub>[workflow run](${o.runUrl})</sub>` : '';
  const text = `**Triage** (agent-action): ${labels}.${dup}${limit}${notes}`;
  const capped =
    text.length > MAX_COMMENT_CHARS
      ? `${text.slice(0, MAX_COMMENT_CHARS)}\n\n${cutNote(text.length - MAX_COMMENT_CHARS)}`
      : text;
  return `${capped}${run}\n${formatTriagedMarker(target.seenUpdatedAt, o.runId)}`;
}
