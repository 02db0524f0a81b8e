/**
 * Absent protected folders of the workspace (.git, .gemini, .github) need a folder for the call's
 * read-only mount to sit on: the sandbox makes one and removes it when the last process using it
 * ends. Counted across the calls of one sandbox.
 */
import { mkdir, rmdir } from 'node:fs/promises';

/** Protected folders this sandbox made for absent ones, with how many processes use each. */
export interface Placeholders {
  counts: Map<string, number>;
  /** Holds and releases run one at a time: a count read before a mkdir and written after it would lose a concurrent call's. */
  queue: Promise<unknown>;
}

function serially<T>(p: Placeholders, step: () => Promise<T>): Promise<T> {
  const run = p.queue.then(step);
  p.queue = run.catch(() => undefined);
  return run;
}

/**
 * Absent protected folders get an empty folder for the call's mount to sit on, removed when the
 * last process using it ends (and only if still empty: git ignores empty folders, so a leftover is
 * harmless). Counted, so a long-lived process (an MCP server) keeps its protection while short
 * calls come and go, and calls that start together share one.
 */
export function holdPlaceholders(
  layout: { present: readonly { path: string }[]; absent: readonly string[] },
  p: Placeholders,
): Promise<string[]> {
  return serially(p, async () => {
    // A folder another live process of this sandbox made is still ours to count, though it exists now.
    const paths = [...layout.absent, ...layout.present.filter((e) => p.counts.has(e.path)).map((e) => e.path)];
    for (const path of paths) {
      const count = p.counts.get(path) ?? 0;
      // Recursive: a folder left behind (not empty when last released) is there already.
      if (count === 0) await mkdir(path, { recursive: true });
      p.counts.set(path, count + 1);
    }
    return paths;
  });
}

export function releasePlaceholders(paths: readonly string[], p: Placeholders): Promise<void> {
  return serially(p, async () => {
    for (const path of paths) {
      const count = (p.counts.get(path) ?? 1) - 1;
      if (count > 0) {
        p.counts.set(path, count);
        continue;
      }
      p.counts.delete(path);
      await rmdir(path).catch(() => undefined);
    }
  });
}
