import { realpath, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { walkFiles } from './file-list.js';
import {
  deadline,
  openPathOf,
  pcrePattern,
  runGrepProcess,
  type Deadline,
  type GrepMatch,
  type GrepOutcome,
  type GrepQuery,
  type OnMatch,
  type ReportedMatch,
} from './grep-engines.js';
import { isInside } from '../common/paths.js';
import { relativeTo } from './workspace.js';

/**
 * Search outside a git work tree with the system's grep, as Gemini CLI falls back to it: GNU grep
 * with PCRE (`-P`, the dialect git grep gets, with the same step limit), over the files the walker
 * lists (every .gitignore it meets applies, which `grep -r` would not do). Files go to grep in path
 * order, a batch of paths per process; a large tree is cut into runs of paths searched side by side
 * (DEFAULT_SPLIT) and reported in order, so the result is that of a sequential scan and stops when
 * the caller has enough. A grep without -P (BSD grep) rejects the options: 'unsupported', and
 * the caller searches with the RE2 walker. Symlinked files are passed only when their target is a
 * regular file inside the workspace (the JS engine's rule); devices and FIFOs are skipped.
 *
 * grep opens the paths it is given, following whatever they lead through when it opens them; the
 * walker's list is confined when made (every folder opened and checked) but a folder can be swapped
 * for a link out after that. So no line grep prints is passed on as grep read it: each is read again
 * from the file opened and checked here and kept only when identical (grep-engines.ts).
 */
export async function systemGrep(
  q: GrepQuery,
  onMatch: OnMatch,
  opts: SplitOptions = DEFAULT_SPLIT,
): Promise<GrepOutcome> {
  const listed = await walkFiles(q.root, q.absDir, {
    respectGitIgnore: true,
    respectGeminiIgnore: false,
    signal: q.signal,
    ...(q.dirPath !== undefined && { dirPath: q.dirPath }),
  });
  const files = (await confine(q, listed.files.filter(q.keepPath), listed.symlinks)).sort();
  const args = ['-n', '-H', '-I', '-s', '-Z', '-D', 'skip', '-d', 'skip', '--color=never', '-P'];
  if (q.ignoreCase) args.push('-i');
  args.push('-e', pcrePattern(q), '--');
  const limit = deadline(q);
  const stopAll = new AbortController();
  const run: SliceRun = {
    q,
    args,
    limit: { signal: AbortSignal.any([limit.signal, stopAll.signal]), clear: limit.clear },
  };
  try {
    const slices = sliceInOrder(files, Math.min(opts.processes, Math.floor(files.length / opts.minFiles)));
    // The first slice reports as it goes; the others run at the same time and keep what they find
    // (up to maxBuffered matches) until every slice before them is reported.
    const pending = slices.map((slice, i) =>
      i === 0 ? grepSlice(run, slice, onMatch) : bufferSlice(run, slice, opts.maxBuffered),
    );
    // Awaited in order below; one that fails after the search has ended (cancelled) is not unhandled.
    for (const p of pending) p.catch(() => undefined);
    for (const [i, p] of pending.entries()) {
      const r = await p;
      let last: SliceResult = r;
      if (r.outcome === 'done' && r.found) {
        const kept = r.stoppedAt === undefined ? r.found : r.found.filter((m) => m.file !== r.stoppedAt);
        if (!kept.every((m) => onMatch(m))) return 'done';
        // It stopped at its buffer's end: from the file it was in, the slice is searched as the first one is.
        if (r.stoppedAt !== undefined)
          last = await grepSlice(run, slices[i]!.slice(slices[i]!.indexOf(r.stoppedAt)), onMatch);
      }
      if (last.outcome !== 'done' || last.enough) return last.outcome;
    }
    return 'done';
  } finally {
    stopAll.abort(); // the slices still running once the caller has enough, or one failed
    limit.clear();
  }
}

export interface SplitOptions {
  /** grep processes at most, side by side. */
  processes: number;
  /** Files per process at least: a small tree is one process. */
  minFiles: number;
  /** Matches a later slice keeps while the ones before it run; past it, it stops and goes on later. */
  maxBuffered: number;
}

/**
 * One grep per core (at most 4) on a tree of thousands of files: the walk and one grep took about
 * 1.5 times `grep -r` over 10,000 files, two greps side by side about 1.2 times on two cores.
 */
const DEFAULT_SPLIT: SplitOptions = {
  processes: Math.max(1, Math.min(4, availableParallelism())),
  minFiles: 2000,
  maxBuffered: 5000,
};

interface SliceRun {
  q: GrepQuery;
  args: readonly string[];
  limit: Deadline;
}

interface SliceResult {
  outcome: GrepOutcome;
  /** The caller said it had enough. */
  enough?: boolean;
  /** A later slice's matches, kept (bufferSlice). */
  found?: GrepMatch[];
  /** The file a kept slice was in when its buffer filled: its matches there may be incomplete. */
  stoppedAt?: string;
}

/** `files` in order, a batch of paths per process, each match to onMatch until it says enough. */
async function grepSlice(run: SliceRun, files: readonly string[], onMatch: OnMatch): Promise<SliceResult> {
  // grep needs nothing of the run's environment (no secret reaches it): PATH for itself, a UTF-8 locale as git grep gets.
  const env = { PATH: process.env.PATH, LC_ALL: 'C.UTF-8' };
  let more = true;
  const keepGoing: OnMatch = (m) => (more = onMatch(m));
  const under = searchDirOf(run.q);
  for (const batch of batches(files)) {
    const outcome = await runGrepProcess({
      command: 'grep',
      args: [...run.args, ...batch.map(under.strip)],
      cwd: under.cwd,
      env,
      parse: under.parse,
      q: run.q,
      limit: run.limit,
      onMatch: keepGoing,
    });
    if (outcome !== 'done' || !more) return { outcome, enough: !more };
  }
  return { outcome: 'done' };
}

/** A slice's matches, kept; past `max` it stops, naming the file it was in (whose matches may be incomplete). */
async function bufferSlice(run: SliceRun, files: readonly string[], max: number): Promise<SliceResult> {
  const found: GrepMatch[] = [];
  let stoppedAt: string | undefined;
  const r = await grepSlice(run, files, (m) => {
    if (found.length < max) return found.push(m) > 0;
    stoppedAt = (found.at(-1) ?? m).file;
    return false;
  });
  return { outcome: r.outcome, found, ...(stoppedAt !== undefined && { stoppedAt }) };
}

/** `files` cut into `n` runs of consecutive paths (at least one), as even as may be. */
function sliceInOrder(files: readonly string[], n: number): string[][] {
  const count = Math.max(1, n);
  const size = Math.ceil(files.length / count);
  const out: string[][] = [];
  for (let i = 0; i < count; i++) out.push(files.slice(i * size, (i + 1) * size));
  return out.filter((s, i) => i === 0 || s.length > 0);
}

/**
 * grep runs in the search directory, opened and checked (its /proc/self/fd/N path), on paths
 * relative to it: what it opens goes through that directory, whatever its path leads to now.
 * Paths are root-relative everywhere else: stripped for grep, put back on what it prints.
 */
function searchDirOf(q: GrepQuery): {
  cwd: string;
  strip: (file: string) => string;
  parse: (line: Buffer) => ReportedMatch | undefined;
} {
  const prefix = relativeTo(q.root, q.absDir);
  const under = prefix === '.' ? '' : `${prefix}/`;
  return {
    cwd: q.dirPath ?? q.absDir,
    strip: (file) => file.slice(under.length),
    // GNU grep -HnZ: path NUL lineno `:` text.
    parse: (line) => {
      const a = line.indexOf(0);
      const b = a === -1 ? -1 : line.indexOf(58, a + 1);
      if (b === -1) return undefined;
      return {
        file: `${under}${line.subarray(0, a).toString('utf8')}`,
        line: Number(line.subarray(a + 1, b).toString()),
        bytes: line.subarray(b + 1),
      };
    },
  };
}

/** Bytes of paths per grep process: far under Linux's and macOS's argument limits (2 MB, 1 MB with the environment). */
const BATCH_BYTES = 256 * 1024;

function* batches(files: readonly string[]): Generator<string[]> {
  let batch: string[] = [];
  let bytes = 0;
  for (const f of files) {
    const size = Buffer.byteLength(f) + 1;
    if (batch.length > 0 && bytes + size > BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(f);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

/** The files, without symlinks whose target is outside the workspace or not a regular file. */
async function confine(q: GrepQuery, files: string[], symlinks: ReadonlySet<string>): Promise<string[]> {
  if (symlinks.size === 0) return files;
  const ok = new Set<string>();
  await Promise.all(
    [...symlinks].map(async (rel) => {
      try {
        const abs = openPathOf(q, rel);
        if (isInside(q.root, await realpath(abs)) && (await stat(abs)).isFile()) ok.add(rel);
      } catch {
        // dangling: nothing to search
      }
    }),
  );
  return files.filter((f) => !symlinks.has(f) || ok.has(f));
}
