import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionRecorder } from '../../src/cli/session/recorder.js';
import { createRunState } from '../../src/core/run-state.js';
import { createFileStore } from '../../src/session/file-store.js';
import { makeTempDir } from '../support/git-repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('session recorder', () => {
  it('saves the state as it was when save was called, though the run moves on before the write', async () => {
    // The document is encoded when the save is asked, not when its turn to be written comes.
    const dir = makeTempDir('agent-action-recorder-');
    dirs.push(dir);
    const store = createFileStore({ dir: join(dir, 'sessions') });
    const recorder = createSessionRecorder({
      store,
      origin: { root: '/work/project', title: 'read a', command: 'prompt' },
      now: () => new Date('2026-03-01T10:00:00Z'),
    });
    const state = createRunState('s-1', 'gemini-2.5-flash', 'default');
    state.history.push({ role: 'user', parts: [{ text: 'read a' }] });
    const saving = recorder.save(state, 'running');
    state.history.push({ role: 'model', parts: [{ text: 'a turn after the safe point' }] });
    state.turns = 2;
    await saving;
    const stored = await store.read('s-1');
    expect(stored?.parsed.ok && stored.parsed.doc.state.history).toEqual([
      { role: 'user', parts: [{ text: 'read a' }] },
    ]);
    expect(stored?.parsed.ok && stored.parsed.doc.state.turns).toBe(0);
  });

  it('tells the document as last saved, not the state as it is now, and keeps where and when the session was made', async () => {
    const dir = makeTempDir('agent-action-recorder-');
    dirs.push(dir);
    const store = createFileStore({ dir: join(dir, 'sessions') });
    let clock = new Date('2026-03-01T10:00:00Z');
    const recorder = createSessionRecorder({
      store,
      origin: { root: '/work/project', title: 'read a', command: 'prompt' },
      now: () => clock,
    });
    expect(recorder.current()).toBeUndefined();
    expect(recorder.id).toBe('');
    const state = createRunState('s-2', 'gemini-2.5-flash', 'default');
    state.history.push({ role: 'user', parts: [{ text: 'read a' }] });
    await recorder.save(state, 'running');
    clock = new Date('2026-03-01T10:05:00Z');
    state.history.push({ role: 'model', parts: [{ text: 'done' }] });
    await recorder.save(state, 'idle');
    state.history.push({ role: 'user', parts: [{ text: 'not saved yet' }] });
    const doc = recorder.current()!;
    expect(recorder.id).toBe('s-2');
    expect({
      status: doc.status,
      root: doc.root,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
      trigger: doc.trigger,
      turns: doc.state.history.length,
    }).toEqual({
      status: 'idle',
      root: '/work/project',
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-01T10:05:00.000Z',
      trigger: { command: 'prompt' },
      turns: 2,
    });
    const stored = await store.read('s-2');
    expect(stored?.parsed.ok && stored.parsed.doc).toEqual(doc);

    // A resumed session saves over the version it read, and keeps what the stored document says.
    const resumed = createSessionRecorder({
      store,
      held: { doc, version: stored!.version },
      now: () => new Date('2026-03-02T09:00:00Z'),
    });
    await resumed.save(state, 'running');
    const again = await store.read('s-2');
    const d2 = again?.parsed.ok ? again.parsed.doc : undefined;
    expect({
      createdAt: d2?.createdAt,
      updatedAt: d2?.updatedAt,
      title: d2?.title,
      status: d2?.status,
      turns: d2?.state.history.length,
    }).toEqual({
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-02T09:00:00.000Z',
      title: 'read a',
      status: 'running',
      turns: 3,
    });
    // The first recorder's version is stale now: its save is refused, not written over the other's.
    await expect(recorder.save(state, 'idle')).rejects.toThrow(
      /s-2 could not be saved: session s-2 changed since it was read/,
    );
  });
  it('writes saves asked back to back in order, each as it was when asked', async () => {
    const dir = makeTempDir('agent-action-recorder-');
    dirs.push(dir);
    const store = createFileStore({ dir: join(dir, 'sessions') });
    const recorder = createSessionRecorder({
      store,
      origin: { root: '/work/project', title: 'read a', command: 'prompt' },
    });
    const state = createRunState('s-ordered', 'gemini-2.5-flash', 'default');
    state.history.push({ role: 'user', parts: [{ text: 'read a' }] });
    const first = recorder.save(state, 'running');
    state.history.push({ role: 'model', parts: [{ text: 'done' }] });
    const second = recorder.save(state, 'idle');
    await Promise.all([first, second]);
    const stored = await store.read('s-ordered');
    expect(
      stored?.parsed.ok && { status: stored.parsed.doc.status, turns: stored.parsed.doc.state.history.length },
    ).toEqual({ status: 'idle', turns: 2 });
  });
});
