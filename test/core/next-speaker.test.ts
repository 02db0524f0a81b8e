/**
 * The next-speaker check: after a text-only turn a small model judges who speaks next; "model"
 * sends Gemini CLI's "Please continue." (shown as a user message) and the loop goes on, "user"
 * ends the run. At most 3 continuations per session; the check's tokens are counted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runLoop } from '../../src/core/loop.js';
import { createNextSpeakerCheck, nextSpeakerPrompt, parseNextSpeaker } from '../../src/core/next-speaker.js';
import { estimateCostUsd } from '../../src/model/pricing.js';
import {
  call,
  fault,
  reply,
  speaker,
  startFakeGemini,
  text,
  usage,
  type FakeGemini,
  type FakeReply,
} from '../support/fake-gemini.js';
import { fakeScheduler, makeDeps, newState, recorder, userText } from './helpers.js';

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const CHECKER = 'gemini-2.5-flash-lite';

async function run(script: FakeReply[], verdicts: FakeReply[], max?: number) {
  fake = await startFakeGemini(script);
  fake.pushUtility(...verdicts);
  const sched = fakeScheduler();
  const rec = recorder();
  const state = newState();
  const deps = makeDeps(fake, sched.scheduler, {
    afterTextTurn: createNextSpeakerCheck({ model: CHECKER, ...(max === undefined ? {} : { maxContinuations: max }) }),
  });
  const outcome = await runLoop({ state, input: userText('fix the bug') }, deps, rec.emit);
  return { fake, state, rec, outcome };
}

describe('the next-speaker check', () => {
  it('a turn judged "continue" gets "Please continue." and the loop goes on to finish the job', async () => {
    const r = await run(
      [
        reply([text('I fixed the sign. Next, I will run the tests.')]),
        reply([call('run_shell_command', { command: 'npm test' })]),
        reply([text('All tests pass.')]),
      ],
      [speaker('model', 'it announced its next step'), speaker('user')],
    );
    expect(r.outcome).toEqual({ status: 'success', finalText: 'All tests pass.' });
    expect(r.state.history[2]).toEqual({ role: 'user', parts: [{ text: 'Please continue.' }] });
    expect(
      r.rec
        .of('message')
        .filter((m) => m.role === 'user')
        .map((m) => m.text),
    ).toEqual(['fix the bug', 'Please continue.']);
    expect(r.fake.requests[1].body.contents.at(-1)).toEqual({ role: 'user', parts: [{ text: 'Please continue.' }] });
    // The check: the small model, the reply quoted, a JSON schema with Gemini CLI's fields.
    const [check] = r.fake.utilityRequests;
    expect(check.model).toBe(CHECKER);
    expect(JSON.stringify(check.body.contents)).toContain('Next, I will run the tests.');
    expect(check.body.tools).toBeUndefined();
    expect(check.body.generationConfig).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: {
        required: ['reasoning', 'next_speaker'],
        properties: { next_speaker: { enum: ['user', 'model'] } },
      },
    });
    expect(r.fake.utilityRequests).toHaveLength(2);
  });

  it('a turn judged "done" ends the run, with no continuation', async () => {
    const r = await run([reply([text('Fixed and tested; nothing left to do.')])], [speaker('user')]);
    expect(r.outcome).toEqual({ status: 'success', finalText: 'Fixed and tested; nothing left to do.' });
    expect(r.fake.requests).toHaveLength(1);
    expect(r.rec.of('message').filter((m) => m.role === 'user')).toHaveLength(1);
  });

  it("counts the check's tokens and cost toward the run, under the checker's model", async () => {
    const r = await run([reply([text('Done.')], { usage: usage(500, 5) })], [speaker('user')]);
    expect(r.state.models[CHECKER]).toEqual({ inputTokens: 40, outputTokens: 12, totalTokens: 52, requests: 1 });
    expect(r.state.usage.totalTokens).toBe(505 + 52);
    const cost =
      estimateCostUsd('gemini-2.5-flash', {
        inputTokens: 500,
        outputTokens: 5,
        cachedTokens: 0,
        thoughtTokens: 0,
        totalTokens: 505,
      }) +
      estimateCostUsd(CHECKER, {
        inputTokens: 40,
        outputTokens: 12,
        cachedTokens: 0,
        thoughtTokens: 0,
        totalTokens: 52,
      });
    expect(r.state.costUsd).toBeCloseTo(cost, 12);
  });

  it('continues at most 3 times per session: the fourth text-only turn ends the run unchecked', async () => {
    const turns = [1, 2, 3, 4].map((n) => reply([text(`Step ${n} done. Next, I will do step ${n + 1}.`)]));
    const r = await run(turns, [speaker('model'), speaker('model'), speaker('model'), speaker('model')]);
    expect(r.outcome).toEqual({ status: 'success', finalText: 'Step 4 done. Next, I will do step 5.' });
    expect(r.rec.of('message').filter((m) => m.role === 'user' && m.text === 'Please continue.')).toHaveLength(3);
    expect(r.fake.utilityRequests).toHaveLength(3);
    expect(r.state.continuations).toBe(3);
  });

  it('a configured limit of 1 continues once', async () => {
    const r = await run(
      [reply([text('Next, I will test.')]), reply([text('Next, I will lint.')])],
      [speaker('model'), speaker('model')],
      1,
    );
    expect(r.fake.requests).toHaveLength(2);
    expect(r.fake.utilityRequests).toHaveLength(1);
  });

  it('a failed check ends the run with a warning, not an error', async () => {
    const r = await run(
      [reply([text('Next, I will test.')])],
      [fault.status(400, { message: 'schema not supported' })],
    );
    expect(r.outcome).toEqual({ status: 'success', finalText: 'Next, I will test.' });
    expect(r.rec.of('warning').map((w) => w.message)).toEqual([
      expect.stringContaining('the next-speaker check failed, so the run ends here'),
    ]);
  });

  it('an answer that is not the JSON asked for ends the run with a warning', async () => {
    const r = await run([reply([text('Next, I will test.')])], [reply([text('the model, probably')])]);
    expect(r.outcome.status).toBe('success');
    expect(r.rec.of('warning').map((w) => w.message)).toEqual([
      'the next-speaker check gave no usable answer, so the run ends here',
    ]);
  });
});

describe('parseNextSpeaker and the prompt', () => {
  it.each([
    ['{"reasoning":"r","next_speaker":"model"}', 'model'],
    ['{"reasoning":"r","next_speaker":"user"}', 'user'],
    ['{"next_speaker":"assistant"}', undefined],
    ['null', undefined],
    ['not json', undefined],
  ])('%s -> %s', (raw, who) => {
    expect(parseNextSpeaker(raw)).toBe(who);
  });

  it('quotes the reply between tags', () => {
    expect(nextSpeakerPrompt('Next, I will run it.')).toContain('<reply>\nNext, I will run it.\n</reply>');
  });
});
