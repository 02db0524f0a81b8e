/**
 * The agent's saves as the CLI runs them (prepareAgent with onBatchSettled writing the session
 * file, the real SDK against the fake Gemini, real tools in a temporary workspace): each batch's
 * save is written before the next request is made, and a save that fails ends the run there.
 */
import * as diagnostics from 'node:diagnostics_channel';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionRecorder, type SessionRecorder } from '../../src/cli/session/recorder.js';
import { prepareAgent, type Agent, type AgentOptions } from '../../src/compose/prepare-agent.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import { createFileStore, type LocalSessionStore } from '../../src/session/file-store.js';
import { call, reply, startFakeGemini, text, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';

let gemini: FakeGemini | undefined;
let agent: Agent | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await agent?.close();
  await gemini?.close();
  agent = gemini = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A workspace holding a.txt and b.txt, the fake Gemini with `script`, and the agent as the CLI runs it. */
async function startAgent(script: FakeReply[], onBatchSettled: NonNullable<AgentOptions['io']['onBatchSettled']>) {
  const ws = makeTempDir('agent-action-saves-');
  dirs.push(ws);
  writeFileSync(join(ws, 'a.txt'), 'a\n');
  writeFileSync(join(ws, 'b.txt'), 'b\n');
  gemini = await startFakeGemini(script);
  agent = await prepareAgent({
    model: { name: 'gemini-2.5-flash', apiKey: 'AIza-agent-saves', baseUrl: gemini.baseUrl },
    workspace: { root: ws, memoryRoot: ws },
    policy: { context: 'headless', mode: 'yolo' },
    task: { command: 'prompt' },
    limits: { maxTurns: 10 },
    secrets: [],
    io: { channel: { decide: async () => 'defer' }, onBatchSettled },
    commands: { sandbox: createSandbox({ mode: 'off', hostEnv: {} }), baseEnv: { PATH: process.env.PATH } },
  });
  return { ws, agent };
}

describe('a failed save', () => {
  it('ends the run before the model is asked again, so no later call runs', async () => {
    const { ws, agent } = await startAgent(
      [
        reply([call('read_file', { file_path: 'a.txt' })]),
        reply([call('write_file', { file_path: 'c.txt', content: 'c\n' })]),
        reply([text('Done.')]),
      ],
      () => Promise.reject(new Error('the disk is full')),
    );
    const { outcome } = await agent.start('read a, write c', () => undefined);
    expect(outcome).toMatchObject({ status: 'error', error: { message: 'the loop failed: the disk is full' } });
    expect(gemini!.requests).toHaveLength(1);
    expect(existsSync(join(ws, 'c.txt'))).toBe(false);
  });
});

describe("a batch's save and the next request", () => {
  it('the save is written before the next request is made', async () => {
    // undici (Node's fetch) tells on this channel when a request is made (the SDK has built it).
    const order: string[] = [];
    const onRequest = () => order.push('request made');
    diagnostics.subscribe('undici:request:create', onRequest);
    try {
      let recorder: SessionRecorder | undefined;
      const { ws, agent } = await startAgent(
        [
          reply([call('read_file', { file_path: 'a.txt' })]),
          reply([call('read_file', { file_path: 'b.txt' })]),
          reply([text('Done.')]),
        ],
        (s) => recorder!.save(s, 'running'),
      );
      // The store the recorder writes through: each write logged as it starts.
      const files = createFileStore({ dir: join(ws, 'sessions') });
      const store: LocalSessionStore = {
        ...files,
        createEncoded: (id, text) => (order.push('save written'), files.createEncoded(id, text)),
        updateEncoded: (id, expected, text) => (order.push('save written'), files.updateEncoded(id, expected, text)),
      };
      recorder = createSessionRecorder({ store, origin: { root: ws, title: 'read a and b', command: 'prompt' } });
      const { outcome } = await agent.start('read a and b', () => undefined);
      expect(outcome).toEqual({ status: 'success', finalText: 'Done.' });
      // Each read's batch settles and its save is written; only then does the SDK build the next request.
      expect(order).toEqual(['request made', 'save written', 'request made', 'save written', 'request made']);
      const saved = await files.read(recorder.id);
      expect(saved?.parsed.ok && saved.parsed.doc.state.history.length).toBe(5);
    } finally {
      diagnostics.unsubscribe('undici:request:create', onRequest);
    }
  });
});
