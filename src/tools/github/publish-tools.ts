/**
 * The model's only way to reach GitHub: tools that record into the run's PublishRecorder. Nothing
 * is posted here; the action checks and publishes once at the end. Kind 'other': they touch no file.
 */
import type { TaskKind } from '../../common/task-kinds.js';
import { defineTool, ToolFailure, type Tool } from '../define-tool.js';
import { guardRun } from '../tool-output.js';
import { PUBLISH_LIMITS, recorderOf, type PublishRecorder } from './recorder.js';

const needRecorder = (value: unknown): PublishRecorder => {
  const r = recorderOf(value);
  if (!r) throw new ToolFailure('failed', 'publishing is not available in this run (no GitHub thread)');
  return r;
};

// Plain JSON Schema, as the built-in tools' (src/tools/define-tool.ts says why).
const ReviewParams = {
  type: 'object',
  required: ['path', 'line', 'severity', 'body'],
  properties: {
    path: { type: 'string', description: 'File path as in the diff.' },
    line: {
      type: 'integer',
      minimum: 1,
      description: 'Line commented on (the last of a range), in the new version (the old one with side LEFT).',
    },
    side: {
      anyOf: [
        { type: 'string', const: 'LEFT' },
        { type: 'string', const: 'RIGHT' },
      ],
      description: 'RIGHT (default): new version; LEFT: a deleted line.',
    },
    start_line: { type: 'integer', minimum: 1, description: 'First line of a range.' },
    severity: {
      anyOf: [
        { type: 'string', const: 'critical' },
        { type: 'string', const: 'high' },
        { type: 'string', const: 'medium' },
        { type: 'string', const: 'low' },
      ],
      description:
        'critical: breaks correctness, security or data; high: a real bug or risk to fix before merging; medium: worth fixing; low: style or a nit.',
    },
    body: { type: 'string', minLength: 1, description: 'The comment (Markdown).' },
    suggestion: {
      type: 'string',
      description:
        'Replacement text for lines start_line..line of the new version (side RIGHT), which a maintainer applies in one click. Only for a small, certain fix, on lines the diff shows.',
    },
  },
  additionalProperties: false,
} as const;

export const addReviewCommentTool = defineTool({
  name: 'add_review_comment',
  kind: 'other',
  description: `Records an inline comment for the review published when the run ends (at most ${PUBLISH_LIMITS.reviewComments}). Only lines in the diff can hold one; others go to the review body.`,
  params: ReviewParams,
  prepare(args, env) {
    const recorder = needRecorder(env.recorder);
    if (args.start_line !== undefined && args.start_line > args.line) {
      throw new ToolFailure('invalid_args', `start_line (${args.start_line}) is after line (${args.line})`);
    }
    if (args.suggestion !== undefined) assertSuggestionPlace(recorder, args);
    const range = args.start_line ? `${args.start_line}-${args.line}` : `${args.line}`;
    return {
      title: `review comment on ${args.path}:${range}`,
      paths: [],
      policyArgs: { ...args },
      run: ({ signal }) =>
        guardRun(signal, async () => {
          const n = recorder.addReviewComment({
            path: args.path,
            line: args.line,
            side: args.side,
            startLine: args.start_line,
            severity: args.severity,
            body: args.body,
            suggestion: args.suggestion,
          });
          return {
            forModel: `Recorded ${args.severity} review comment ${n} on ${args.path}:${range}${args.suggestion !== undefined ? ' with a suggestion' : ''}; it is published with the review when the run ends.`,
            forHuman: `${args.severity} comment on ${args.path}:${range}`,
          };
        }),
    };
  },
});

/**
 * A suggestion replaces lines of the new version, so it sits on the RIGHT side, and GitHub takes
 * it only on lines the pull request's diff shows (422 otherwise): refused here, while the model can
 * still move it or say it in words, rather than demoted to the review body at the end.
 */
