import { spawn } from 'node:child_process';
import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createGitEnv } from '../common/git-env.js';
import { listFiles } from './file-list.js';
import { decodeText, looksBinary } from './text-codec.js';
import { isInside, relativeTo } from './workspace.js';

/**
 * Two ways to find matching lines, with one contract: call `onMatch` per match in file order until
 * it returns false. `git grep` is the fast path inside a work tree (spawned without a shell, so the
 * pattern is never interpreted by one); the JS walker is the fallback anywhere else, and when git's
 * regex flavour cannot take the pattern.
 */
export interface GrepQuery {
  root: string;
  absDir: string;
  regex: RegExp;
  /** Source of the regex, passed to git as a Perl-compatible pattern. */
  pattern: string;
  ignoreCase: boolean;
  /** Root-relative path filter (include_pattern, .geminiignore). */
  keepPath: (rootRel: string) => boolean;
  signal: AbortSignal;
}

export interface GrepMatch {
  /** Root-relative, `/` separated. */
  file: string;
  line: number;
  text: string;
}

export type OnMatch = (m: GrepMatch) => boolean;

/** Files larger than this are skipped by the JS engine (git grep has no such limit). */
const JS_MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Resolves 'done' when git answered (matches or none), 'unsupported' when git could not run this
 * search (no PCRE support, or a pattern its engine rejects): the caller then uses the JS engine.
 */
export function gitGrep(q: GrepQuery, onMatch: OnMatch): Promise<'done' | 'unsupported'> {
  const args = ['-c', 'core.quotepath=off', 'grep', '--untracked', '-I', '-n', '--null', '--no-color', '-P'];
  if (q.ignoreCase) args.push('-i');
  args.push('-e', q.pattern, '--', '.');
  const prefix = relativeTo(q.root, q.absDir);
  return new Promise((resolveP, reject) => {
    const child = spawn('git', args, {
      cwd: q.absDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Hardened like the action's own git (src/common/git-env.ts): the repository's config runs nothing.
      env: createGitEnv({ base: process.env, extra: { GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C.UTF-8' } }),
      signal: q.signal,
    });
    let stopped = false;
    let pending: Buffer = Buffer.alloc(0);
    let stderr = '';
    const handle = (line: Buffer) => {
      // path NUL lineno NUL text
      const a = line.indexOf(0);
      const b = a === -1 ? -1 : line.indexOf(0, a + 1);
      if (b === -1) return;
      const rel = line.subarray(0, a).toString('utf8');
      const file = prefix === '.' ? rel : `${prefix}/${rel}`;
      if (!q.keepPath(file)) return;
      const text = decodeText(line.subarray(b + 1)).text;
      if (!onMatch({ file, line: Number(line.subarray(a + 1, b).toString()), text })) {
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
    child.on('error', (e) => (q.signal.aborted ? reject(e) : resolveP('unsupported')));
    child.on('close', (code) => {
      if (q.signal.aborted) return reject(new Error('aborted'));
      if (!stopped && pending.length > 0) handle(pending);
      // 0: matches, 1: none; anything else (PCRE missing, pattern rejected) goes to the JS engine.
      resolveP(stopped || code === 0 || code === 1 ? 'done' : 'unsupported');
    });
  });
}

/** Files read at once by the JS engine: enough to hide filesystem latency, few enough for file handles. */
const JS_PARALLEL = 32;

export async function jsGrep(q: GrepQuery, onMatch: OnMatch): Promise<{ skippedLarge: number }> {
  const files = (await listFiles(q.root, q.absDir, { respectGitIgnore: true, respectGeminiIgnore: false, signal: q.signal }))
    .filter(q.keepPath)
    .sort();
  let skippedLarge = 0;
  const pretest = createPretest(q.regex);
  // Read and match a window of files in parallel, then report in path order, so the result is the
  // same as a sequential scan and stops as soon as the caller has enough.
  for (let i = 0; i < files.length; i += JS_PARALLEL) {
    if (q.signal.aborted) throw new Error('aborted');
    const window = await Promise.all(files.slice(i, i + JS_PARALLEL).map((file) => matchFile(q, pretest, file)));
    for (const r of window) {
      if (r === 'large') skippedLarge++;
      else for (const m of r) if (!onMatch(m)) return { skippedLarge };
    }
  }
  return { skippedLarge };
}

async function matchFile(q: GrepQuery, pretest: RegExp | undefined, file: string): Promise<GrepMatch[] | 'large'> {
  const abs = join(q.root, file);
  if (!(await tryConfined(q.root, abs))) return [];
  const info = await stat(abs).catch(() => undefined);
  if (!info || !info.isFile()) return [];
  if (info.size > JS_MAX_FILE_BYTES) return 'large';
  const bytes = await readFile(abs).catch(() => undefined);
  if (!bytes || looksBinary(bytes)) return [];
  const text = decodeText(bytes).text;
  // Most files do not match at all: one test over the whole text skips the line split for them.
  if (pretest && !pretest.test(text.includes('\r') ? text.replace(/\r\n/g, '\n') : text)) return [];
  const out: GrepMatch[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    q.regex.lastIndex = 0;
    if (q.regex.test(lines[i])) out.push({ file, line: i + 1, text: lines[i] });
  }
  return out;
}

/**
 * A whole-file test that never misses a line match: multiline, so ^ and $ work per line. Patterns
 * with lookaround could see past a line end and miss; they go line by line only.
 */
function createPretest(regex: RegExp): RegExp | undefined {
  if (regex.source.includes('(?')) return undefined;
  return new RegExp(regex.source, regex.flags.replace(/[gy]/g, '') + (regex.flags.includes('m') ? '' : 'm'));
}

/** A symlinked file is searched only when its target is inside the workspace too. */
async function tryConfined(root: string, abs: string): Promise<boolean> {
  try {
    if (!(await lstat(abs)).isSymbolicLink()) return true;
    return isInside(root, await realpath(abs));
  } catch {
    return false;
  }
}
