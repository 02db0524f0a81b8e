import { realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { walkFiles } from './file-list.js';
import { deadline, pcrePattern, runGrepProcess, type GrepMatch, type GrepOutcome, type GrepQuery, type OnMatch } from './grep-engines.js';
import { decodeText } from './text-codec.js';
import { isInside } from './workspace.js';

/**
 * Search outside a git work tree with the system's grep, as Gemini CLI falls back to it: GNU grep
 * with PCRE (`-P`, the dialect git grep gets, with the same step limit), over the files the walker
 * lists (every .gitignore it meets applies, which `grep -r` would not do). Files go to grep in path
 * order, a batch of paths per process, so the result is the order of a sequential scan and stops
 * when the caller has enough. A grep without -P (BSD grep) rejects the options: 'unsupported', and
 * the caller searches with the RE2 walker. Symlinked files are passed only when their target is a
 * regular file inside the workspace (the JS engine's rule); devices and FIFOs are skipped.
 */
export async function systemGrep(q: GrepQuery, onMatch: OnMatch): Promise<GrepOutcome> {
  const listed = await walkFiles(q.root, q.absDir, { respectGitIgnore: true, respectGeminiIgnore: false, signal: q.signal });
  const files = (await confine(q.root, listed.files.filter(q.keepPath), listed.symlinks)).sort();
  const args = ['-n', '-H', '-I', '-s', '-Z', '-D', 'skip', '-d', 'skip', '--color=never', '-P'];
  if (q.ignoreCase) args.push('-i');
  args.push('-e', pcrePattern(q), '--');
  // grep needs nothing of the run's environment (no secret reaches it): PATH for itself, a UTF-8 locale as git grep gets.
  const env = { PATH: process.env.PATH, LC_ALL: 'C.UTF-8' };
  const limit = deadline(q);
  let more = true;
  const keepGoing: OnMatch = (m) => (more = onMatch(m));
  try {
    for (const batch of batches(files)) {
      const outcome = await runGrepProcess({ command: 'grep', args: [...args, ...batch], cwd: q.root, env, parse: parseGnuLine, q, limit, onMatch: keepGoing });
      if (outcome !== 'done' || !more) return outcome;
    }
    return 'done';
  } finally {
    limit.clear();
  }
}

/** GNU grep -HnZ: path NUL lineno `:` text. */
function parseGnuLine(line: Buffer): GrepMatch | undefined {
  const a = line.indexOf(0);
  const b = a === -1 ? -1 : line.indexOf(58, a + 1);
  if (b === -1) return undefined;
  return { file: line.subarray(0, a).toString('utf8'), line: Number(line.subarray(a + 1, b).toString()), text: decodeText(line.subarray(b + 1)).text };
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
async function confine(root: string, files: string[], symlinks: ReadonlySet<string>): Promise<string[]> {
  if (symlinks.size === 0) return files;
  const ok = new Set<string>();
  await Promise.all(
    [...symlinks].map(async (rel) => {
      try {
        const abs = join(root, rel);
        if (isInside(root, await realpath(abs)) && (await stat(abs)).isFile()) ok.add(rel);
      } catch {
        // dangling: nothing to search
      }
    }),
  );
  return files.filter((f) => !symlinks.has(f) || ok.has(f));
}
