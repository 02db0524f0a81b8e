/**
 * Issue 29's triggers and outputs through the bundled dist/index.js, against the fake GitHub and
 * the fake Gemini, on real `issue_comment` payloads: a mention in the middle of a comment
 * (`trigger-anywhere`), a quoted one and one in code that start nothing, a question's answer posted
 * once (in a conversation, and after a resume), and `session-id` set on every run with a session.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, fault, reply, text } from '../support/fake-gemini.js';
import {
  API_KEY,
  assertBundle,
  bundlePath,
  commentPayload,
  ISSUE,
  markedComments,
  openThread,
  runReply,
  type Thread,
} from './approval-support.js';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { asUser, examplePayload, retarget, runAction, type ActionRun } from '../support/e2e-runner.js';

let t: Thread | undefined;
beforeAll(() => assertBundle());
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const logOf = (r: ActionRun) => `${r.stdout}\n${r.stderr}`;

/** A maintainer's comment on the issue, and the run its issue_comment event starts. */
function runComment(th: Thread, body: string, inputs: Record<string, string> = {}): Promise<ActionRun> {
  const comment = th.gh.addComment(ISSUE, body, { login: 'maintainer' });
  return runAction({
    eventName: 'issue_comment',
    payload: commentPayload(comment),
    job: th.job,
    bundle: bundlePath(),
    inputs: { 'gemini-api-key': API_KEY, 'gemini-base-url': th.gemini.baseUrl, ...inputs },
    env: { GITHUB_API_URL: th.gh.url },
  });
}

/** The issue's comments that hold `words`, as the fake GitHub keeps them. */
const commentsWith = (th: Thread, words: string) =>
  th.gh.state.comments.filter((c) => c.issue_number === ISSUE && c.body.includes(words));

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('trigger-anywhere', () => {
  it('a mention in the middle of a comment is a command: the text after it is the question', async () => {
    const answer = 'It subtracts because line 2 says `a - b`.';
    t = await openThread([reply([text(answer)])]);
    const r = await runComment(t, 'Thanks for the report!\n\nQuick one, /agent why does add subtract?', {
      'trigger-anywhere': 'true',
    });
    expect(r.code, logOf(r)).toBe(0);
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(t.gemini.requests).toHaveLength(1);
    expect(JSON.stringify(t.gemini.requests[0].body.contents)).toContain(
      "Answer the maintainer's question about issue #7:\\nwhy does add subtract?",
    );
    expect(commentsWith(t, answer)).toHaveLength(1);
  });

  it.each([
    ['a quoted request (GitHub’s quote reply)', '> /agent fix\n\nI would rather we did not.'],
    ['a request in a fenced code block', 'To ask it, write:\n\n```\n/agent fix\n```'],
    ['a request in inline code', 'Write `/agent fix` to ask the agent.'],
  ])('%s starts nothing: skipped, no model request, nothing posted', async (_what, body) => {
    t = await openThread([]);
    const before = t.gh.state.comments.length;
    const r = await runComment(t, body, { 'trigger-anywhere': 'true' });
    expect(r.code, logOf(r)).toBe(0);
    expect(r.outputs.status).toBe('skipped');
    expect(r.outputs.summary).toBe("comment does not mention '/agent' outside code and quotes");
    expect(t.gemini.requests).toHaveLength(0);
    expect(t.gh.state.comments.length).toBe(before + 1); // the maintainer's own comment only
    expect(t.gh.state.reactions).toEqual([]);
  });

  it('without the input, the same mid-comment mention is skipped (the default stays start-of-comment)', async () => {
    t = await openThread([]);
    const r = await runComment(t, 'Thanks! /agent why does add subtract?');
    expect(r.outputs.status).toBe('skipped');
    expect(r.outputs.summary).toBe("comment does not start with '/agent'");
    expect(t.gemini.requests).toHaveLength(0);
  });
});

