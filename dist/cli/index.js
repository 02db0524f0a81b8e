#!/usr/bin/env node
// agent-action's CLI: the bundle in ../index.js, told it runs as the CLI (src/entry.ts).
//
// scripts/build.mjs copies this file, as it is, to dist/cli/index.js (package.json's bin); it runs
// only from there. Plain JavaScript that Node runs directly: it is the first code of every CLI run.
//
// What it adds to the bundle: Node's own compile cache (module.enableCompileCache, Node >= 22.1;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off), so that a run after the first compiles less.
//
// The cache lives in the user's own folder ($XDG_CACHE_HOME, else ~/.cache; NODE_COMPILE_CACHE
// overrides it), not in Node's default under the shared /tmp: on a machine several people use,
// another user could create that folder first and fill it with code this process would load and
// run. No home, no cache. A cache that cannot be made only costs compiling: it never fails a run.
import * as nodeModule from 'node:module';
import { join } from 'node:path';

const cacheHome = process.env.XDG_CACHE_HOME || (process.env.HOME && join(process.env.HOME, '.cache'));
const cacheDir = process.env.NODE_COMPILE_CACHE || (cacheHome && join(cacheHome, 'agent-action', 'node-compile-cache'));
if (cacheDir && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  try {
    nodeModule.enableCompileCache?.(cacheDir);
  } catch {
    // no cache: every run compiles its chunks
  }
}
globalThis[Symbol.for('agent-action.cli')] = true;
await import('../index.js');
