/**
 * The sandbox's own count of a call's tasks, over a process tree given as data: every thread of
 * every process counts, children of any thread are followed, a process gone while it is read
 * counts for nothing, and the watch fires once at the bound, never below it.
 */
import { describe, expect, it } from 'vitest';
import { countTasks, watchTaskCount, type ProcReader } from '../../src/sandbox/process-count.js';

/** pid -> its threads, each with its children. */
function treeReader(tree: Record<number, Record<number, number[]>>, reads: number[] = []): ProcReader {
  return {
    tasks: async (pid) => {
      reads.push(pid);
      return Object.keys(tree[pid] ?? {}).map(Number);
    },
    children: async (pid, tid) => tree[pid]?.[tid] ?? [],
  };
}

const TREE = {
  1: { 1: [2] },
  // bash with one child per thread of a worker.
  2: { 2: [3, 4] },
  // A node process: three threads, one of which started a child.
  3: { 3: [], 10: [5], 11: [] },
  4: { 4: [] },
  5: { 5: [] },
  // Gone before it was read: listed by its parent, no tasks.
};

describe('countTasks', () => {
  it('counts every thread of every process under the root', async () => {
    expect(await countTasks(1, 1000, treeReader(TREE))).toBe(7);
  });

  it('a process that exited between the listing and the read counts nothing', async () => {
    expect(await countTasks(1, 1000, treeReader({ ...TREE, 4: { 4: [99] } }))).toBe(7);
  });

  it('stops reading once the bound is reached (a bomb does not make the count itself a load)', async () => {
    const reads: number[] = [];
    const wide = {
      1: { 1: Array.from({ length: 50 }, (_, i) => 100 + i) },
      ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [100 + i, { [100 + i]: [200 + i] }])),
    };
    expect(await countTasks(1, 10, treeReader(wide, reads))).toBeGreaterThanOrEqual(10);
    expect(reads.some((pid) => pid >= 200)).toBe(false);
  });
});

describe('watchTaskCount', () => {
  it('fires once when the count reaches the bound, not before', async () => {
    // A tree that grows by one task each time it is counted: 3, 4, 5...
    const sizes: number[] = [];
    const reader: ProcReader = {
      tasks: async () => {
        sizes.push(3 + sizes.length);
        return Array.from({ length: sizes.at(-1)! }, (_, i) => i + 1);
      },
      children: async () => [],
    };
    const atFire = await new Promise<number[]>((resolve) =>
      watchTaskCount(1, 8, { onLimit: () => resolve([...sizes]), intervalMs: 1, reader }),
    );
    expect(atFire).toEqual([3, 4, 5, 6, 7, 8]);
  });

  it('a stopped watch never fires', async () => {
    let fired = false;
    let reads = 0;
    const watch = watchTaskCount(1, 2, {
      onLimit: () => (fired = true),
      intervalMs: 1,
      reader: { tasks: async () => (reads++, [1, 2, 3]), children: async () => [] },
    });
    watch.stop();
    await new Promise((r) => setImmediate(r));
    expect(reads).toBe(0);
    expect(fired).toBe(false);
  });
});
