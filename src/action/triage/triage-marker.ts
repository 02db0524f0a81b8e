/**
 * The durable mark of a finished triage: the `triaged-label` on the issue and, posted as the last
 * write of the triage, a comment carrying `<!-- agent-action:triaged seen=<updated_at> -->` (the
 * issue's updated_at the triage read): a shard's triage comment, or, for a triage of one issue
 * (`/agent triage`, `issues: opened`), the progress comment's last edit. Because that comment is the last write, it is as new as the
 * issue's own updated_at; anyone's later comment, edit or label change moves updated_at past it, and
 * the issue is due again. So "triaged since its last update" is: the label is on the issue, and a
 * trusted marker comment was updated no earlier than the issue (within a small tolerance for
 * GitHub's clocks).
 *
 * Trusted: written by the action's own account (authorize.ts `isOurs`, by the API's author login).
 * Nobody else's marker counts: not an outside author pasting one into their own issue to keep it
 * from being triaged again, not another bot that quotes the issue's text, marker and all.
 */
import { isOurs, type OwnLogins } from '../authorize.js';
import { formatMarker, tryParseMarker } from '../markers.js';
import { isoTime } from '../../common/time.js';

const TRIAGED_MARKER = 'triaged';

/** GitHub stamps the comment and the issue it bumps separately; a human reply within this is missed. */
const MARKER_TOLERANCE_MS = 10_000;

/** The fields of an issue comment the check reads (the REST shape). */
export interface MarkerComment {
  body?: string | null;
  updated_at: string;
  html_url?: string;
  user?: { login?: string; type?: string } | null;
}

export const formatTriagedMarker = (seen: string, runId?: string): string =>
  formatMarker(TRIAGED_MARKER, { seen, ...(runId ? { run: runId } : {}) });

/**
 * Pure: the marker comment of the action's own account that covers the issue's last update, or
 * undefined (never triaged, or updated since). `comments` may be all of the issue's or only those
 * since `markerLookupSince(updatedAt)`.
 */
export function findCoveringMarker(
  issueUpdatedAt: string,
  comments: readonly MarkerComment[],
  own: OwnLogins,
): MarkerComment | undefined {
  const updated = Date.parse(issueUpdatedAt);
  if (Number.isNaN(updated)) return undefined;
  return comments.find(
    (c) =>
      isOurs(c.user, own) &&
      tryParseMarker(c.body ?? '', TRIAGED_MARKER) !== undefined &&
      Date.parse(c.updated_at) + MARKER_TOLERANCE_MS >= updated,
  );
}

/** The `since` for listing only the comments that could cover the issue's last update (one small page). */
export const markerLookupSince = (issueUpdatedAt: string): string =>
  isoTime(Date.parse(issueUpdatedAt) - MARKER_TOLERANCE_MS);

/** Pure: label names from the REST shape (strings or objects). */
export const labelNamesOf = (labels: ReadonlyArray<string | { name?: string | null }>): string[] =>
  labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((l) => l.length > 0);
