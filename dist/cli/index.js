#!/usr/bin/env node
// agent-action's CLI: the bundle in ../index.js, told it runs as the CLI (src/entry.ts).
//
// scripts/build.mjs copies this file, as it is, to dist/cli/index.js (package.json's bin); it runs
// only from there. Plain JavaScript that Node runs directly: it is the first code of every CLI run.
//
// What it adds to the bundle: compiled code kept between runs, so that a run after the first compiles
// little.
// - Node's compile cache (Node >= 22.1; NODE_DISABLE_COMPILE_CACHE=1 turns it off), for the bundle's
//   entry and any chunk the loader below leaves to import().
// - The bundle's chunks, through `chunkLoader` below. Node's compile cache is written when a module is
//   compiled, before it runs, so it holds only the code V8 compiled eagerly: every function a run
//   calls is compiled again in every run. A V8 code cache made after the run holds those too.
//
// Both live in the user's own folder ($XDG_CACHE_HOME, else ~/.cache; NODE_COMPILE_CACHE overrides
// it), not in Node's default under the shared /tmp: on a machine several people use, another user
// could create that folder first and fill it with code this process would load and run. No home, no
// cache. A cache that cannot be read or written only costs compiling: nothing here may fail a run.
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import * as zlib from 'node:zlib';

const cacheHome = process.env.XDG_CACHE_HOME || (process.env.HOME && join(process.env.HOME, '.cache'));
const cacheDir = process.env.NODE_COMPILE_CACHE || (cacheHome && join(cacheHome, 'agent-action', 'node-compile-cache'));
if (cacheDir && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  try {
    nodeModule.enableCompileCache?.(cacheDir);
  } catch {
    // no cache: every run compiles its chunks
  }
  // One folder per Node version: V8 refuses code another version made. (zlib.crc32: Node >= 22.2.)
  if (zlib.crc32) globalThis[Symbol.for('agent-action.load-chunk')] = chunkLoader(join(cacheDir, 'agent-action-chunks', `${process.version}-${process.arch}`));
}
globalThis[Symbol.for('agent-action.cli')] = true;
await import('../index.js');

/**
 * The bundle's chunk loader (scripts/build.mjs routes the bundle's chunk imports here): reads a chunk
 * file and runs it as a script with the V8 code cache a previous run left. At exit it writes, made
 * then so that it holds every function this run compiled, the cache of each chunk that had none, or
 * had one from a narrower run: one that loaded fewer chunks (`--version` before a first session)
 * compiled less of what they share. So the caches follow the widest kind of run, and a run like the
 * one before writes nothing.
 *
 * A chunk is a module that only declares its modules and exports them (`export{a as id,b as ids,c as
 * modules};`, then license comments): the same code runs as a strict function returning those three.
 * A chunk of another shape, or one that uses `import.meta` or `import(`, which a script cannot, is left
 * to import() (undefined). A cache is named by its chunk's name, byte length and CRC-32: V8 itself
 * checks only a source's length. The file is the CRC-32 of the rest, the number of chunks the run that made
 * it loaded, then V8's data: V8 does not checksum a code cache, and a damaged one must be refused, not
 * run.
 */
function chunkLoader(dir) {
  const bundleDir = join(dirname(fileURLToPath(import.meta.url)), '..');
  const loaded = [];
  let requested = 0;
  // A chunk's last statement (license comments may follow), matched where it starts (lastIndex).
  const exportsShape = /export\{([\w$]+) as id,([\w$]+) as ids,([\w$]+) as modules\};(?=\s*(?:\/\*[\s\S]*)?$)/y;
  process.once('exit', () => {
    const unsaved = loaded.filter((c) => c.madeBy < requested);
    if (unsaved.length > 0) saveCaches(dir, unsaved, requested);
  });
  return (file) => {
    requested++;
    try {
      const path = join(bundleDir, file);
      const bytes = readFileSync(path);
      const cacheName = `${file}-${bytes.length}-${zlib.crc32(bytes).toString(16)}`;
      const cache = readCache(join(dir, cacheName));
      const source = bytes.toString('utf8');
      exportsShape.lastIndex = source.lastIndexOf('export{');
      const exported = exportsShape.exec(source);
      // A cache of these very bytes was made by a run that passed this check: not searched again.
      if (!exported || (!cache && (source.includes('import.meta') || source.includes('import(')))) return undefined;
      const script = new Script(`(function(){"use strict";${source.slice(0, exported.index)}\nreturn{id:${exported[1]},ids:${exported[2]},modules:${exported[3]}}})`, {
        filename: pathToFileURL(path).href,
        cachedData: cache?.data,
      });
      loaded.push({ file, cacheName, script, madeBy: cache && !script.cachedDataRejected ? cache.madeBy : 0 });
      return Promise.resolve(script.runInThisContext()());
    } catch {
      return undefined;
    }
  };
}

function readCache(path) {
  try {
    const file = readFileSync(path);
    if (file.length <= 8 || file.readUInt32LE(0) !== zlib.crc32(file.subarray(4))) return undefined;
    return { madeBy: file.readUInt32LE(4), data: file.subarray(8) };
  } catch {
    return undefined;
  }
}

/** Each cache is written whole under a temporary name, then renamed: a run never reads half a file. Older caches of the same chunk go. */
function saveCaches(dir, unsaved, requested) {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const present = readdirSync(dir);
    for (const { file, cacheName, script } of unsaved) {
      const data = script.createCachedData();
      const header = Buffer.alloc(8);
      header.writeUInt32LE(requested, 4);
      header.writeUInt32LE(zlib.crc32(data, zlib.crc32(header.subarray(4))));
      const temp = join(dir, `.${cacheName}.${process.pid}`);
      const fd = openSync(temp, 'w', 0o600);
      try {
        writeSync(fd, header);
        writeSync(fd, data);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, join(dir, cacheName));
      for (const old of present) if (old.startsWith(`${file}-`) && old !== cacheName) rmSync(join(dir, old), { force: true });
    }
  } catch {
    // no cache: the next run compiles again
  }
}