function assertSuggestionPlace(
  recorder: PublishRecorder,
  args: { path: string; line: number; start_line?: number; side?: string },
): void {
  if (args.side === 'LEFT')
    throw new ToolFailure(
      'invalid_args',
      'a suggestion replaces lines of the new version: use side RIGHT (or leave side out), or drop the suggestion',
    );
  const shown = recorder.diffLines?.(args.path);
  if (shown === undefined) return; // no diff known (a saved session's record): checked again when the review is published
  const first = args.start_line ?? args.line;
  const missing: number[] = [];
  for (let n = first; n <= args.line; n++) if (!shown.has(n)) missing.push(n);
  if (missing.length === 0) return;
  const where = shown.size === 0 ? 'the diff does not show this file' : `it shows ${describeRanges(shown)}`;
  throw new ToolFailure(
    'invalid_args',
    `line${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${args.path} ${missing.length > 1 ? 'are' : 'is'} not in the pull request's diff (${where}): a suggestion goes only on lines of the diff. Comment on a line it shows, or record the finding without a suggestion.`,
  );
}

/** 1, 2, 3, 7, 9, 10 -> "lines 1-3, 7, 9-10" of the new version. */
function describeRanges(lines: ReadonlySet<number>): string {
  const sorted = [...lines].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return `lines ${parts.join(', ')} of the new version`;
}

const LabelParams = {
  type: 'object',
  required: ['labels'],
  properties: {
    labels: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description: 'Label names; replaces an earlier call.',
    },
  },
  additionalProperties: false,
} as const;

export const setLabelsTool = defineTool({
  name: 'set_labels',
  kind: 'other',
  description: `Records the labels for this issue or pull request, applied when the run ends (at most ${PUBLISH_LIMITS.labels}); only labels you may apply (listed in the task context) are.`,
  params: LabelParams,
  prepare(args, env) {
    const recorder = needRecorder(env.recorder);
    return {
      title: `set labels ${args.labels.join(', ') || '(none)'}`,
      paths: [],
      policyArgs: { labels: args.labels },
      run: ({ signal }) =>
        guardRun(signal, async () => {
          recorder.setLabels(args.labels);
          return {
            forModel: `Recorded labels: ${args.labels.join(', ') || '(none)'}. When the run ends, those on the list of labels you may apply are applied; others are dropped and reported.`,
            forHuman: `labels ${args.labels.join(', ')}`,
          };
        }),
    };
  },
});

const ReplyParams = {
  type: 'object',
  required: ['body'],
  properties: { body: { type: 'string', minLength: 1, description: 'The comment (Markdown).' } },
  additionalProperties: false,
} as const;

export const replyTool = defineTool({
  name: 'reply',
  kind: 'other',
  description: `Records a comment to post in the thread when the run ends: an answer, or a note for the maintainers (at most ${PUBLISH_LIMITS.replies}; @mentions notify no one).`,
  params: ReplyParams,
  prepare(args, env) {
    const recorder = needRecorder(env.recorder);
    return {
      title: 'reply in the thread',
      paths: [],
      policyArgs: { body: args.body },
      run: ({ signal }) =>
        guardRun(signal, async () => {
          const n = recorder.reply(args.body);
          return { forModel: `Recorded reply ${n}; it is posted when the run ends.`, forHuman: 'reply recorded' };
        }),
    };
  },
});

/** The commands the action runs, as far as the recorders care. */
export type PublishingCommand = TaskKind;

/**
 * The recorders a command has use for, for AgentOptions.extraTools: a review records inline
 * comments and may label the pull request (from the allow-list), a triage labels, a question replies; a fix publishes its commits and its final message,
 * so it records nothing; a free prompt may do any of it. Fewer tools, a shorter request every turn.
 */
export function createGitHubTools(command: PublishingCommand = 'prompt'): Tool[] {
  const all = {
    add_review_comment: addReviewCommentTool,
    set_labels: setLabelsTool,
    reply: replyTool,
  } as unknown as Record<string, Tool>;
  const names: Record<PublishingCommand, string[]> = {
    fix: [],
    review: ['add_review_comment', 'set_labels', 'reply'],
    triage: ['set_labels', 'reply'],
    question: ['reply'],
    prompt: ['add_review_comment', 'set_labels', 'reply'],
  };
  return names[command].map((n) => all[n]!);
}
