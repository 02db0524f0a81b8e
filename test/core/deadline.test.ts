/**
 * A tool call never outlives the run's wall-clock limit: the real agent (policy, scheduler, loop)
 * with the real SDK against the fake Gemini, a model that calls a tool whose work never settles,
 * and a 300 ms budget on an injected clock, fired once the call runs. The call is abandoned at the
 * scheduler's grace period after the abort (on the same clock); without it, the loop waited on
 * that call forever and `timeout-minutes` meant nothing.
 */
import { Type } from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareAgent } from '../../src/compose/prepare-agent.js';
import type { Clock } from '../../src/core/retry.js';
import { defineTool, type Tool } from '../../src/tools/define-tool.js';
import { call, reply, startFakeGemini, type FakeGemini } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';

let gemini: FakeGemini | undefined;
afterEach(async () => {
  await gemini?.close();
  gemini = undefined;
});

/** Awaits something that never settles and ignores its signal: the worst a tool can do. */
const hangTool = defineTool({
  name: 'hang',
  kind: 'read',
  description: 'Waits forever.',
  params: Type.Object({}, { additionalProperties: false }),
  prepare: () => ({ title: 'hang', paths: [], policyArgs: {}, run: () => new Promise(() => undefined) }),
});

describe("the run's deadline", () => {
  it('ends a tool call that never settles, and the run ends at its time limit', async () => {
    gemini = await startFakeGemini([reply([call('hang', {})])]);
    const root = makeTempDir();
    // The clock's timers are the test's to fire: the deadline's, then the scheduler's grace period.
    const timers: { ms: number; fire: () => void }[] = [];
    const clock: Clock = {
      now: () => 0,
      sleep: () => Promise.reject(new Error('this run has nothing to wait for')),
      setTimer: (ms, fire) => {
        timers.push({ ms, fire });
        return () => undefined;
      },
    };
    const agent = await prepareAgent({
      model: { name: 'gemini-2.5-flash', apiKey: 'AIza-deadline-test', baseUrl: gemini.baseUrl },
      workspace: { root, memoryRoot: root },
      policy: {
        context: 'action',
        mode: 'default',
        user: [{ inline: '[[rule]]\ntoolName = "hang"\ndecision = "allow"\npriority = 100\n', label: 'test' }],
      },
      task: { command: 'question' },
      tools: { extra: [hangTool as unknown as Tool] },
      limits: { maxWallMs: 300 },
      secrets: [],
      io: { channel: { decide: async () => 'defer' }, clock },
    });
    const events: string[] = [];
    let executing!: () => void;
    const started = new Promise<void>((r) => (executing = r));
    const running = agent.start('go', (e) => {
      if (e.type === 'tool_state') events.push(e.status);
      if (e.type === 'tool_state' && e.status === 'executing') executing();
    });
    await started;
    expect(timers.map((w) => w.ms)).toEqual([300]);
    timers[0]!.fire();
    // The deadline cancels the call; a tool that ignores it is abandoned after the scheduler's
    // grace period, on the same clock.
    expect(timers.map((w) => w.ms)).toEqual([300, 10_000]);
    await new Promise((r) => setImmediate(r));
    expect(events.at(-1)).toBe('executing');
    timers[1]!.fire();
    const run = await running;
    expect(run.outcome).toMatchObject({ status: 'limit', which: 'time' });
    expect(events).toContain('executing');
    expect(events.at(-1)).toBe('cancelled');
    expect(gemini.requests).toHaveLength(1);
  });
});
