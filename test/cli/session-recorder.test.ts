import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionRecorder } from '../../src/cli/session-recorder.js';
import { createRunState } from '../../src/core/run-state.js';
import { createFileStore } from '../../src/session/file-store.js';
import { makeTempDir } from '../support/git-repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('session recorder', () => {
  it('saves the state as it was when save was called, though the run moves on before the write', async () => {
    // The loop asks the model again while a batch's save is in flight (runLoop's onBatchSettled).
    const dir = makeTempDir('agent-action-recorder-');
    dirs.push(dir);
    const store = createFileStore({ dir: join(dir, 'sessions') });
    const recorder = createSessionRecorder({ store, origin: { root: '/work/project', title: 'read a', command: 'prompt' }, now: () => new Date('2026-03-01T10:00:00Z') });
    const state = createRunState('s-1', 'gemini-2.5-flash', 'default');
    state.history.push({ role: 'user', parts: [{ text: 'read a' }] });
    const saving = recorder.save(state, 'running');
    state.history.push({ role: 'model', parts: [{ text: 'a turn after the safe point' }] });
    state.turns = 2;
    await saving;
    const stored = await store.read('s-1');
    expect(stored?.parsed.ok && stored.parsed.doc.state.history).toEqual([{ role: 'user', parts: [{ text: 'read a' }] }]);
    expect(stored?.parsed.ok && stored.parsed.doc.state.turns).toBe(0);
  });
});
