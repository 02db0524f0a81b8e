#!/usr/bin/env node
// agent-action's CLI: the bundle in ../index.js, told it runs as the CLI (src/entry.ts).
import * as nodeModule from 'node:module';
import { join } from 'node:path';
// The user's own cache folder, not Node's default under the shared /tmp (scripts/build.mjs says why).
const cacheHome = process.env.XDG_CACHE_HOME || (process.env.HOME && join(process.env.HOME, '.cache'));
try {
  if (process.env.NODE_COMPILE_CACHE || cacheHome) nodeModule.enableCompileCache?.(process.env.NODE_COMPILE_CACHE || join(cacheHome, 'agent-action', 'node-compile-cache'));
} catch {
  // no cache: every run compiles its chunks
}
globalThis[Symbol.for('agent-action.cli')] = true;
await import('../index.js');
