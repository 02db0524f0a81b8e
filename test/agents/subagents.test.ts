/**
 * Sub-agents end to end over the real SDK and the loopback fake Gemini: invoke_agent runs a child
 * loop whose requests, tools, policy checks, events and tokens are observed from outside.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, reply, text, usage } from '../support/fake-gemini.js';
import { closeSessions, eventLog, openSession, prepareFor, responsesOf, systemOf, toolNamesOf } from './support.js';

afterEach(closeSessions);

const FILES = {
  'src/add.js': 'export const add = (a, b) => a + b;\n',
  'src/sum.js': "import { add } from './add.js';\nexport const sum = (xs) => xs.reduce(add, 0);\n",
  'src/main.js': "import { sum } from './sum.js';\nconsole.log(sum([1, 2, 3]));\n",
};

const REPORT = {
  SummaryOfFindings: 'sum() folds add() over the list; main.js prints sum([1, 2, 3]).',
  ExplorationTrace: ['read src/add.js', 'read src/sum.js', 'read src/main.js'],
  RelevantLocations: [{ FilePath: 'src/sum.js', Reasoning: 'the only caller of add', KeySymbols: ['sum', 'add'] }],
};

const investigate = () =>
  call('invoke_agent', { agent_name: 'codebase_investigator', prompt: 'How is add() used? List every caller.' });

describe('invoke_agent: the codebase investigator', () => {
  it('reads three files in its own chat, completes with a report, and the parent receives only the report', async () => {
    const s = await openSession({
      files: FILES,
      script: [
        reply([investigate()], { usage: usage(1000, 20) }),
        // The child: three reads in one batch, then complete_task.
        reply(
          [
            call('read_file', { file_path: 'src/add.js' }),
            call('read_file', { file_path: 'src/sum.js' }),
            call('read_file', { file_path: 'src/main.js' }),
          ],
          {
            usage: usage(700, 30),
          },
        ),
        reply([call('complete_task', { report: REPORT })], { usage: usage(900, 60) }),
        reply([text('add() has one caller: sum().')], { usage: usage(1200, 15) }),
      ],
    });
    const run = await s.agent.start('Who calls add()?', s.emit);
    expect(run.outcome).toEqual({ status: 'success', finalText: 'add() has one caller: sum().' });

    const [main1, child1, child2, main2] = s.fake.requests;
    // The child has its own system prompt, only read tools plus complete_task, and its own chat.
    expect(systemOf(child1)).toContain('Codebase Investigator');
    expect(toolNamesOf(child1)).toEqual(['list_directory', 'read_file', 'glob', 'grep_search', 'complete_task']);
    expect(toolNamesOf(main1)).toContain('invoke_agent');
    expect(child1.body.contents).toHaveLength(1);
    expect(String(child1.body.contents[0].parts[0].text)).toContain('How is add() used? List every caller.');
    // The child saw the three files.
    expect(responsesOf(child2).map((r) => String(r.response.output))).toEqual([
      expect.stringContaining('export const add'),
      expect.stringContaining('reduce(add, 0)'),
      expect.stringContaining('console.log(sum'),
    ]);
    // The parent's next request carries the report, not the files.
    const [result] = responsesOf(main2);
    expect(result.name).toBe('invoke_agent');
    expect(result.response.output).toBe(
      `Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\n${JSON.stringify(REPORT, null, 2)}`,
    );
    expect(JSON.stringify(main2.body.contents)).not.toContain('export const add');

    // Tokens and cost: the child's two requests count toward the run's totals.
    expect(run.state.usage.inputTokens).toBe(1000 + 700 + 900 + 1200);
    expect(run.state.usage.outputTokens).toBe(20 + 30 + 60 + 15);
    expect(run.state.models['gemini-2.5-flash'].requests).toBe(4);
    expect(run.state.turns).toBe(2); // the parent's own turns

    // The child's events reach the stream, nested under the parent's call.
    const nested = s.nested();
    expect(new Set(nested.map((n) => `${n.parentId} ${n.agent}`))).toEqual(new Set(['call-1-0 codebase_investigator']));
    expect(nested.flatMap((n) => (n.event.type === 'tool_use' ? [n.event.name] : []))).toEqual([
      'read_file',
      'read_file',
      'read_file',
      'complete_task',
    ]);
    expect(nested[0].event.type).toBe('init');
    expect(nested.at(-1)?.event).toMatchObject({ type: 'result', outcome: { status: 'success' } });
    // The parent's own stream has the invoke_agent call and its result.
    expect(
      s.events.filter((e) => e.type === 'tool_result').map((e) => (e.type === 'tool_result' ? [e.name, e.ok] : [])),
    ).toEqual([['invoke_agent', true]]);
  });
});

describe('invoke_agent: the completion protocol', () => {
  it('a child that stops without complete_task gets one last chance, then the parent gets a clear error result', async () => {
    const s = await openSession({
      files: FILES,
      script: [
        reply([investigate()]),
        reply([text('add() is used by sum().')]), // the child answers in text: not how it finishes
        reply([text('As I said, sum() uses it.')]), // its last chance, spent on text again
        reply([text('The investigator failed; I will look myself next time.')]),
      ],
    });
    const run = await s.agent.start('Who calls add()?', s.emit);
    expect(run.outcome.status).toBe('success');
    const [, , lastChance, main2] = s.fake.requests;
    expect(lastChance.body.contents.at(-1)).toEqual({
      role: 'user',
      parts: [
        {
          text: 'You have stopped calling tools without finishing. You have one final chance: call `complete_task` now with your best answer, and say in it that your work was cut short. Do not call any other tool.',
        },
      ],
    });
    const [result] = responsesOf(main2);
    expect(result.name).toBe('invoke_agent');
    expect(result.response).toEqual({
      error:
        "Subagent 'codebase_investigator' did not complete its task.\nTermination Reason: ERROR_NO_COMPLETE_TASK_CALL\nResult:\nAgent stopped calling tools but did not call 'complete_task'.",
    });
    expect(s.events.find((e) => e.type === 'tool_result')).toMatchObject({ name: 'invoke_agent', ok: false });
  });

  it('a child that uses its last chance to call complete_task succeeds', async () => {
    const s = await openSession({
      files: FILES,
      script: [
        reply([investigate()]),
        reply([text('Found it.')]),
        reply([call('complete_task', { report: REPORT })]),
        reply([text('ok')]),
      ],
    });
    await s.agent.start('Who calls add()?', s.emit);
    expect(responsesOf(s.fake.requests[3])[0].response.output).toContain('Termination Reason: GOAL');
  });

  it('complete_task with an empty result is refused with the reason, and the child goes on', async () => {
    const agentFile =
      '---\nname: summarizer\ndescription: Summarizes files.\ntools: [read_file]\n---\nSummarize what you are asked about.\n';
    const s = await openSession({
      files: { ...FILES, '.gemini/agents/summarizer.md': agentFile },
      script: [
        reply([call('invoke_agent', { agent_name: 'summarizer', prompt: 'Summarize src/add.js' })]),
        reply([call('complete_task', { result: '   ' })]),
        reply([call('complete_task', { result: 'add.js exports add(a, b).' })]),
        reply([text('ok')]),
      ],
    });
    await s.agent.start('go', s.emit);
    expect(responsesOf(s.fake.requests[2])).toEqual([
      {
        name: 'complete_task',
        response: {
          error: 'Missing required "result" argument. You must provide your findings when calling complete_task.',
        },
      },
    ]);
    expect(responsesOf(s.fake.requests[3])[0].response.output).toBe(
      "Subagent 'summarizer' finished.\nTermination Reason: GOAL\nResult:\nadd.js exports add(a, b).",
    );
  });

  const reader =
    '---\nname: reader\ndescription: Reads files.\ntools: [read_file]\nmax_turns: 2\n---\nRead what you are asked to.\n';
  const twoReads = [
    reply([call('invoke_agent', { agent_name: 'reader', prompt: 'Read the sources' })]),
    reply([call('read_file', { file_path: 'src/add.js' })]),
    reply([call('read_file', { file_path: 'src/sum.js' })]),
  ];

  it('a child at its own turn limit gets one final turn, and completing in it is a success', async () => {
    const s = await openSession({
      files: { ...FILES, '.gemini/agents/reader.md': reader },
      script: [
        ...twoReads,
        reply([call('complete_task', { result: 'add and sum read; cut short.' })]),
        reply([text('ok')]),
      ],
    });
    await s.agent.start('go', s.emit);
    // The final chance rides on the user turn that answers the second read.
    expect(s.fake.requests[3].body.contents.at(-1)?.parts.at(-1)).toEqual({
      text: 'You have exceeded the maximum number of turns. You have one final chance: call `complete_task` now with your best answer, and say in it that your work was cut short. Do not call any other tool.',
    });
    expect(responsesOf(s.fake.requests[4])[0].response.output).toBe(
      "Subagent 'reader' finished.\nTermination Reason: GOAL\nResult:\nadd and sum read; cut short.",
    );
  });

  it('a child that wastes its final turn reports MAX_TURNS to the parent', async () => {
    const s = await openSession({
      files: { ...FILES, '.gemini/agents/reader.md': reader },
      script: [...twoReads, reply([call('read_file', { file_path: 'src/main.js' })]), reply([text('ok')])],
    });
    await s.agent.start('go', s.emit);
    expect(s.fake.requests).toHaveLength(5);
    expect(responsesOf(s.fake.requests[4])[0].response).toEqual({
      error:
        "Subagent 'reader' did not complete its task.\nTermination Reason: MAX_TURNS\nResult:\nreached the turn limit (2 turns)",
    });
  });
});

describe('invoke_agent: what a child may do', () => {
  it('refuses a user agent whose front matter asks for a tool its parent lacks: a warning, and an error if it is called', async () => {
    const agentFile =
      '---\nname: labeler\ndescription: Labels issues.\ntools:\n  - read_file\n  - set_labels\n---\nPick labels.\n';
    const s = await openSession({
      files: { ...FILES, '.gemini/agents/labeler.md': agentFile },
      script: [
        reply([call('invoke_agent', { agent_name: 'labeler', prompt: 'Label this' })]),
        reply([text('Could not.')]),
      ],
    });
    expect(s.agent.warnings).toContain(
      'sub-agent labeler (.gemini/agents/labeler.md) is not available: it asks for set_labels, which this run does not offer; a sub-agent never gets a tool the agent that invokes it lacks',
    );
    await s.agent.start('go', s.emit);
    expect(s.fake.requests).toHaveLength(2); // no child ever ran
    expect(responsesOf(s.fake.requests[1])[0].response).toEqual({
      error:
        "Subagent 'labeler' is not available in this run: it asks for set_labels, which this run does not offer; a sub-agent never gets a tool the agent that invokes it lacks",
    });
    // The model is not offered the refused agent.
    const invoke = (s.fake.requests[0].body.tools ?? [])
      .flatMap((t) => t.functionDeclarations ?? [])
      .find((d) => d.name === 'invoke_agent') as { description: string } | undefined;
    expect(invoke?.description).toContain('- codebase_investigator:');
    expect(invoke?.description).not.toContain('labeler');
  });

  it('never gives a child invoke_agent: `*` means every tool but it, and asking for it by name is refused', async () => {
    const all = '---\nname: helper\ndescription: Helps.\ntools: ["*"]\n---\nHelp.\n';
    const nested = '---\nname: nester\ndescription: Calls agents.\ntools: [invoke_agent]\n---\nDelegate.\n';
    const s = await openSession({
      files: { ...FILES, '.gemini/agents/helper.md': all, '.gemini/agents/nester.md': nested },
      script: [
        reply([call('invoke_agent', { agent_name: 'helper', prompt: 'Help out' })]),
        reply([call('complete_task', { result: 'helped' })]),
        reply([text('ok')]),
      ],
    });
    expect(s.agent.warnings).toContain(
      'sub-agent nester (.gemini/agents/nester.md) is not available: it asks for invoke_agent, and a sub-agent cannot invoke agents',
    );
    await s.agent.start('go', s.emit);
    expect(toolNamesOf(s.fake.requests[1])).toEqual([
      'list_directory',
      'read_file',
      'glob',
      'grep_search',
      'write_file',
      'replace',
      'run_shell_command',
      'complete_task',
    ]);
  });

  it('a policy rule naming an agent denies that agent only; another agent still runs', async () => {
    const helper = '---\nname: helper\ndescription: Helps.\ntools: [read_file]\n---\nHelp.\n';
    const policy =
      '[[rule]]\ntoolName = "codebase_investigator"\ndecision = "deny"\npriority = 100\ndenyMessage = "Use your own reads for this repository."\n';
    const s = await openSession({
      files: { ...FILES, '.gemini/agents/helper.md': helper },
      policy,
      script: [
        reply([investigate(), call('invoke_agent', { agent_name: 'helper', prompt: 'Read src/add.js' })]),
        reply([call('complete_task', { result: 'read it' })]),
        reply([text('ok')]),
      ],
    });
    await s.agent.start('go', s.emit);
    expect(s.fake.requests).toHaveLength(3); // the investigator never ran; helper did
    // The API sent no ids, so none go back: the responses pair with the calls by their order.
    expect(responsesOf(s.fake.requests[2]).map((r) => [r.id, r.response])).toEqual([
      [undefined, { error: 'invoke_agent was not run: policy denied it. Use your own reads for this repository.' }],
      [undefined, { output: "Subagent 'helper' finished.\nTermination Reason: GOAL\nResult:\nread it" }],
    ]);
  });

  it("a child's calls are checked with `subagent` set: a rule for the investigator's reads leaves the parent's reads alone", async () => {
    const policy =
      '[[rule]]\ntoolName = "read_file"\nsubagent = "codebase_investigator"\ndecision = "deny"\npriority = 100\ndenyMessage = "The investigator may not read files here."\n';
    const s = await openSession({
      files: FILES,
      policy,
      script: [
        reply([investigate()]),
        reply([call('read_file', { file_path: 'src/add.js' })]),
        reply([call('complete_task', { report: REPORT })]),
        reply([call('read_file', { file_path: 'src/add.js' })]),
        reply([text('ok')]),
      ],
    });
    await s.agent.start('go', s.emit);
    expect(responsesOf(s.fake.requests[2]).at(-1)?.response).toEqual({
      error: 'read_file was not run: policy denied it. The investigator may not read files here.',
    });
    expect(String(responsesOf(s.fake.requests[4]).at(-1)?.response.output)).toContain('export const add');
  });
});

describe("invoke_agent: a child's call that waits for a person", () => {
  const writer =
    '---\nname: writer\ndescription: Writes files.\ntools: [read_file, write_file]\n---\nWrite what you are asked to.\n';

  it('suspends the whole run with the child inside the batch, and a later process resumes into the child', async () => {
    const script = [
      reply(
        [text('Delegating. '), call('invoke_agent', { agent_name: 'writer', prompt: 'Create NOTES.md saying hi' })],
        { usage: usage(500, 10) },
      ),
      reply([call('write_file', { file_path: 'NOTES.md', content: 'hi\n' })], { usage: usage(300, 10) }),
      // After the approval, in the second process:
      reply([call('complete_task', { result: 'NOTES.md created.' })], { usage: usage(400, 10) }),
      reply([text('Done: the writer created NOTES.md.')], { usage: usage(700, 10) }),
    ];
    const first = await openSession({ files: { ...FILES, '.gemini/agents/writer.md': writer }, script });
    const run1 = await first.agent.start('Add notes', first.emit);
    expect(run1.outcome.status).toBe('awaiting_approval');
    const pending = run1.outcome.status === 'awaiting_approval' ? run1.outcome.pending : [];
    expect(pending).toEqual([
      expect.objectContaining({
        id: 'call-1-1/call-1-0',
        name: 'write_file',
        title: 'create NOTES.md (for sub-agent writer)',
        rule: expect.objectContaining({ decision: 'ask_user' }),
      }),
    ]);
    expect(first.events.find((e) => e.type === 'approval_request')).toMatchObject({
      calls: [{ id: 'call-1-1/call-1-0' }],
    });
    // The session holds the child's own state, nested in the parent's open batch.
    const saved = JSON.parse(JSON.stringify(run1.state));
    const waiting = saved.open.calls[0];
    expect(waiting).toMatchObject({ status: 'awaiting_approval', base: { id: 'call-1-1', name: 'invoke_agent' } });
    expect(waiting.nested.saved.agent).toBe('writer');
    expect(waiting.nested.saved.state.open.calls[0]).toMatchObject({
      status: 'awaiting_approval',
      base: { id: 'call-1-0', name: 'write_file' },
    });
    // Spent so far: the parent's turn and the child's.
    expect(saved.usage.inputTokens).toBe(800);

    // A new process: the agent prepared afresh over the same work tree, the fake model going on.
    const again = await prepareFor(first.dir, first.fake.baseUrl);
    const second = eventLog();
    const run2 = await again.resume(saved, [{ id: 'call-1-1/call-1-0', kind: 'approve' }], second.emit);
    expect(run2.outcome).toEqual({ status: 'success', finalText: 'Done: the writer created NOTES.md.' });
    expect(readFileSync(join(first.dir, 'NOTES.md'), 'utf8')).toBe('hi\n');
    // The child's third request carried its own history on: its first turn, the approved write's result.
    const childResumed = first.fake.requests[2];
    expect(childResumed.body.contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    expect(responsesOf(childResumed)).toEqual([
      { name: 'write_file', response: { output: expect.stringContaining('NOTES.md') } },
    ]);
    expect(responsesOf(first.fake.requests[3])[0].response.output).toBe(
      "Subagent 'writer' finished.\nTermination Reason: GOAL\nResult:\nNOTES.md created.",
    );
    // Totals across both processes: every request once.
    expect(run2.state.usage.inputTokens).toBe(500 + 300 + 400 + 700);
    expect(second.nested().some((n) => n.parentId === 'call-1-1' && n.event.type === 'init' && n.event.resumed)).toBe(
      true,
    );
  });

  it("\"approve always\" for a child's call: the child's next identical call runs unasked; the main agent's identical call is still asked", async () => {
    const write = () => call('write_file', { file_path: 'NOTES.md', content: 'hi\n' });
    const s = await openSession({
      files: { ...FILES, '.gemini/agents/writer.md': writer },
      script: [
        reply([call('invoke_agent', { agent_name: 'writer', prompt: 'Create NOTES.md, twice' })]),
        reply([write()]),
        // After "approve always", in the second process: the same call again, then done.
        reply([write()]),
        reply([call('complete_task', { result: 'NOTES.md written twice.' })]),
        // The main agent makes the very same call.
        reply([write()]),
      ],
    });
    const run1 = await s.agent.start('go', s.emit);
    expect(run1.outcome.status === 'awaiting_approval' && run1.outcome.pending.map((p) => p.id)).toEqual([
      'call-1-0/call-1-0',
    ]);

    const again = await prepareFor(s.dir, s.fake.baseUrl);
    const second = eventLog();
    const run2 = await again.resume(
      JSON.parse(JSON.stringify(run1.state)),
      [{ id: 'call-1-0/call-1-0', kind: 'approve', always: true }],
      second.emit,
    );

    // The child's second write ran without a question: its result reached the child's next request.
    expect(responsesOf(s.fake.requests[3]).at(-1)).toEqual({
      name: 'write_file',
      response: { output: 'Successfully overwrote NOTES.md (2 lines).' },
    });
    expect(second.nested().filter((n) => n.event.type === 'approval_request')).toEqual([]);
    // The main agent's identical write waits for a person: the rule was the writer's only.
    expect(run2.outcome.status).toBe('awaiting_approval');
    expect(
      run2.outcome.status === 'awaiting_approval' && run2.outcome.pending.map((p) => [p.id, p.rule?.decision]),
    ).toEqual([['call-2-0', 'ask_user']]);
    expect(s.fake.requests).toHaveLength(5);
    expect(run2.state.addedRules).toEqual([
      {
        toolName: 'write_file',
        argsPattern: '\\x00"file_path":"NOTES\\.md"\\x00',
        modes: ['default', 'autoEdit', 'yolo'],
        subagent: 'writer',
      },
    ]);
  });

  it('a denial reaches the child as a refusal, and the child goes on', async () => {
    const s = await openSession({
      files: { ...FILES, '.gemini/agents/writer.md': writer },
      script: [
        reply([call('invoke_agent', { agent_name: 'writer', prompt: 'Create NOTES.md' })]),
        reply([call('write_file', { file_path: 'NOTES.md', content: 'hi\n' })]),
        reply([call('complete_task', { result: 'Not allowed to write.' })]),
        reply([text('ok')]),
      ],
    });
    const run1 = await s.agent.start('go', s.emit);
    const run2 = await s.agent.resume(
      JSON.parse(JSON.stringify(run1.state)),
      [{ id: 'call-1-0/call-1-0', kind: 'deny', reason: 'not today' }],
      s.emit,
    );
    expect(run2.outcome.status).toBe('success');
    expect(responsesOf(s.fake.requests[2])).toEqual([
      { name: 'write_file', response: { error: 'write_file was not run: it was denied. Reason: not today' } },
    ]);
  });
});
