/**
 * Global setup of the full suite: the whole run gets a temporary directory of its own (TMPDIR for
 * the workers and every process they start: git, the bundled action, the CLI), so what a run leaves
 * behind can be counted exactly, even while other runs share /tmp. At the end every entry still in
 * it is a leak: the run fails, naming them, and the directory is removed either way.
 *
 * Directories that src/ code makes and never removes are owned by that code; until it is fixed they
 * are listed loudly here instead of failing the run (KNOWN_SRC_LEAKS, with the file responsible).
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KNOWN_SRC_LEAKS: Record<string, string> = {};

/**
 * Caches of tools the tests start, not leaks: tsx keeps its compile cache in `$TMPDIR/tsx-<uid>`, and
 * Gemini CLI (run by the parity tests) turns on Node's module compile cache, `$TMPDIR/node-compile-cache`.
 */
const TOOL_CACHES = [/^tsx-\d+$/, /^node-compile-cache$/];

/** `agent-action-repo-Ab12Cd` -> `agent-action-repo-`: the prefix a directory was made with. */
const prefixOf = (name: string) => name.replace(/[A-Za-z0-9]{6}$/, '');

export default function setup(): () => void {
  const outer = process.env.TMPDIR;
  const suiteTmp = mkdtempSync(join(tmpdir(), 'agent-action-suite-'));
  // Like /tmp itself: tests that run a process as another user (the sandbox check) make folders here.
  chmodSync(suiteTmp, 0o1777);
  process.env.TMPDIR = suiteTmp;

  return () => {
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    const left = readdirSync(suiteTmp).filter((name) => !TOOL_CACHES.some((c) => c.test(name)));
    rmSync(suiteTmp, { recursive: true, force: true, maxRetries: 3 });
    const byPrefix = new Map<string, number>();
    for (const name of left) byPrefix.set(prefixOf(name), (byPrefix.get(prefixOf(name)) ?? 0) + 1);
    const known = [...byPrefix].filter(([p]) => p in KNOWN_SRC_LEAKS);
    const unknown = [...byPrefix].filter(([p]) => !(p in KNOWN_SRC_LEAKS));
    for (const [p, n] of known) {
      console.warn(
        `\n!!! temp census: ${n} temporary director${n === 1 ? 'y' : 'ies'} ${p}* left by ${KNOWN_SRC_LEAKS[p]} (removed now)\n`,
      );
    }
    if (unknown.length > 0) {
      console.error(
        `\n!!! temp census FAILED: the run left ${unknown.reduce((n, [, c]) => n + c, 0)} entries in its temporary directory (removed now): ` +
          `${unknown.map(([p, n]) => `${p}* x${n}`).join(', ')}. Make them with makeTempDir (test/support/git-repo.ts), which removes them after the file.\n`,
      );
      // A throw here is only logged by vitest ("error during close") and the run still exits 0.
      process.exitCode = 1;
    }
  };
}
