import { createRunState } from '../../src/core/run-state.js';
import type { SessionDoc } from '../../src/session/codec.js';
import { createSessionKey } from '../../src/session/sign.js';

/** The key session tests sign with (an arbitrary secret, as a `session-key` input would be). */
export const TEST_KEY = createSessionKey('test-session-secret');

/** A realistic session document: history with a thought signature, an open batch, an added rule. */
export function sampleSession(over: Partial<SessionDoc> = {}): SessionDoc {
  const state = createRunState('s-1f2e3d', 'gemini-2.5-pro', 'autoEdit');
  state.history = [
    { role: 'user', parts: [{ text: 'Fix the failing test in src/sum.ts' }] },
    {
      role: 'model',
      parts: [
        { text: 'I will run the tests.', thoughtSignature: 'c2lnbmF0dXJl' },
        { functionCall: { id: 'call-1', name: 'run_shell_command', args: { command: 'npm install left-pad' } } },
      ],
    },
  ];
  state.turns = 1;
  state.usage = { inputTokens: 1200, outputTokens: 80, cachedTokens: 0, thoughtTokens: 12, totalTokens: 1292 };
  state.costUsd = 0.0031;
  state.toolCalls = 1;
  state.open = { version: 1, calls: [{ status: 'awaiting_approval', id: 'call-1' }] };
  state.addedRules = [{ toolName: 'run_shell_command', commandPrefix: 'npm test', modes: ['autoEdit'] }];
  return {
    version: 2,
    id: 's-1f2e3d',
    repository: { owner: 'octo', repo: 'hello' },
    thread: { number: 7, kind: 'issue' },
    trigger: { command: 'fix', commentId: 101, commentUrl: 'https://github.com/octo/hello/issues/7#issuecomment-101' },
    requester: 'maintainer',
    model: 'gemini-2.5-pro',
    mode: 'autoEdit',
    state,
    pending: [
      {
        id: 'call-1',
        name: 'run_shell_command',
        args: { command: 'npm install left-pad' },
        title: 'run `npm install left-pad`',
        rule: { source: '.gemini/policies/deps.toml', line: 3, tier: 'workspace', priority: 3.5, decision: 'ask_user' },
      },
    ],
    request: {
      nonce: 'n0nce',
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-08T00:00:00.000Z',
      status: 'open',
    },
    branch: 'agent/fix-7',
    worktree: {
      baseCommit: 'a'.repeat(40),
      tree: 'b'.repeat(40),
      patchBase64: Buffer.from('diff --git a/x b/x\n').toString('base64'),
    },
    trustedCommit: 'c'.repeat(40),
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}
