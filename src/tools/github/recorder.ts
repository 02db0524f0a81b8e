/**
 * What the model asks to publish on GitHub, recorded during the run and published once, at the end,
 * by the action (after its checks: a label must exist, a review line must be in the diff). Plain
 * JSON, so a suspended session carries it across runs.
 */
import { ToolFailure } from '../define-tool.js';

/** How much a review finding matters (run-gemini-cli's review prompt asks for these; our tool's schema requires one). */
export type ReviewSeverity = 'critical' | 'high' | 'medium' | 'low';

export interface RecordedReviewComment {
  path: string;
  line: number;
  side?: 'LEFT' | 'RIGHT';
  startLine?: number;
  /** The model's findings carry one (the tool's schema requires it); the action's own suggestions (a fork's change) do not. */
  severity?: ReviewSeverity;
  body: string;
  /** Replacement text for the line range: rendered as a ```suggestion block. */
  suggestion?: string;
}

export interface PublishRecord {
  reviewComments: RecordedReviewComment[];
  /** undefined: the model did not choose labels; the last set_labels call wins. */
  labels?: string[];
  replies: string[];
}

/**
 * Per-run caps on what the model may publish: a prompt-injected model must not turn one run into
 * dozens of comments in a stranger's thread. Past a cap the tool fails and says why; the action
 * enforces the same caps again when it publishes (a record may come from a saved session).
 */
export const PUBLISH_LIMITS = { replies: 3, reviewComments: 30, labels: 10 } as const;

export type PublishLimits = { [K in keyof typeof PUBLISH_LIMITS]: number };

export interface PublishRecorder {
  addReviewComment(c: RecordedReviewComment): number;
  setLabels(labels: readonly string[]): void;
  reply(body: string): number;
  snapshot(): PublishRecord;
  /**
   * The new-version (RIGHT) lines the pull request's diff shows for `path` (an empty set: the file
   * is not in the diff); undefined when the run knows no diff (not a pull request, a saved record).
   */
  diffLines?(path: string): ReadonlySet<number> | undefined;
}

const emptyPublishRecord = (): PublishRecord => ({ reviewComments: [], replies: [] });

/**
 * A recorder starting from `initial` (a resumed session's record). Over a cap, `addReviewComment`,
 * `reply` and `setLabels` throw ToolFailure('failed') with a message the model can act on.
 */
export function createPublishRecorder(
  initial: PublishRecord = emptyPublishRecord(),
  limits: PublishLimits = PUBLISH_LIMITS,
  diff?: ReadonlyMap<string, ReadonlySet<number>>,
): PublishRecorder {
  const rec: PublishRecord = structuredClone(initial);
  return {
    ...(diff && { diffLines: (path: string) => diff.get(path) ?? new Set<number>() }),
    addReviewComment: (c) => {
      if (rec.reviewComments.length >= limits.reviewComments) {
        throw new ToolFailure(
          'failed',
          `limit reached: at most ${limits.reviewComments} review comments per run; put the remaining findings in your final message`,
        );
      }
      return rec.reviewComments.push({ ...c });
    },
    setLabels: (labels) => {
      const unique = [...new Set(labels.map((l) => l.trim()).filter(Boolean))];
      if (unique.length > limits.labels)
        throw new ToolFailure(
          'failed',
          `limit reached: at most ${limits.labels} labels; choose the ones that matter most`,
        );
      rec.labels = unique;
    },
    reply: (body) => {
      if (rec.replies.length >= limits.replies) {
        throw new ToolFailure(
          'failed',
          `limit reached: at most ${limits.replies} replies per run; say the rest in one of them or in your final message`,
        );
      }
      return rec.replies.push(body);
    },
    snapshot: () => structuredClone(rec),
  };
}

/** ToolEnv.recorder is `unknown` below the action; this narrows it or explains why it cannot. */
export function recorderOf(value: unknown): PublishRecorder | undefined {
  const r = value as Partial<PublishRecorder> | undefined;
  return r &&
    typeof r.addReviewComment === 'function' &&
    typeof r.setLabels === 'function' &&
    typeof r.reply === 'function'
    ? (r as PublishRecorder)
    : undefined;
}
