import { describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { planAnswers } from '../../src/cli/session/session.js';
import { replayUpdates } from '../../src/cli/acp/replay.js';
import { createRunState } from '../../src/core/run-state.js';
import type { PendingApproval } from '../../src/scheduler/types.js';

const shell: PendingApproval = {
  id: 'c1',
  name: 'run_shell_command',
  args: { command: 'npm install left-pad' },
  title: 'run `npm install left-pad`',
  rule: null,
};
const question: PendingApproval = {
  id: 'q1',
  name: 'ask_user',
  args: {},
  title: 'ask: which colour?',
  rule: null,
  question: { question: 'Which colour?' },
};

function inputError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (isAgentError(e) && e.kind === 'input') return e.message;
    throw e;
  }
  throw new Error('no input error');
}

describe('what --resume answers a waiting session with', () => {
  it.each([
    ['--approve runs the call', { approve: true, deny: false }, { answers: [{ id: 'c1', kind: 'approve' }] }],
    [
      '--approve with -p runs it and sends the message after',
      { approve: true, deny: false, prompt: 'then run the tests' },
      { answers: [{ id: 'c1', kind: 'approve' }], message: 'then run the tests' },
    ],
    [
      '--deny refuses it, -p being the reason',
      { approve: false, deny: true, prompt: 'use yarn' },
      { answers: [{ id: 'c1', kind: 'deny', reason: 'use yarn' }] },
    ],
    [
      'the next prompt alone declines it, saying what the person wrote',
      { approve: false, deny: false, prompt: 'no, use yarn' },
      { answers: [{ id: 'c1', kind: 'deny', reason: 'the user did not approve it and wrote instead: no, use yarn' }] },
    ],
  ])('%s', (_name, flags, plan) => {
    expect(planAnswers([shell], flags)).toEqual(plan);
  });

  it('answers a question with the next prompt, and refuses --approve without one', () => {
    expect(planAnswers([question], { approve: false, deny: false, prompt: 'blue' })).toEqual({
      answers: [{ id: 'q1', kind: 'answer', text: 'blue' }],
    });
    expect(planAnswers([question, shell], { approve: true, deny: false, prompt: 'blue' })).toEqual({
      answers: [
        { id: 'q1', kind: 'answer', text: 'blue' },
        { id: 'c1', kind: 'approve' },
      ],
    });
    expect(inputError(() => planAnswers([question], { approve: true, deny: false }))).toBe(
      'call q1 asks a question ("Which colour?"): answer it with -p "..."',
    );
  });

  it('says what waits when nothing answers it, and that nothing waits when --approve is given', () => {
    expect(inputError(() => planAnswers([shell], { approve: false, deny: false }))).toBe(
      'this session waits for an answer to c1 (run `npm install left-pad`): pass --approve or --deny, or answer with -p "..."',
    );
    expect(inputError(() => planAnswers([], { approve: false, deny: true }))).toBe(
      '--deny: this session has no call waiting for an answer',
    );
    expect(planAnswers([], { approve: false, deny: false, prompt: ' next ' })).toEqual({
      answers: [],
      message: 'next',
    });
  });
});

describe('replaying a stored session to an editor', () => {
  it('shows messages, thoughts and each call with how it ended; a call that waits is pending', () => {
    const state = createRunState('s', 'gemini-2.5-pro', 'default');
    state.history = [
      { role: 'user', parts: [{ text: 'tidy up' }] },
      {
        role: 'model',
        parts: [
          { text: 'Planning.', thought: true },
          { text: 'On it.' },
          { functionCall: { id: 'a', name: 'read_file', args: { file_path: 'x.ts' } } },
          { functionCall: { name: 'run_shell_command', args: { command: 'rm -rf build' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'a', name: 'read_file', response: { output: 'const x = 1;' } } },
          { functionResponse: { name: 'run_shell_command', response: { error: 'denied' } } },
        ],
      },
      {
        role: 'model',
        parts: [{ functionCall: { id: 'w', name: 'write_file', args: { file_path: 'y.ts', content: '' } } }],
      },
    ];
    const kinds: Record<string, 'read' | 'execute' | 'edit'> = {
      read_file: 'read',
      run_shell_command: 'execute',
      write_file: 'edit',
    };
    const updates = replayUpdates(
      state,
      [{ id: 'w', name: 'write_file', args: {}, title: 'create y.ts', rule: null }],
      (n) => kinds[n],
    );
    expect(updates).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'tidy up' } },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Planning.' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'On it.' } },
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'a',
        title: 'read_file x.ts',
        kind: 'read',
        rawInput: { file_path: 'x.ts' },
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'const x = 1;' } }],
      },
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'call-1-3',
        title: 'run `rm -rf build`',
        kind: 'execute',
        rawInput: { command: 'rm -rf build' },
        status: 'failed',
        content: [{ type: 'content', content: { type: 'text', text: 'denied' } }],
      },
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'w',
        title: 'create y.ts',
        kind: 'edit',
        rawInput: { file_path: 'y.ts', content: '' },
        status: 'pending',
      },
    ]);
  });
});
