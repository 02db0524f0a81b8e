/**
 * Just-in-time memory: when the agent reads or lists something in a subdirectory, the context
 * files of that directory (and of any folder between it and the root not loaded yet) are appended
 * to the tool's output, each once per session. This is `ToolEnv.memoryFor`.
 */
import { realpathSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { isInside } from '../common/paths.js';
import { assembleMemory, DEFAULT_CONTEXT_FILE_NAMES, type ContextFileRef } from './memory.js';

export interface JitMemoryOptions {
  workspaceRoot: string;
  /** Where trusted context files are read (the workspace, or the base branch's snapshot). */
  memoryRoot: string;
  fileNames?: readonly string[];
  /** Sources already in the system prompt (`Memory.sources`): never loaded twice. */
  alreadyLoaded: readonly string[];
  /** Cap across the whole session, in bytes. */
  maxBytes?: number;
  /** Problems with a file (not UTF-8, import escapes); the model gets a one-line note as well. */
  onWarning?: (message: string) => void;
}

const DEFAULT_JIT_MAX_BYTES = 32 * 1024;

export function createJitMemory(opts: JitMemoryOptions): (absDir: string) => Promise<string | undefined> {
  const fileNames = opts.fileNames?.length ? opts.fileNames : DEFAULT_CONTEXT_FILE_NAMES;
  const loaded = new Set(opts.alreadyLoaded);
  let budget = opts.maxBytes ?? DEFAULT_JIT_MAX_BYTES;
  let roots: { workspace: string; memory: string } | undefined;

  return async (absDir) => {
    const { workspace, memory } = (roots ??= {
      workspace: realpathOr(resolve(opts.workspaceRoot)),
      memory: realpathOr(resolve(opts.memoryRoot)),
    });
    const dir = realpathOr(resolve(absDir));
    // The agent's view is the workspace; a path outside it (or in .git) has no memory to offer.
    const rel = isInside(workspace, dir) ? relative(workspace, dir) : undefined;
    if (rel === undefined || rel.split(sep).includes('.git')) return undefined;
    const candidates: ContextFileRef[] = [];
    const segs = rel ? rel.split(sep) : [];
    for (let i = 0; i <= segs.length; i++) {
      const relDir = segs.slice(0, i).join('/');
      for (const name of fileNames) {
        const label = relDir ? `${relDir}/${name}` : name;
        if (loaded.has(label)) continue;
        // Claimed before any await: parallel reads in one batch must not load a file twice.
        loaded.add(label);
        candidates.push({ abs: join(memory, ...segs.slice(0, i), name), confine: memory, label });
      }
    }
    if (candidates.length === 0 || budget <= 0) return undefined;
    const m = await assembleMemory(candidates, { memoryRoot: memory, maxBytes: budget });
    for (const w of m.warnings) opts.onWarning?.(w);
    if (m.sources.length === 0 && m.warnings.length === 0) return undefined;
    budget -= Buffer.byteLength(m.text);
    const body = m.sources.length > 0 ? m.text : '';
    // Warnings the text does not already carry (its own cut and left-out notes) become one-line notes.
    const notes = m.warnings.filter((w) => !body.includes(w)).map((w) => `[project memory: ${w}]`);
    const head = body
      ? `Project memory for ${m.sources.join(', ')} (loaded because you accessed this directory; follow it like the memory in your instructions):`
      : '';
    return [head, body, ...notes].filter(Boolean).join('\n');
  };
}

function realpathOr(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}
