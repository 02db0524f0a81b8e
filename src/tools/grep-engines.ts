import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createGitEnv } from '../git/env.js';
import { closeOpened, createLineReader, openFileIn, readOpened, type OpenedFile } from './confined-fs.js';
import { hiddenPathsIn } from './hidden-files.js';
import { listFiles } from './file-list.js';
import type { LinearRegex } from './linear-regex.js';
import { decodeText, looksBinary } from './text-codec.js';
import { relativeTo } from './workspace.js';
import { AgentError } from '../common/errors.js';

/**
 * Two ways to find matching lines, with one contract: call `onMatch` per match in file order until
 * it returns false. `git grep` is the fast path inside a work tree (spawned without a shell, so the
 * pattern is never interpreted by one); the RE2 walker is the fallback anywhere else, and whenever
 * git cannot finish quickly.
 *
 * Both are bounded. git grep -P is PCRE, a backtracking engine: the pattern gets a per-line step
 * limit (`(*LIMIT_MATCH=…)`, past which git stops with an error) and the process a time limit,
 * and either way the search is redone by the RE2 walker, whose work is linear in the text. The
 * run's signal stops both.
 *
 * Both are confined. The walker opens every file and folder through confined-fs.ts. A grep process
 * opens paths, and a path can lead through a folder swapped for a link out of the workspace (or to
 * `.git/`) while it runs; what it prints is therefore only a lead: each reported line is read again
 * from the file opened and checked here (confirmMatches) and kept only when it is the very same
 * bytes, and the text passed on is what was read here. A line from outside never matches a
 * confirmed read of a file inside, so nothing the process read outside gets through: not its text,
 * and not the name of a file that is not inside.
 */
export interface GrepQuery {
  root: string;
  absDir: string;
  /**
   * A path naming the search directory itself, opened and checked (/proc/self/fd/N): the grep
   * processes run in it and what is under absDir is opened through it, so a swap of the directory
   * after it was opened changes nothing. Default: absDir.
   */
  dirPath?: string;
  /** Already checked by RE2; its source goes to git as a PCRE pattern. */
  regex: LinearRegex;
  ignoreCase: boolean;
  /** Root-relative path filter (include_pattern, .geminiignore). */
  keepPath: (rootRel: string) => boolean;
  signal: AbortSignal;
  /** How long git grep may take before the RE2 walker takes over (default GIT_GREP_TIME_LIMIT_MS). */
  gitTimeLimitMs?: number;
}

/** PCRE backtracking steps per match attempt before git gives up (and RE2 takes over). */
const PCRE_MATCH_LIMIT = 200_000;
/** git grep's share of a search: past it, git is stopped and RE2 searches instead. */
const GIT_GREP_TIME_LIMIT_MS = 15_000;

export interface GrepMatch {
  /** Root-relative, `/` separated. */
  file: string;
  line: number;
  text: string;
}

export type OnMatch = (m: GrepMatch) => boolean;

/** A line a grep process printed, not yet confirmed: the line's bytes as the process read them. */
export interface ReportedMatch {
  /** Root-relative, `/` separated. */
  file: string;
  line: number;
  bytes: Buffer;
}

/** Files larger than this are skipped by the JS engine (git grep has no such limit). */
const JS_MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Resolves 'done' when git answered (matches or none); 'unsupported' when git could not run this
 * search (no PCRE support, a pattern its engine rejects, the step limit hit); 'timeout' when it
 * took longer than its limit. In the last two cases the caller searches again with the RE2 walker.
 */