describe('a question is answered once, and session-id is always set', () => {
  it('the answer is one reply; the progress comment links it instead of repeating it; session-id is set', async () => {
    const answer = 'Because `add` returns `a - b`; it should be `a + b`.';
    t = await openThread([reply([text(answer)])]);
    const r = await runComment(t, '/agent why does add(2, 2) return 0?');
    expect(r.outputs.status, logOf(r)).toBe('success');
    const answers = commentsWith(t, answer);
    expect(answers.map((c) => c.body)).toEqual([`${answer}\n\n<!-- agent-action:reply -->`]);
    const [progress] = markedComments(t.gh, 'progress');
    expect(progress.body).toContain(
      `Answered [in this reply](https://github.test/octo/hello/issues/${ISSUE}#issuecomment-${answers[0].id}).`,
    );
    // The step's outputs: the id of the session the loop ran, though nothing suspended or checkpointed.
    expect(r.outputs['session-id']).toMatch(SESSION_ID);
    // The job summary is not a comment: it keeps the answer for the run's page.
    expect(r.summary).toContain(answer);
  });

  it('after a resume (the model asked, a maintainer answered): the answer is still one reply; both runs name the session', async () => {
    const answer = 'With strings it concatenates: "2" + "2" is "22".';
    const ask = call('ask_user', {
      questions: [{ question: 'Numbers or strings?', header: 'Input', type: 'text' }],
    });
    t = await openThread([reply([ask]), reply([text(answer)])]);
    const first = await runComment(t, '/agent what does add do with its inputs?');
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    expect(first.outputs['session-id']).toMatch(SESSION_ID);

    const second = await runReply(t, '/agent answer strings');
    expect(second.outputs.status, logOf(second)).toBe('success');
    expect(second.outputs['session-id']).toBe(first.outputs['session-id']);
    expect(commentsWith(t, answer).map((c) => c.body)).toEqual([`${answer}\n\n<!-- agent-action:reply -->`]);
  });

  it('a run that fails after the agent ran still names its session', async () => {
    // A 400 is not retried: the loop ends with an error, and the run fails.
    t = await openThread([fault.status(400, { message: 'Request contains an invalid argument.' })]);
    const r = await runComment(t, '/agent why?');
    expect(r.outputs.status, logOf(r)).toBe('failed');
    expect(r.outputs['session-id']).toMatch(SESSION_ID);
  });
});

describe('output-schema and structured-output', () => {
  const SCHEMA = JSON.stringify({
    type: 'object',
    properties: { broken: { type: 'boolean' }, cause: { enum: ['sign', 'overflow', 'other'] } },
    required: ['broken', 'cause'],
    additionalProperties: false,
  });
  const inputs = { 'output-schema': SCHEMA };
  const structuredRequests = (th: Thread) =>
    th.gemini.requests.filter((q) => q.body.generationConfig?.responseMimeType === 'application/json');

  it('the answer that matches is the structured-output output (JSON), asked for with the schema', async () => {
    t = await openThread([
      reply([text('add() is broken: it subtracts.')]),
      reply([text('{"broken":true,"cause":"sign"}')]),
    ]);
    const r = await runComment(t, '/agent is add() broken?', inputs);
    expect(r.code, logOf(r)).toBe(0);
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(JSON.parse(r.outputs['structured-output'])).toEqual({ broken: true, cause: 'sign' });
    const [asked] = structuredRequests(t);
    expect(asked.body.generationConfig?.responseJsonSchema).toEqual(JSON.parse(SCHEMA));
    expect(asked.body.tools).toBeUndefined();
  });

  it('an answer that does not match is asked again with the validator’s message, and the fixed one is the output', async () => {
    t = await openThread([
      reply([text('add() is broken.')]),
      reply([text('{"broken":true,"cause":"typo"}')]),
      reply([text('{"broken":true,"cause":"other"}')]),
    ]);
    const r = await runComment(t, '/agent is add() broken?', inputs);
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(JSON.parse(r.outputs['structured-output'])).toEqual({ broken: true, cause: 'other' });
    expect(JSON.stringify(t.gemini.requests[2].body.contents.at(-1))).toContain(
      'does not match the schema: /cause must be one of \\"sign\\", \\"overflow\\", \\"other\\"',
    );
  });

  it('still not matching: the run fails, exit 1, the error naming the path; structured-output stays empty', async () => {
    t = await openThread([
      reply([text('add() is broken.')]),
      reply([text('{"broken":"yes","cause":"sign"}')]),
      reply([text('{"broken":"yes","cause":"sign"}')]),
    ]);
    const r = await runComment(t, '/agent is add() broken?', inputs);
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('failed');
    expect(r.outputs['structured-output']).toBe('');
    const failure = 'Failed: the final answer does not match output-schema, asked twice: /broken must be boolean';
    expect(r.outputs.summary).toBe(failure);
    expect(r.annotations.filter((a) => a.level === 'error').map((a) => a.message)).toEqual([failure]);
    expect(t.gemini.requests).toHaveLength(3);
  });

  it('a schema that is not valid JSON Schema fails before any model call, naming the input and the schema path', async () => {
    t = await openThread([]);
    const r = await runComment(t, '/agent is add() broken?', {
      'output-schema': '{"type":"object","required":"broken"}',
    });
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('failed');
    const errors = r.annotations.filter((a) => a.level === 'error');
    expect(errors.map((a) => a.properties.title)).toEqual(['input output-schema']);
    expect(errors[0].message).toBe(
      'input \'output-schema\' is "{\\"type\\":\\"object\\",\\"required\\":\\"broken\\"}": expected a JSON Schema as JSON text: not a valid JSON Schema: /required must be array',
    );
    expect(t.gemini.requests).toHaveLength(0);
  });
});

