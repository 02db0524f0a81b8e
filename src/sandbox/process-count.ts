/**
 * The sandbox's own count of a call's processes: every task (process or thread) descended from the
 * sandbox's PID 1, read from /proc (`/proc/P/task/*` and each task's `children`). Orphans in the
 * sandbox's PID namespace are reparented to its PID 1, so nothing of the call is missed, and nothing
 * else is in its tree. The kernel's RLIMIT_NPROC does not hold root (see bounds.ts), and even where
 * it holds a fork bomb only waits at the limit, retrying; this count is what ends the call.
 */
import { readdir, readFile } from 'node:fs/promises';
import type { ConfinedProcess, ExitStatus } from './types.js';

/** What the count reads; injected so tests can give it a tree. */
export interface ProcReader {
  /** Thread ids of `pid` (`/proc/pid/task`), [] when it is gone. */
  tasks(pid: number): Promise<number[]>;
  /** Children of one thread (`/proc/pid/task/tid/children`), [] when it is gone. */
  children(pid: number, tid: number): Promise<number[]>;
}

const procReader: ProcReader = {
  tasks: (pid) =>
    readdir(`/proc/${pid}/task`).then(
      (names) => names.map(Number),
      () => [],
    ),
  children: (pid, tid) =>
    readFile(`/proc/${pid}/task/${tid}/children`, 'utf8').then(
      (text) => text.split(' ').filter(Boolean).map(Number),
      () => [],
    ),
};

/** Tasks of the tree under `root` (itself included), counted up to `stopAt` at most. */
export async function countTasks(root: number, stopAt: number, reader: ProcReader = procReader): Promise<number> {
  let count = 0;
  let level = [root];
  const seen = new Set<number>();
  while (level.length > 0 && count < stopAt) {
    const next: number[] = [];
    await Promise.all(
      level.map(async (pid) => {
        if (seen.has(pid)) return;
        seen.add(pid);
        const tids = await reader.tasks(pid);
        count += tids.length;
        for (const kids of await Promise.all(tids.map((tid) => reader.children(pid, tid)))) next.push(...kids);
      }),
    );
    level = next;
  }
  return count;
}

/** How often to count, and what reads /proc (tests give a tree). */
export interface WatchOptions {
  intervalMs?: number;
  reader?: ProcReader;
}

export interface TaskWatch {
  stop(): void;
}

/** Time between two counts (the count runs while a process of the sandbox lives). */
const COUNT_INTERVAL_MS = 200;

/**
 * Counts `root`'s tree every `intervalMs` until stopped; calls `onLimit` once when it reaches `limit`.
 * The next count starts only after the last one ended.
 */
export function watchTaskCount(root: number, limit: number, o: WatchOptions & { onLimit: () => void }): TaskWatch {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    const n = await countTasks(root, limit, o.reader);
    if (stopped) return;
    if (n >= limit) {
      stopped = true;
      o.onLimit();
      return;
    }
    schedule();
  };
  const schedule = () => {
    timer = setTimeout(() => void tick(), o.intervalMs ?? COUNT_INTERVAL_MS);
    timer.unref();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/**
 * `p` with its tree counted from the moment the sandbox set up: reaching `limit` kills the whole
 * call (its PID namespace), and its exit status says `exceeded: 'processes'`.
 */
export function withTaskBound<
  P extends ConfinedProcess & { readonly started: Promise<{ childPid: number } | undefined> },
>(p: P, limit: number, o: WatchOptions = {}): P {
  let exceeded = false;
  let over = false;
  let watch: TaskWatch | undefined;
  void p.started.then((info) => {
    if (info && !over)
      watch = watchTaskCount(info.childPid, limit, {
        ...o,
        onLimit: () => {
          exceeded = true;
          p.kill();
        },
      });
  });
  const mark = (s: ExitStatus): ExitStatus => (exceeded ? { ...s, exceeded: 'processes' } : s);
  const exited = p.exited.then((s) => {
    over = true;
    watch?.stop();
    return mark(s);
  });
  return { ...p, exited, closed: p.closed.then(mark) };
}