export function gitGrep(q: GrepQuery, onMatch: OnMatch): Promise<GrepOutcome> {
  const args = ['-c', 'core.quotepath=off', 'grep', '--untracked', '-I', '-n', '--null', '--no-color', '-P'];
  if (q.ignoreCase) args.push('-i');
  // git reads every untracked file itself: the credentials files are left out by name (hidden-files.ts).
  args.push(
    '-e',
    pcrePattern(q),
    '--',
    '.',
    ...hiddenPathsIn(q.root).map((p) => `:(top,literal,exclude)${relativeTo(q.root, p)}`),
  );
  const prefix = relativeTo(q.root, q.absDir);
  // Hardened like the action's own git (src/git/env.ts): the repository's config runs nothing.
  const env = createGitEnv({ base: process.env, extra: { GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C.UTF-8' } });
  // path NUL lineno NUL text
  const parse = (line: Buffer): ReportedMatch | undefined => {
    const a = line.indexOf(0);
    const b = a === -1 ? -1 : line.indexOf(0, a + 1);
    if (b === -1) return undefined;
    const rel = line.subarray(0, a).toString('utf8');
    return {
      file: prefix === '.' ? rel : `${prefix}/${rel}`,
      line: Number(line.subarray(a + 1, b).toString()),
      bytes: line.subarray(b + 1),
    };
  };
  const limit = deadline(q);
  return runGrepProcess({ command: 'git', args, cwd: q.dirPath ?? q.absDir, env, parse, q, limit, onMatch }).finally(
    limit.clear,
  );
}

/** The pattern with a PCRE step limit per match attempt in front (git grep -P and grep -P alike). */
export const pcrePattern = (q: GrepQuery): string => `(*LIMIT_MATCH=${PCRE_MATCH_LIMIT})${q.regex.source}`;

export type GrepOutcome = 'done' | 'unsupported' | 'timeout';

/** The time limit of one search (git grep's or system grep's share), for every process it spawns. */
export interface Deadline {
  signal: AbortSignal;
  clear: () => void;
}

export function deadline(q: GrepQuery): Deadline {
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(), q.gitTimeLimitMs ?? GIT_GREP_TIME_LIMIT_MS);
  timer.unref();
  return { signal: limit.signal, clear: () => clearTimeout(timer) };
}

export interface GrepProcess {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** One output line (without its newline) as a reported match; undefined skips it. */
  parse: (line: Buffer) => ReportedMatch | undefined;
  q: GrepQuery;
  limit: Deadline;
  onMatch: OnMatch;
}

/**
 * Runs a grep (spawned without a shell, so the pattern is never interpreted by one) and feeds its
 * matches, filtered by keepPath and confirmed (confirmMatches), to onMatch until it returns false.
 * Exit 0 or 1 (matches, none) is 'done'; exit 2 with an error message (an option or pattern the
 * program rejects, the PCRE step limit) is 'unsupported'; exit 2 without one is a file it could not
 * read ('done', as git grep).
 */
export function runGrepProcess(p: GrepProcess): Promise<GrepOutcome> {
  const { q } = p;
  const confirm = confirmMatches(q);
  return new Promise<GrepOutcome>((resolveP, reject) => {
    const child = spawn(p.command, p.args, {
      cwd: p.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: p.env,
      signal: AbortSignal.any([q.signal, p.limit.signal]),
      killSignal: 'SIGKILL',
    });
    let stopped = false;
    let pending: Buffer = Buffer.alloc(0);
    let stderr = '';
    const handle = (line: Buffer) => {
      const reported = p.parse(line);
      if (!reported || !q.keepPath(reported.file)) return;
      const m = confirm.match(reported);
      if (!m) return;
      if (!p.onMatch(m)) {
        stopped = true;
        child.kill('SIGTERM'); // enough matches: no need to read the rest of the tree
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped) return;
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      let nl: number;
      while (!stopped && (nl = pending.indexOf(10)) !== -1) {
        handle(pending.subarray(0, nl));
        pending = pending.subarray(nl + 1);
      }
    });
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 4096) stderr += c.toString();
    });
    child.on('error', (e) =>
      q.signal.aborted ? reject(e) : resolveP(p.limit.signal.aborted ? 'timeout' : 'unsupported'),
    );
    child.on('close', (code) => {
      if (q.signal.aborted) return reject(new AgentError('cancelled', 'aborted'));
      if (p.limit.signal.aborted && !stopped) return resolveP('timeout');
      if (!stopped && pending.length > 0) handle(pending);
      resolveP(stopped || code === 0 || code === 1 || (code === 2 && stderr.trim() === '') ? 'done' : 'unsupported');
    });
  }).finally(confirm.close);
}

/**
 * Reported lines kept only when the file, opened and checked here (confined-fs.ts; a link to a
 * file inside is followed), holds the very same bytes at that line; the match carries what was read
 * here. One file is open at a time: a grep prints a file's matches together and in line order (a
 * file met again, or a line before the last, is opened again).
 */
