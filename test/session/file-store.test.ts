import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunState } from '../../src/core/run-state.js';
import { parseLocalSession, parseSession, type LocalSessionDoc } from '../../src/session/codec.js';
import { createFileStore, projectSessionsDir } from '../../src/session/file-store.js';
import { makeTempDir } from '../support/git-repo.js';
import { sampleSession, TEST_KEY } from './fixture.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = makeTempDir('agent-action-filestore-');
  dirs.push(d);
  return d;
}

function localDoc(id: string, over: Partial<LocalSessionDoc> = {}): LocalSessionDoc {
  const state = createRunState(id, 'gemini-2.5-pro', 'default');
  state.history = [
    { role: 'user', parts: [{ text: 'explain the loop' }] },
    { role: 'model', parts: [{ text: 'It asks the model.', thoughtSignature: 'c2ln' }] },
  ];
  state.turns = 1;
  state.addedRules = [
    { toolName: 'run_shell_command', commandPrefix: 'npm test', modes: ['default', 'autoEdit', 'yolo'] },
  ];
  return {
    version: 2,
    origin: 'local',
    id,
    root: '/home/dev/project',
    title: 'explain the loop',
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:05:00.000Z',
    trigger: { command: 'prompt' },
    requester: 'dev',
    model: 'gemini-2.5-pro',
    mode: 'default',
    state,
    pending: [],
    status: 'idle',
    ...over,
  };
}

describe('file session store', () => {
  it('creates, reads, updates by compare-and-swap and deletes one file per session', async () => {
    const dir = join(tempDir(), 'sessions');
    const store = createFileStore({ dir });
    const doc = localDoc('s-1');
    expect(await store.read('s-1')).toBeUndefined();
    const created = await store.create(doc);
    expect(created.ok).toBe(true);
    expect(readdirSync(dir)).toEqual(['s-1.json']);
    // Private to the user: history can hold anything the model read.
    expect(statSync(join(dir, 's-1.json')).mode & 0o777).toBe(0o600);
    const read = await store.read('s-1');
    expect(read?.parsed).toEqual({ ok: true, doc });
    expect(read?.version).toBe(created.ok && created.version);

    expect(await store.create(doc)).toMatchObject({ ok: false, reason: 'conflict' });
    const updated = await store.update('s-1', read!.version, { ...doc, status: 'running' });
    expect(updated.ok).toBe(true);
    // The version read before the update is stale now: a second writer with it is refused.
    expect(await store.update('s-1', read!.version, { ...doc, title: 'lost update' })).toMatchObject({
      ok: false,
      reason: 'conflict',
    });
    const again = await store.read('s-1');
    expect(again?.parsed.ok && again.parsed.doc.status).toBe('running');
    expect(await store.delete('s-1', read!.version)).toMatchObject({ ok: false });
    expect(await store.delete('s-1', again!.version)).toMatchObject({ ok: true });
    expect(await store.read('s-1')).toBeUndefined();
  });

  it('creates its folder again when it was removed between two saves of one store', async () => {
    // The store makes its folder once, not on every save; a folder deleted by hand must not break the next save.
    const dir = join(tempDir(), 'sessions');
    const store = createFileStore({ dir });
    expect((await store.create(localDoc('s-1'))).ok).toBe(true);
    rmSync(dir, { recursive: true });
    const created = await store.create(localDoc('s-2'));
    expect(created.ok).toBe(true);
    expect(readdirSync(dir)).toEqual(['s-2.json']);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('lists every session file, leaves no temporary or lock files, and reports a damaged one instead of throwing', async () => {
    const dir = join(tempDir(), 'sessions');
    const store = createFileStore({ dir });
    await store.create(localDoc('a'));
    await store.create(localDoc('b'));
    writeFileSync(join(dir, 'c.json'), '{"version": 1, "origin": "local", "id": "c", "root": ');
    expect((await store.list()).map((s) => s.id)).toEqual(['a', 'b', 'c']);
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json', 'c.json']);
    const broken = await store.read('c');
    expect(broken?.parsed).toMatchObject({ ok: false, error: { code: 'bad_json' } });
  });

  it('names the field at fault in a local document, and refuses a file that holds another session', async () => {
    const dir = join(tempDir(), 'sessions');
    const store = createFileStore({ dir });
    const { status: _s, ...noStatus } = localDoc('d');
    await store.create(localDoc('d'));
    writeFileSync(join(dir, 'd.json'), JSON.stringify(noStatus));
    expect((await store.read('d'))?.parsed).toEqual({
      ok: false,
      error: { code: 'invalid', message: 'session document: missing field `session.status`' },
    });
    writeFileSync(join(dir, 'e.json'), JSON.stringify(localDoc('f')));
    expect((await store.read('e'))?.parsed).toMatchObject({
      ok: false,
      error: { message: 'session document: the file is named e but holds session f' },
    });
  });

  it('keeps the two kinds of document apart: the action never reads a local one, nor the reverse', () => {
    const local = JSON.stringify(localDoc('g'));
    // An unsigned local document never passes the action's signature check, whatever it claims.
    expect(parseSession(local, TEST_KEY)).toMatchObject({ ok: false, error: { code: 'unsigned' } });
    expect(parseLocalSession(JSON.stringify(sampleSession()))).toMatchObject({
      ok: false,
      error: { message: 'session document: `origin` is undefined; a local session has "local"' },
    });
  });

  it('refuses an id that could name a path outside the folder', async () => {
    const store = createFileStore({ dir: tempDir() });
    await expect(store.read('../x')).rejects.toThrow('cannot name a session file');
  });

  it('gives each workspace a folder of its own, named for it', () => {
    const a = projectSessionsDir('/state', '/home/dev/my app');
    expect(a).toMatch(/^\/state\/projects\/my-app-[0-9a-f]{12}\/sessions$/);
    expect(projectSessionsDir('/state', '/other/my app')).not.toBe(a);
    expect(projectSessionsDir('/state', '/home/dev/my app')).toBe(a);
  });

  it('lets exactly one of many processes win a race to update the same version', async () => {
    const dir = join(tempDir(), 'sessions');
    const store = createFileStore({ dir });
    const created = await store.create(localDoc('race'));
    const version = created.ok ? created.version : '';
    // Separate processes, each with its own module instance: the lock file is what serializes them.
    const script = `
      import { createFileStore } from ${JSON.stringify(join(process.cwd(), 'src/session/file-store.ts'))};
      const store = createFileStore({ dir: ${JSON.stringify(dir)} });
      const doc = JSON.parse(process.argv[1]);
      const r = await store.update('race', ${JSON.stringify(version)}, doc);
      process.stdout.write(r.ok ? 'won' : 'lost');`;
    const runs = Array.from(
      { length: 6 },
      (_, i) =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [
              '--import',
              'tsx',
              '--input-type=module',
              '-e',
              script,
              JSON.stringify(localDoc('race', { title: `writer ${i}` })),
            ],
            {
              stdio: ['ignore', 'pipe', 'inherit'],
            },
          );
          let out = '';
          child.stdout.on('data', (d) => (out += d));
          child.on('error', reject);
          child.on('close', () => resolve(out));
        }),
    );
    const results = await Promise.all(runs);
    expect(results.filter((r) => r === 'won')).toHaveLength(1);
    expect(results.filter((r) => r === 'lost')).toHaveLength(5);
    const winner = results.indexOf('won');
    expect(JSON.parse(readFileSync(join(dir, 'race.json'), 'utf8')).title).toBe(`writer ${winner}`);
    expect(readdirSync(dir)).toEqual(['race.json']);
  });
});
