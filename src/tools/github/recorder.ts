/**
 * What the model asks to publish on GitHub, recorded during the run and published once, at the end,
 * by the action (after its checks: a label must exist, a review line must be in the diff). Plain
 * JSON, so a suspended session carries it across runs.
 */
export interface RecordedReviewComment {
  path: string;
  line: number;
  side?: 'LEFT' | 'RIGHT';
  startLine?: number;
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

export interface PublishRecorder {
  addReviewComment(c: RecordedReviewComment): number;
  setLabels(labels: readonly string[]): void;
  reply(body: string): number;
  snapshot(): PublishRecord;
}

export const emptyPublishRecord = (): PublishRecord => ({ reviewComments: [], replies: [] });

/** A recorder starting from `initial` (a resumed session's record). */
export function createPublishRecorder(initial: PublishRecord = emptyPublishRecord()): PublishRecorder {
  const rec: PublishRecord = structuredClone(initial);
  return {
    addReviewComment: (c) => rec.reviewComments.push({ ...c }),
    setLabels: (labels) => {
      rec.labels = [...new Set(labels.map((l) => l.trim()).filter(Boolean))];
    },
    reply: (body) => rec.replies.push(body),
    snapshot: () => structuredClone(rec),
  };
}

/** ToolEnv.recorder is `unknown` below the action; this narrows it or explains why it cannot. */
export function recorderOf(value: unknown): PublishRecorder | undefined {
  const r = value as Partial<PublishRecorder> | undefined;
  return r && typeof r.addReviewComment === 'function' && typeof r.setLabels === 'function' && typeof r.reply === 'function' ? (r as PublishRecorder) : undefined;
}
