/**
 * What configures sub-agents (settings.json overrides, the review prompt) and what bounds them
 * (the run's token budget), and their declarations as the model sees them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { codebaseInvestigator } from '../../src/agents/codebase-investigator.js';
import { createCompleteTaskTool } from '../../src/agents/complete-task.js';
import { createInvokeAgentTool } from '../../src/agents/invoke-agent.js';
import type { SubagentHost } from '../../src/core/subagent-host.js';
import { declarationOf } from '../../src/tools/define-tool.js';
import { call, reply, speaker, text, usage } from '../support/fake-gemini.js';
import { closeSessions, openSession, responsesOf, systemOf } from './support.js';

afterEach(closeSessions);

const investigate = call('invoke_agent', { agent_name: 'codebase_investigator', prompt: 'Map the change' });

describe('settings.json agents.overrides', () => {
  it('enabled: false takes the investigator away, and the review prompt stops asking for it', async () => {
    const settings = JSON.stringify({ agents: { overrides: { codebase_investigator: { enabled: false } } } });
    const off = await openSession({
      files: { 'README.md': 'x\n', '.gemini/settings.json': settings },
      script: [],
      over: { task: { command: 'review' } },
    });
    expect(off.agent.systemPrompt).not.toContain('codebase_investigator');
    const on = await openSession({ files: { 'README.md': 'x\n' }, script: [], over: { task: { command: 'review' } } });
    expect(on.agent.systemPrompt).toContain('First call invoke_agent with agent_name codebase_investigator');
    const optedOut = await openSession({
      files: { 'README.md': 'x\n' },
      script: [],
      over: { task: { command: 'review', investigateReviews: false } },
    });
    expect(optedOut.agent.systemPrompt).not.toContain('First call invoke_agent');
  });

  it("model and runConfig.maxTurns change the investigator's model and turn limit", async () => {
    const settings = JSON.stringify({
      agents: {
        overrides: {
          codebase_investigator: { modelConfig: { model: 'gemini-2.5-flash-lite' }, runConfig: { maxTurns: 1 } },
        },
      },
    });
    const s = await openSession({
      files: { 'README.md': 'x\n', '.gemini/settings.json': settings },
      // One turn, then its final chance (spent on text), then the parent.
      script: [
        reply([investigate]),
        reply([call('read_file', { file_path: 'README.md' })]),
        reply([text('I read it.')]),
        reply([text('ok')]),
      ],
    });
    await s.agent.start('go', s.emit);
    expect(s.fake.requests.map((r) => r.model)).toEqual([
      'gemini-2.5-flash',
      'gemini-2.5-flash-lite',
      'gemini-2.5-flash-lite',
      'gemini-2.5-flash',
    ]);
    expect(String(responsesOf(s.fake.requests[3])[0].response.error)).toContain('Termination Reason: MAX_TURNS');
  });

  it('warns about an override for an agent that does not exist, and a malformed one', async () => {
    const settings = JSON.stringify({
      agents: {
        overrides: { investigator: { enabled: false }, codebase_investigator: { runConfig: { maxTurns: -1 } } },
      },
    });
    const s = await openSession({ files: { 'README.md': 'x\n', '.gemini/settings.json': settings }, script: [] });
    expect(s.agent.warnings).toEqual(
      expect.arrayContaining([
        '.gemini/settings.json agents.overrides.codebase_investigator.runConfig.maxTurns: expected a positive whole number; ignored',
        '.gemini/settings.json agents.overrides.investigator: there is no agent of that name',
      ]),
    );
  });
});

describe("the run's budget bounds its sub-agents", () => {
  it("a child's tokens count toward the run's token limit: the child stops at what is left, then the run stops", async () => {
    const s = await openSession({
      files: { 'README.md': 'x\n' },
      over: { limits: { maxTotalTokens: 3000 } },
      script: [
        reply([investigate], { usage: usage(1000, 0) }),
        // The child may spend the 2000 tokens left: after this request it has none.
        reply([call('read_file', { file_path: 'README.md' })], { usage: usage(2000, 0) }),
        reply([text('never asked')]),
      ],
    });
    const run = await s.agent.start('go', s.emit);
    expect(s.fake.requests).toHaveLength(2);
    expect(run.outcome).toMatchObject({
      status: 'limit',
      which: 'tokens',
      message: 'reached the token limit (3000 of 3000 tokens)',
    });
    expect(s.events.find((e) => e.type === 'tool_result')).toMatchObject({
      name: 'invoke_agent',
      ok: false,
      output: expect.stringContaining('Termination Reason: LIMIT_TOKENS'),
    });
  });

  it('the job summary stats include the child (tokens, cost, requests per model)', async () => {
    const s = await openSession({
      files: { 'README.md': 'x\n' },
      script: [
        reply([investigate], { usage: usage(100, 10) }),
        reply(
          [call('complete_task', { report: { SummaryOfFindings: 's', ExplorationTrace: [], RelevantLocations: [] } })],
          { usage: usage(200, 20) },
        ),
        reply([text('ok')], { usage: usage(300, 30) }),
      ],
    });
    await s.agent.start('go', s.emit);
    const result = s.events.find((e) => e.type === 'result');
    expect(result).toMatchObject({
      stats: {
        inputTokens: 600,
        outputTokens: 60,
        totalTokens: 660,
        turns: 2,
        models: { 'gemini-2.5-flash': { requests: 3, totalTokens: 660 } },
      },
    });
    expect(result?.type === 'result' && result.stats.costUsd).toBeGreaterThan(0);
  });
});

describe('declarations as the model sees them', () => {
  // A changed description or parameter shows up here in review.
  it('invoke_agent and complete_task', () => {
    const host = {} as SubagentHost;
    const invoke = createInvokeAgentTool(
      {
        available: new Map([[codebaseInvestigator.name, { def: codebaseInvestigator, tools: [] }]]),
        refused: new Map(),
      },
      host,
    );
    expect(declarationOf(invoke)).toMatchSnapshot();
    expect(declarationOf(createCompleteTaskTool({ kind: 'text' }))).toMatchSnapshot();
    expect(declarationOf(createCompleteTaskTool(codebaseInvestigator.output))).toMatchSnapshot();
  });

  it("the investigator's system prompt carries the completion protocol and the project memory", async () => {
    const s = await openSession({
      files: { 'README.md': 'x\n', 'GEMINI.md': 'Run `make check` before finishing.\n' },
      script: [
        reply([investigate]),
        reply([
          call('complete_task', { report: { SummaryOfFindings: 's', ExplorationTrace: [], RelevantLocations: [] } }),
        ]),
        reply([text('ok')]),
      ],
    });
    await s.agent.start('go', s.emit);
    const prompt = systemOf(s.fake.requests[1]);
    expect(prompt).toContain('call complete_task with your findings in `report`');
    expect(prompt).toContain('Run `make check` before finishing.');
    expect(prompt).toContain('Your tools: list_directory, read_file, glob, grep_search, complete_task.');
  });
});

describe('the next-speaker check: the face turns it on, the trusted settings win', () => {
  const said = [reply([text('Next, I will run the tests.')]), reply([text('Tests pass.')])];
  it.each([
    // On: both text-only turns are judged (the first "model", the second the fake's default "user").
    ['on by the face (the action)', { task: { nextSpeaker: { enabled: true } } }, undefined, 2],
    ['off by default (the CLI, as Gemini CLI)', {}, undefined, 0],
    [
      'on by the face, off by settings',
      { task: { nextSpeaker: { enabled: true } } },
      { model: { skipNextSpeakerCheck: true } },
      0,
    ],
    ['off by default, on by settings', {}, { model: { skipNextSpeakerCheck: false } }, 2],
  ])('%s', async (_, over, settings, checks) => {
    const files = { 'README.md': 'x\n', ...(settings ? { '.gemini/settings.json': JSON.stringify(settings) } : {}) };
    const s = await openSession({ files, script: said, over });
    s.fake.pushUtility(speaker('model'));
    const run = await s.agent.start('go', s.emit);
    expect(s.fake.utilityRequests).toHaveLength(checks);
    expect(run.outcome).toEqual({
      status: 'success',
      finalText: checks ? 'Tests pass.' : 'Next, I will run the tests.',
    });
  });
});
