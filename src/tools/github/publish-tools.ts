/**
 * The model's only way to reach GitHub: tools that record into the run's PublishRecorder. Nothing
 * is posted here; the action checks and publishes once at the end. Kind 'other': they touch no file.
 */
import { Type } from 'typebox';
import { defineTool, ToolFailure, type Tool } from '../define-tool.js';
import { guardRun } from '../tool-output.js';
import { PUBLISH_LIMITS, recorderOf, type PublishRecorder } from './recorder.js';

const needRecorder = (value: unknown): PublishRecorder => {
  const r = recorderOf(value);
  if (!r) throw new ToolFailure('failed', 'publishing is not available in this run (no GitHub thread)');
  return r;
};

const ReviewParams = Type.Object(
  {
    path: Type.String({ description: 'File path relative to the repository root, as it appears in the pull request diff.' }),
    line: Type.Integer({ minimum: 1, description: 'The line the comment is about (the last line of a range), numbered in the new version of the file (or the old one when side is LEFT).' }),
    side: Type.Optional(Type.Union([Type.Literal('LEFT'), Type.Literal('RIGHT')], { description: 'RIGHT (default): the new version; LEFT: a deleted line of the old version.' })),
    start_line: Type.Optional(Type.Integer({ minimum: 1, description: 'First line of a multi-line comment; must not be after line.' })),
    body: Type.String({ minLength: 1, description: 'The review comment, in GitHub Markdown.' }),
    suggestion: Type.Optional(Type.String({ description: 'Replacement text for lines start_line..line: shown as a suggestion the author can apply with one click.' })),
  },
  { additionalProperties: false },
);

export const addReviewCommentTool = defineTool({
  name: 'add_review_comment',
  kind: 'other',
  description:
    `Records an inline comment for the pull request review that is published when the run ends (at most ${PUBLISH_LIMITS.reviewComments} per run). Only lines inside the diff can hold inline comments; other findings are moved into the review body. Use suggestion to propose replacement code for the commented lines.`,
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
          const n = recorder.addReviewComment({ path: args.path, line: args.line, side: args.side, startLine: args.start_line, body: args.body, suggestion: args.suggestion });
          return { forModel: `Recorded review comment ${n} on ${args.path}:${range}; it is published with the review when the run ends.`, forHuman: `comment on ${args.path}:${range}` };
        }),
    };
  },
});

const LabelParams = Type.Object(
  { labels: Type.Array(Type.String({ minLength: 1 }), { description: 'The labels the issue or pull request should carry, chosen from the labels you may apply (listed in the task context). Replaces an earlier call.' }) },
  { additionalProperties: false },
);

export const setLabelsTool = defineTool({
  name: 'set_labels',
  kind: 'other',
  description: `Records the labels to add to this issue or pull request when the run ends (at most ${PUBLISH_LIMITS.labels}). Only labels on the list of labels you may apply are applied; others are dropped and reported.`,
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

const ReplyParams = Type.Object({ body: Type.String({ minLength: 1, description: 'The reply, in GitHub Markdown.' }) }, { additionalProperties: false });

export const replyTool = defineTool({
  name: 'reply',
  kind: 'other',
  description: `Records a comment to post in the issue or pull request thread when the run ends: the answer to a question, or a note for the maintainers. At most ${PUBLISH_LIMITS.replies} per run; @mentions are shown but notify no one.`,
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

/** The recorders, for AgentOptions.extraTools. */
export const createGitHubTools = (): Tool[] => [addReviewCommentTool, setLabelsTool, replyTool] as unknown as Tool[];
