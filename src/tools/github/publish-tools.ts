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
  required: ['path', 'line', 'body'],
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
    body: { type: 'string', minLength: 1, description: 'The comment (Markdown).' },
    suggestion: { type: 'string', description: 'Replacement for lines start_line..line, as a one-click suggestion.' },
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
            body: args.body,
            suggestion: args.suggestion,
          });
          return {
            forModel: `Recorded review comment ${n} on ${args.path}:${range}; it is published with the review when the run ends.`,
            forHuman: `comment on ${args.path}:${range}`,
          };
        }),
    };
  },
});

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
