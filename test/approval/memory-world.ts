/**
 * The world the approval tests on the in-memory store share (suspend.test.ts, resume-run.test.ts):
 * for each test a fresh loopback GitHub server holding issue #7, a bare origin with two files, and
 * a memory store signed with the harness key; runners clone that origin. `deps()` hands suspend and
 * resume that store, a fixed clock and a fixed nonce, so every value they write is a literal.
 */
import { afterEach, beforeEach } from 'vitest';
import type { SuspendDeps } from '../../src/action/approval/suspend.js';
import { createSessionKey } from '../../src/session/sign.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { createRepo } from '../support/git-repo.js';
import { createRunner, type Runner, type RunnerOptions } from './harness.js';
import { createMemoryStore } from './memory-store.js';

type MemoryStore = ReturnType<typeof createMemoryStore>;

export interface MemoryWorld {
  readonly gh: FakeGitHub;
  /** The bare repository every runner clones. */
  readonly origin: string;
  readonly store: MemoryStore;
  /** A runner on a fresh clone of the origin, talking to this world's GitHub. */
  runner(opts?: RunnerOptions): Runner;
  /** The memory store, `fixed.now` as the clock and `fixed.nonce` as every nonce, unless overridden. */
  deps(over?: SuspendDeps): SuspendDeps;
}

/** Registers the world's set-up and tear-down around each test of the calling file; read its fields inside tests only. */
export function useMemoryWorld(fixed: { now: string; nonce: string }): MemoryWorld {
  let current: { gh: FakeGitHub; origin: string; store: MemoryStore } | undefined;
  const get = () => {
    if (!current) throw new Error('the memory world exists only inside a test');
    return current;
  };
  beforeEach(async () => {
    const gh = await startFakeGitHub();
    gh.addIssue({ number: 7, title: 'sum is wrong' });
    const origin = createRepo({ 'src.txt': 'original\n', 'old.txt': 'to be deleted\n' }, { remote: true }).remote!;
    current = { gh, origin, store: createMemoryStore(createSessionKey('AIza-harness-key')) };
  });
  afterEach(async () => {
    await current?.gh.close();
    current = undefined;
  });
  return {
    get gh() {
      return get().gh;
    },
    get origin() {
      return get().origin;
    },
    get store() {
      return get().store;
    },
    runner: (opts) => createRunner(get().gh, get().origin, opts),
    deps: (over = {}) => ({ store: get().store, now: () => new Date(fixed.now), newNonce: () => fixed.nonce, ...over }),
  };
}