function confirmMatches(q: GrepQuery): { match(r: ReportedMatch): GrepMatch | undefined; close(): void } {
  let held: { file: string; opened: OpenedFile | undefined; lines?: ReturnType<typeof createLineReader> } | undefined;
  const close = () => {
    if (held?.opened) closeOpened(held.opened);
    held = undefined;
  };
  const open = (file: string) => {
    close();
    held = { file, opened: undefined };
    try {
      held.opened = openFileIn(q.root, openPathOf(q, file), { shown: file, follow: true });
    } catch {
      return; // gone, or not inside: nothing of it is passed on
    }
    if (held.opened.stats.isFile()) held.lines = createLineReader(held.opened.fd);
  };
  return {
    match(r) {
      if (held?.file !== r.file) open(r.file);
      let ours = held?.lines?.line(r.line);
      if (ours === undefined && held?.lines) {
        open(r.file); // a line before the last one asked: read the file from its start again
        ours = held?.lines?.line(r.line);
      }
      if (ours === undefined || !ours.equals(r.bytes)) return undefined;
      return { file: r.file, line: r.line, text: decodeText(ours).text };
    },
    close,
  };
}

/** Where a root-relative file is opened: through the opened search directory when it is under it. */
export function openPathOf(q: GrepQuery, file: string): string {
  if (q.dirPath === undefined) return join(q.root, file);
  const prefix = relativeTo(q.root, q.absDir);
  if (prefix === '.') return join(q.dirPath, file);
  return file.startsWith(`${prefix}/`) ? join(q.dirPath, file.slice(prefix.length + 1)) : join(q.root, file);
}

/** Files read at once by the JS engine: enough to hide filesystem latency, few enough for file handles. */
const JS_PARALLEL = 32;

export async function jsGrep(q: GrepQuery, onMatch: OnMatch): Promise<{ skippedLarge: number }> {
  const files = (
    await listFiles(q.root, q.absDir, {
      respectGitIgnore: true,
      respectGeminiIgnore: false,
      signal: q.signal,
      ...(q.dirPath !== undefined && { dirPath: q.dirPath }),
    })
  )
    .filter(q.keepPath)
    .sort();
  let skippedLarge = 0;
  // Read and match a window of files in parallel, then report in path order, so the result is the
  // same as a sequential scan and stops as soon as the caller has enough.
  for (let i = 0; i < files.length; i += JS_PARALLEL) {
    if (q.signal.aborted) throw new AgentError('cancelled', 'aborted');
    const window = await Promise.all(files.slice(i, i + JS_PARALLEL).map((file) => matchFile(q, file)));
    for (const r of window) {
      if (r === 'large') skippedLarge++;
      else for (const m of r) if (!onMatch(m)) return { skippedLarge };
    }
  }
  return { skippedLarge };
}

async function matchFile(q: GrepQuery, file: string): Promise<GrepMatch[] | 'large'> {
  let opened: OpenedFile;
  try {
    // Opened and checked (confined-fs.ts): a symlinked file only when its target is inside the workspace too.
    opened = openFileIn(q.root, openPathOf(q, file), { shown: file, follow: true });
  } catch {
    return [];
  }
  let bytes: Buffer | undefined;
  try {
    if (!opened.stats.isFile()) return [];
    if (opened.stats.size > JS_MAX_FILE_BYTES) return 'large';
    bytes = await readOpened(opened).catch(() => undefined);
  } finally {
    closeOpened(opened);
  }
  if (!bytes || looksBinary(bytes)) return [];
  const text = decodeText(bytes).text;
  // Most files do not match at all: one test over the whole text skips the line split for them.
  if (q.regex.wholeText && !q.regex.wholeText.test(text.includes('\r') ? text.replace(/\r\n/g, '\n') : text)) return [];
  if (q.signal.aborted) return [];
  const out: GrepMatch[] = [];
  const lines = text.split(/\r?\n/);
  // A final line end ends the last line; it does not start an empty one (git grep agrees).
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    if (q.regex.test(lines[i])) out.push({ file, line: i + 1, text: lines[i] });
  }
  return out;
}