describe('review suggestion blocks, with a severity', () => {
  const MATH = 'export function add(a, b) {\n  return a + b;\n}\n';
  const WITH_MUL = `${MATH}\nexport function mul(a, b) {\n  const product = a * b;\n  return product + 0;\n}\n`;
  let world: ActionWorld | undefined;
  afterEach(() => world?.close());

  it('a suggestion on lines of the diff lands on them (RIGHT, start_line..line) with its severity; one off the diff is refused to the model', async () => {
    world = await startActionWorld({
      files: { 'src/math.js': MATH, 'README.md': '# calc\n' },
      pulls: [
        {
          number: 3,
          head: 'feature/mul',
          files: { 'src/math.js': WITH_MUL },
          title: 'Add mul',
          body: 'Multiplication.',
          user: { login: 'contributor' },
        },
      ],
      event: { name: 'pull_request', pull: 3 },
      script: [
        reply([
          call('add_review_comment', {
            path: 'src/math.js',
            start_line: 6,
            line: 7,
            severity: 'medium',
            body: 'The temporary and the `+ 0` add nothing.',
            suggestion: '  return a * b;',
          }),
          call('add_review_comment', {
            path: 'README.md',
            line: 1,
            severity: 'low',
            body: 'Document mul.',
            suggestion: '# calc (add, mul)',
          }),
        ]),
        reply([text('mul works; one simplification.')]),
      ],
    });
    const payload = retarget(examplePayload('pull_request', 'opened'), 'octo/hello');
    payload.number = 3;
    payload.pull_request.number = 3;
    asUser(payload.sender, 'contributor');

    const r = await world.run({ eventName: 'pull_request', payload, inputs: { 'gemini-api-key': API_KEY } });

    expect(r.code, logOf(r)).toBe(0);
    expect(r.outputs.status, logOf(r)).toBe('success');
    const [review] = world.gh.state.reviews;
    expect(review.comments).toHaveLength(1);
    expect(review.comments[0]).toMatchObject({
      path: 'src/math.js',
      start_line: 6,
      start_side: 'RIGHT',
      line: 7,
      side: 'RIGHT',
    });
    expect(review.comments[0].body).toMatch(
      /^\*\*Severity: medium\*\*\n\nThe temporary and the `\+ 0` add nothing\.\n\n```suggestion\n {2}return a \* b;\n```\n\n<!-- agent-action:review-comment -->$/,
    );
    // README.md is not in the diff: the model was told so, and the suggestion went nowhere.
    const results = JSON.stringify(world.gemini.requests[1].body.contents);
    expect(results).toContain(
      "line 1 of README.md is not in the pull request's diff (the diff does not show this file)",
    );
    expect(review.body).not.toContain('Document mul.');
  });
});
