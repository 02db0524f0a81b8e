/**
 * Sub-agents end to end over the real SDK and the loopback fake Gemini: invoke_agent runs a child
 * loop whose requests, tools, policy checks, events and tokens are observed from outside.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { call, reply, text, usage } from '../support/fake-gemini.js';
import { closeSessions, openSession, responsesOf, systemOf, toolNamesOf } from './support.js';

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

const investigate = (id = 'm1') => call('invoke_agent', { agent_name: 'codebase_investigator', prompt: 'How is add() used? List every caller.' }, id);

describe('invoke_agent: the codebase investigator', () => {
  it('reads three files in its own chat, completes with a report, and the parent receives only the report', async () => {
    const s = await openSession({
      files: FILES,
      script: [
        reply([investigate()], { usage: usage(1000, 20) }),
        // The child: three reads in one batch, then complete_task.
        reply([call('read_file', { file_path: 'src/add.js' }, 'c1'), call('read_file', { file_path: 'src/sum.js' }, 'c2'), call('read_file', { file_path: 'src/main.js' }, 'c3')], { usage: usage(700, 30) }),
        reply([call('complete_task', { report: REPORT }, 'c4')], { usage: usage(900, 60) }),
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
    expect(result.response.output).toBe(`Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\n${JSON.stringify(REPORT, null, 2)}`);
    expect(JSON.stringify(main2.body.contents)).not.toContain('export const add');

    // Tokens and cost: the child's two requests count toward the run's totals.
    expect(run.state.usage.inputTokens).toBe(1000 + 700 + 900 + 1200);
    expect(run.state.usage.outputTokens).toBe(20 + 30 + 60 + 15);
    expect(run.state.models['gemini-2.5-flash'].requests).toBe(4);
    expect(run.state.turns).toBe(2); // the parent's own turns

    // The child's events reach the stream, nested under the parent's call.
    const nested = s.nested();
    expect(new Set(nested.map((n) => `${n.parentId} ${n.agent}`))).toEqual(new Set(['m1 codebase_investigator']));
    expect(nested.flatMap((n) => (n.event.type === 'tool_use' ? [n.event.name] : []))).toEqual(['read_file', 'read_file', 'read_file', 'complete_task']);
    expect(nested[0].event.type).toBe('init');
    expect(nested.at(-1)?.event).toMatchObject({ type: 'result', outcome: { status: 'success' } });
    // The parent's own stream has the invoke_agent call and its result.
    expect(s.events.filter((e) => e.type === 'tool_result').map((e) => (e.type === 'tool_result' ? [e.name, e.ok] : []))).toEqual([['invoke_agent', true]]);
  });
});
