/**
 * Issue 14 end to end, through the bundled dist/index.js: a sub-agent's own question suspends the
 * whole run (the session holds the child's state inside the parent's batch); a maintainer's
 * answer starts a second run on a fresh clone that resumes into the child, which completes, and
 * the parent finishes and publishes.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, reply, text } from '../support/fake-gemini.js';
import { startFakeGemini } from '../support/fake-gemini.js';
import { startFakeGitHub } from '../support/fake-github.js';
import { closeAll, refsOf } from '../support/e2e-runner.js';
import { createRemote, jobFor } from '../support/runner-model.js';
import {
  assertBundle,
  bareGit,
  FILES,
  functionResponses,
  ISSUE,
  logOf,
  markedComments,
  readSessionDoc,
  runFix,
  runReply,
  type Thread,
} from './approval-support.js';

let t: Thread | undefined;
beforeAll(assertBundle);
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const ASKER = `---
name: asker
description: Finds out what the maintainer wants.
tools: [read_file, ask_user]
---
Find out what the maintainer wants, then report it.
`;

async function openAgentThread(script: Parameters<typeof startFakeGemini>[0]): Promise<Thread> {
  const remote = createRemote({ files: { ...FILES, '.gemini/agents/asker.md': ASKER } });
  const job = jobFor(remote, { name: 'issue_comment' });
  const ws = { dir: job.checkout.dir, origin: remote.dir, mainSha: remote.branches().main, shas: remote.branches() };
  const gh = await startFakeGitHub();
  gh.state.resolveRef = refsOf(remote.dir);
  gh.addIssue({
    number: ISSUE,
    title: 'Pick a colour',
    body: 'The button needs a colour.',
    user: { login: 'reporter' },
  });
  const gemini = await startFakeGemini(script);
  return { remote, job, ws, gh, gemini, close: () => closeAll(gh, gemini) };
}

describe("the bundled action: a sub-agent's question", () => {
  it('suspends the whole run, and `/agent answer` resumes into the sub-agent in a new run', async () => {
    const question = {
      questions: [{ question: 'Which colour should the button be?', header: 'Colour', type: 'text' }],
    };
    t = await openAgentThread([
      // Run 1: the parent delegates; the child asks.
      reply([
        text('Asking the maintainer through a helper. '),
        call('invoke_agent', { agent_name: 'asker', prompt: 'Find out which colour the button should be.' }),
      ]),
      reply([call('ask_user', question)]),
      // Run 2: the child gets the answer and completes; the parent writes the file and finishes.
      reply([call('complete_task', { result: 'The maintainer wants blue.' })]),
      reply([call('write_file', { file_path: 'colour.txt', content: 'blue\n' })]),
      reply([text('The button is blue now.')]),
    ]);

    const first = await runFix(t);
    expect(first.code, logOf(first)).toBe(0);
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    const id = first.outputs['session-id'];
    const doc = readSessionDoc(t.ws.origin, id);
    expect(doc.pending).toEqual([
      expect.objectContaining({
        id: 'call-1-1/call-1-0',
        name: 'ask_user',
        question: { question: 'Which colour should the button be?' },
      }),
    ]);
    // The child's own loop state rides in the parent's open batch.
    const waiting = doc.state.open.calls[0];
    expect(waiting).toMatchObject({
      status: 'awaiting_approval',
      base: { id: 'call-1-1', name: 'invoke_agent' },
      nested: { saved: { agent: 'asker' } },
    });
    expect(waiting.nested.saved.state.open.calls[0]).toMatchObject({
      status: 'awaiting_approval',
      base: { id: 'call-1-0', name: 'ask_user' },
    });
    const [asked] = markedComments(t.gh, 'approval ');
    expect(asked.body).toContain('Which colour should the button be?');
    expect(t.gemini.requests).toHaveLength(2);

    const second = await runReply(t, '/agent answer blue, like the logo');
    expect(second.code, logOf(second)).toBe(0);
    expect(second.outputs.status, logOf(second)).toBe('success');
    expect(t.gemini.requests).toHaveLength(5);
    // The child went on from its own history with the answer as its question's result.
    const childResumed = t.gemini.requests[2].body;
    expect(childResumed.contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    expect(functionResponses(childResumed)).toEqual([
      { name: 'ask_user', response: { output: 'blue, like the logo' } },
    ]);
    // The parent received the child's result, then carried on to publish its change.
    const [result] = functionResponses(t.gemini.requests[3].body).slice(-1);
    expect(result).toEqual({
      name: 'invoke_agent',
      response: { output: "Subagent 'asker' finished.\nTermination Reason: GOAL\nResult:\nThe maintainer wants blue." },
    });
    expect(bareGit(t.ws.origin, 'show', `${second.outputs.branch}:colour.txt`)).toBe('blue');
    expect(readSessionDoc(t.ws.origin, id).request.status).toBe('finished');
  });
});
