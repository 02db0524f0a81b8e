/**
 * Gemini CLI's `ask_user` tool: the model asks a maintainer a question it cannot settle itself.
 * The parameters are Gemini CLI's (`questions`: 1-4 items with `question`, `header`, `type`,
 * `options`, `multiSelect`, `placeholder`), so prompts and policies written for it work unchanged.
 *
 * It never runs on its own: `prepare` sets `question`, the scheduler hands the call to the approval
 * channel, and the human's answer becomes the result (in the action: the run suspends, the question
 * is posted, `/agent answer ...` resumes it). `run` only answers when no channel did.
 */
import type { Static } from 'typebox';
import { defineTool, ToolFailure, type HumanQuestion } from '../define-tool.js';

// Plain JSON Schema (define-tool.ts says why): `type` is an anyOf of constants, which the model
// is shown as an enum (modelSchemaOf).
const Option = {
  type: 'object',
  required: ['label', 'description'],
  properties: {
    label: { type: 'string', description: '1-5 words.' },
    description: { type: 'string', description: 'One line on it.' },
  },
  additionalProperties: false,
} as const;

const Question = {
  type: 'object',
  required: ['question', 'header', 'type'],
  properties: {
    question: { type: 'string', description: 'The full question, ending with "?".' },
    header: { type: 'string', maxLength: 16, description: 'A label of up to 16 characters, e.g. "Approach".' },
    type: {
      anyOf: [
        { type: 'string', const: 'choice' },
        { type: 'string', const: 'text' },
        { type: 'string', const: 'yesno' },
      ],
      default: 'choice',
      description: 'Default choice.',
    },
    options: { type: 'array', items: Option, description: 'For choice: 2-4.' },
    multiSelect: { type: 'boolean' },
    placeholder: { type: 'string' },
  },
  additionalProperties: false,
} as const;

const Params = {
  type: 'object',
  required: ['questions'],
  properties: { questions: { type: 'array', items: Question, minItems: 1, maxItems: 4 } },
  additionalProperties: false,
} as const;

type QuestionArgs = Static<typeof Params>['questions'][number];

/** The model may send literal "\n" escapes; people should see line breaks. */
const unescape = (s: string) => s.replace(/\\r\\n|\\n/g, '\n');

function assertQuestions(questions: readonly QuestionArgs[]): void {
  questions.forEach((q, i) => {
    const n = i + 1;
    if (!q.question.trim()) throw new ToolFailure('invalid_args', `question ${n}: 'question' is empty`);
    const type = q.type ?? 'choice';
    if (type === 'choice' && (!q.options || q.options.length < 2 || q.options.length > 4)) {
      throw new ToolFailure('invalid_args', `question ${n}: type 'choice' needs 'options' with 2 to 4 items`);
    }
    q.options?.forEach((o, j) => {
      if (!o.label.trim()) throw new ToolFailure('invalid_args', `question ${n}, option ${j + 1}: 'label' is empty`);
    });
  });
}

function choicesOf(q: QuestionArgs): string[] | undefined {
  const type = q.type ?? 'choice';
  if (type === 'yesno') return ['Yes', 'No'];
  if (type === 'choice')
    return q.options?.map((o) =>
      o.description.trim() ? `${unescape(o.label)}: ${unescape(o.description.trim())}` : unescape(o.label),
    );
  return undefined;
}

/**
 * One HumanQuestion for the whole call: a maintainer answers a call with one reply. A single
 * question keeps its numbered choices; several are listed with their own options inline.
 */
function humanQuestionOf(questions: readonly QuestionArgs[]): HumanQuestion {
  if (questions.length === 1) {
    const q = questions[0];
    const choices = choicesOf(q);
    const hints = [
      q.multiSelect ? '(several choices may be picked)' : '',
      q.placeholder ? `(e.g. ${unescape(q.placeholder)})` : '',
    ].filter(Boolean);
    const text = [unescape(q.question), ...hints].join(' ');
    return choices ? { question: text, choices } : { question: text };
  }
  const parts = questions.map((q, i) => {
    const choices = choicesOf(q);
    const list = choices ? `\n${choices.map((c, j) => `   ${String.fromCharCode(97 + j)}) ${c}`).join('\n')}` : '';
    return `${i + 1}. **${unescape(q.header)}**: ${unescape(q.question)}${list}`;
  });
  return { question: `${parts.join('\n')}\n\nAnswer each numbered question in one reply.` };
}

export const askUserTool = defineTool({
  name: 'ask_user',
  kind: 'other',
  description:
    'Asks the maintainer questions only they can answer; the run pauses until they reply, and the reply is the result.',
  params: Params,
  prepare(args) {
    assertQuestions(args.questions);
    const question = humanQuestionOf(args.questions);
    const first = unescape(args.questions[0].question).split('\n')[0];
    return {
      title: `ask: ${first.length > 80 ? `${first.slice(0, 79)}…` : first}`,
      paths: [],
      policyArgs: { questions: args.questions },
      question,
      // Reached only when no channel answered the question (a bug in the caller): the model goes on.
      run: async () => ({
        forModel:
          'Nobody answered the question. Make the most reasonable assumption, say which one you made, and go on.',
        forHuman: 'not answered',
        error: { code: 'failed', message: 'no one answered the question' },
      }),
    };
  },
});
