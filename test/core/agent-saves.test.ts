/**
 * The agent's overlapped saves as the CLI runs them (prepareAgent with onBatchSettled and
 * overlapBatchSave, the real SDK against the fake Gemini, real tools in a temporary workspace): a
 * batch of built-in reads runs past a save still flushing; a batch that writes waits for every
 * save. (With hooks, which run commands around every call, agent.ts does not pass sideEffectFree.)
 */
import * as diagnostics from 'node:diagnostics_channel';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionRecorder, type SessionRecorder } from '../../src/cli/session/recorder.js';
import { prepareAgent, type Agent, type AgentOptions } from '../../src/core/agent.js';
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

/** Saves held until `release()`: each resolves only then, as a flush on a slow disk would. */
function heldSaves() {
  const waiting: Array<() => void> = [];
  let released = false;
  return {
    save: () => (released ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
    release: () => {
      released = true;
      for (const r of waiting.splice(0)) r();
    },
    get released() {
      return released;
    },
  };
}

/** A workspace holding a.txt and b.txt, the fake Gemini with `script`, and the agent as the CLI runs it (overlapped saves). */
async function startAgent(script: FakeReply[], onBatchSettled: NonNullable<AgentOptions['onBatchSettled']>) {
  const ws = makeTempDir('agent-action-saves-');
  dirs.push(ws);
  writeFileSync(join(ws, 'a.txt'), 'a\n');
  writeFileSync(join(ws, 'b.txt'), 'b\n');
  gemini = await startFakeGemini(script);
  agent = await prepareAgent({
    root: ws,
    model: 'gemini-2.5-flash',
    apiKey: 'AIza-agent-saves',
    baseUrl: gemini.baseUrl,
    mode: 'yolo',
    policyContext: 'headless',
    policy: {},
    memory: { memoryRoot: ws },
    command: 'prompt',
    limits: { maxTurns: 10 },
    secrets: [],
    channel: { decide: async () => 'defer' },
    sandbox: createSandbox({ mode: 'off', hostEnv: {} }),
    baseEnv: { PATH: process.env.PATH },
    onBatchSettled,
    overlapBatchSave: true,
  });
  return { ws, agent };
}

async function start() {
  const saves = heldSaves();
  const { ws, agent } = await startAgent(
    [
      reply([call('read_file', { file_path: 'a.txt' })]),
      reply([call('read_file', { file_path: 'b.txt' })]),
      reply([call('write_file', { file_path: 'c.txt', content: 'c\n' })]),
      reply([text('Done.')]),
    ],
    saves.save,
  );
  let writtenBeforeRelease: boolean | undefined;
  const run = agent.start('read a and b, write c', (e) => {
    if (e.type === 'tool_result' && e.name === 'write_file') writtenBeforeRelease = !saves.released;
  });
  return { ws, saves, run, writtenBeforeRelease: () => writtenBeforeRelease };
}

describe('overlapped saves in a run', () => {
  it('reads run past a save still flushing; the write waits for every save', async () => {
    const t = await start();
    // The second read ran while the first save was held: only then does the model get a third request.
    await gemini!.untilRequests(3);
    expect(existsSync(join(t.ws, 'c.txt'))).toBe(false);
    t.saves.release();
    const { outcome } = await t.run;
    expect(outcome).toEqual({ status: 'success', finalText: 'Done.' });
    expect(t.writtenBeforeRelease()).toBe(false);
    expect(existsSync(join(t.ws, 'c.txt'))).toBe(true);
  });
});

describe("a batch's save and the next request", () => {
  it("the next request is made first; the save's disk work follows it", async () => {
    // undici (Node's fetch) tells on this channel when a request is made (the SDK has built it).
    const order: string[] = [];
    const onRequest = () => order.push('request made');
    diagnostics.subscribe('undici:request:create', onRequest);
    try {
      let recorder: SessionRecorder | undefined;
      const { ws, agent } = await startAgent([reply([call('read_file', { file_path: 'a.txt' })]), reply([call('read_file', { file_path: 'b.txt' })]), reply([text('Done.')])], (s) =>
        recorder!.save(s, 'running'),
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
      // Each read's batch settles and its save is asked; the loop goes on to the next request, which the
      // SDK builds and hands to fetch before the save opens a file.
      expect(order).toEqual(['request made', 'request made', 'save written', 'request made', 'save written']);
      const saved = await files.read(recorder.id);
      expect(saved?.parsed.ok && saved.parsed.doc.state.history.length).toBe(5);
    } finally {
      diagnostics.unsubscribe('undici:request:create', onRequest);
    }
  });
});
