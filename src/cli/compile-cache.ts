import { join } from 'node:path';

/**
 * Where the CLI keeps V8's compiled code between runs: NODE_COMPILE_CACHE when set, else a folder
 * of the user's own ($XDG_CACHE_HOME, else ~/.cache). Not Node's default, `node-compile-cache` in
 * the system's temporary folder: on a machine several people use, another user can create that
 * folder first and fill it with compiled code this process would load and run as its own.
 * Undefined (no cache) without a home. The bin (scripts/build.mjs writes dist/cli/index.js) applies
 * the same rule before the bundle loads; this is for the entry run any other way.
 */
export function compileCacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.NODE_COMPILE_CACHE) return env.NODE_COMPILE_CACHE;
  const cacheHome = env.XDG_CACHE_HOME || (env.HOME && join(env.HOME, '.cache'));
  return cacheHome ? join(cacheHome, 'agent-action', 'node-compile-cache') : undefined;
}
