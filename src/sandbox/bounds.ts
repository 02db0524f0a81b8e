/**
 * Bounds on every sandboxed process tree, so a fork bomb, a memory fill or a runaway file ends its
 * call instead of the job (or the runner). Resource limits set with util-linux's `prlimit` as the
 * first program inside the sandbox, after bubblewrap made the user namespace:
 * - processes (RLIMIT_NPROC): the kernel counts it per user *and user namespace*, so set inside the
 *   sandbox's fresh namespace it bounds the processes and threads of that call alone (set before
 *   bwrap it would count every process of the runner's user). Root is exempt from it (the kernel
 *   skips the check for uid 0, whatever namespace), so the sandbox also counts the call's tasks
 *   itself (process-count.ts) and stops the call when it reaches the bound: that is what ends a fork
 *   bomb, as root or not; the rlimit keeps it from overshooting meanwhile.
 * - address space (RLIMIT_AS) per process: an allocation past it fails (ENOMEM, MemoryError).
 *   Node reserves over 1 GB of address space to start; V8 reserves 10 GB guard regions for each
 *   WebAssembly memory only when the limit is 16 GB or more, and falls back to bounds checks below,
 *   so the default stays under that.
 * - file size (RLIMIT_FSIZE): a write past it gets SIGXFSZ.
 * - open files (RLIMIT_NOFILE) per process; no core dumps (RLIMIT_CORE 0: a SIGXFSZ would dump one).
 * Not bounded: the memory of a whole tree (processes times address space; that needs a cgroup, which
 * GitHub's runners do not delegate to the job's user), CPU time (the call's timeout bounds wall
 * time), disk space over many files, and /tmp (a tmpfs: the kernel's default, half the RAM).
 */
import { access, readFile } from 'node:fs/promises';

export interface ProcessBounds {
  /** Processes and threads of one call, together. */
  processes: number;
  /** Address space of each process, in bytes; undefined: unbounded. */
  memoryBytes?: number;
  /** Largest file a process may write, in bytes; undefined: unbounded. */
  fileSizeBytes?: number;
  /** Open files of each process; undefined: the host's. */
  openFiles?: number;
}

const GiB = 1024 ** 3;

/** Room for a test suite (`npm test` with workers, a JVM build), not for a bomb. */
export const DEFAULT_BOUNDS: ProcessBounds = {
  processes: 1024,
  memoryBytes: 8 * GiB,
  fileSizeBytes: 1 * GiB,
  openFiles: 8192,
};

const PRLIMIT_PATHS = ['/usr/bin/prlimit', '/bin/prlimit'];

/** Where prlimit is (the sandbox binds /usr, so the same path inside), or undefined. */
export async function findPrlimit(): Promise<string | undefined> {
  for (const p of PRLIMIT_PATHS) {
    if (
      await access(p).then(
        () => true,
        () => false,
      )
    )
      return p;
  }
  return undefined;
}

/** The hard limits of this process (`/proc/self/limits`), by prlimit's names; absent: unlimited or unknown. */
export async function readHardLimits(
  read: () => Promise<string> = () => readFile('/proc/self/limits', 'utf8'),
): Promise<HardLimits> {
  const text = await read().catch(() => '');
  return parseHardLimits(text);
}

export type HardLimits = Partial<Record<'nproc' | 'as' | 'fsize' | 'nofile', number>>;

const LIMIT_ROWS: Record<string, keyof HardLimits> = {
  'Max processes': 'nproc',
  'Max address space': 'as',
  'Max file size': 'fsize',
  'Max open files': 'nofile',
};

/** Pure: `/proc/<pid>/limits`' hard column for the four limits set here. */
export function parseHardLimits(text: string): HardLimits {
  const out: HardLimits = {};
  for (const line of text.split('\n')) {
    const m = /^(Max [a-z ]+?)\s{2,}(\S+)\s+(\S+)/.exec(line);
    const key = m && LIMIT_ROWS[m[1]];
    if (key && /^\d+$/.test(m[3])) out[key] = Number(m[3]);
  }
  return out;
}

/**
 * Pure: `argv` behind prlimit with `bounds`, each no higher than the hard limit already in force (a
 * process may lower its limits, never raise them).
 */
export function boundedArgv(
  { prlimit, bounds, hard }: { prlimit: string; bounds: ProcessBounds; hard: HardLimits },
  argv: readonly string[],
): string[] {
  const at = (value: number | undefined, max: number | undefined) =>
    value === undefined ? undefined : max === undefined ? value : Math.min(value, max);
  const limits: Array<[string, number | undefined]> = [
    ['nproc', at(bounds.processes, hard.nproc)],
    ['as', at(bounds.memoryBytes, hard.as)],
    ['fsize', at(bounds.fileSizeBytes, hard.fsize)],
    ['nofile', at(bounds.openFiles, hard.nofile)],
    ['core', 0],
  ];
  return [prlimit, ...limits.filter(([, v]) => v !== undefined).map(([k, v]) => `--${k}=${v}`), '--', ...argv];
}

/** Pure: the bounds in words, for the log and the model (`1024 processes and threads, 8 GiB of address space...`). */
export function describeBounds(b: ProcessBounds): string {
  const parts = [`${b.processes} processes and threads a call`];
  parts.push(
    b.memoryBytes === undefined
      ? 'unbounded address space'
      : `${formatBytes(b.memoryBytes)} of address space a process`,
  );
  parts.push(b.fileSizeBytes === undefined ? 'files of any size' : `files up to ${formatBytes(b.fileSizeBytes)}`);
  if (b.openFiles !== undefined) parts.push(`${b.openFiles} open files a process`);
  return parts.join(', ');
}

export function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['TiB', 1024 ** 4],
    ['GiB', GiB],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const)
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  return `${n} bytes`;
}
