/**
 * Project memory: the GEMINI.md files (or AGENTS.md, CLAUDE.md: the names are configurable) that
 * tell the agent a project's conventions. Loaded once at the start of a run, in this order: the
 * global file, then every context file from the repository root down to the working directory.
 *
 * Paths are relative to the workspace root and read from `memoryRoot`, which is the workspace
 * itself or, for pull requests, a snapshot of the base branch: the files that steer the agent must
 * come from code the maintainers already merged, not from the change under review.
 */
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { expandImports, tryReadTextFile, type ReadLimits } from './context-file.js';
import { isInside } from '../common/paths.js';

export const DEFAULT_CONTEXT_FILE_NAMES: readonly string[] = ['GEMINI.md'];
const DEFAULT_MEMORY_MAX_BYTES = 64 * 1024;

export interface ContextSettings {
  /** From `.gemini/settings.json` `context.fileName`; undefined when not set or not usable. */
  fileNames?: string[];
  warnings: string[];
}

/** A context file name is a plain file name: no folders, no `..`, nothing empty. */
export function parseContextFileNames(value: unknown, where: string): { fileNames?: string[]; warnings: string[] } {
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  if (list === undefined) return { warnings: [`${where}: expected a file name or a list of file names`] };
  const warnings: string[] = [];
  const fileNames: string[] = [];
  for (const n of list) {
    if (typeof n !== 'string' || n.trim() === '' || /[/\\]/.test(n) || n === '.' || n === '..' || n.includes('\0')) {
      warnings.push(`${where}: ${JSON.stringify(n)} is not a plain file name; ignored`);
    } else if (!fileNames.includes(n.trim())) {
      fileNames.push(n.trim());
    }
  }
  return fileNames.length > 0 ? { fileNames, warnings } : { warnings: [...warnings, `${where}: no usable file names`] };
}

/** Pure: `context.fileName` of the run's merged settings (run-settings.ts); `label` names them in warnings. */
export function contextSettingsOf(settings: Readonly<Record<string, unknown>>, label: string): ContextSettings {
  const context = (settings as { context?: { fileName?: unknown } }).context;
  if (context?.fileName === undefined) return { warnings: [] };
  return parseContextFileNames(context.fileName, `${label} context.fileName`);
}

export interface LoadMemoryOptions {
  /** Where the trusted context files are read: the workspace, or a snapshot of the base branch. */
  memoryRoot: string;
  /** The agent's working directory, inside the workspace. */
  cwd: string;
  /** The workspace root (cwd is mapped relative to it); default: memoryRoot. */
  workspaceRoot?: string;
  fileNames?: readonly string[];
  /** A global context file (the action's input, or ~/.gemini/GEMINI.md for the CLI). */
  globalFile?: string;
  /** Cap on the whole memory text, in bytes. */
  maxBytes?: number;
  /** Further context files, after the global one (Gemini CLI extensions' context files). */
  extraFiles?: readonly ContextFileRef[];
}

export interface Memory {
  /** Blocks marked with their source, ready for the system prompt; '' when there is none. */
  text: string;
  /** Sources loaded in order: workspace-relative paths, and `global:<name>` for the global file. */
  sources: string[];
  warnings: string[];
}

/** One candidate context file: where it is read, the folder its imports must stay in, its name. */
export interface ContextFileRef {
  abs: string;
  confine: string;
  label: string;
}

export async function loadMemory(opts: LoadMemoryOptions): Promise<Memory> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MEMORY_MAX_BYTES;
  const fileNames = opts.fileNames?.length ? opts.fileNames : DEFAULT_CONTEXT_FILE_NAMES;
  const warnings: string[] = [];
  const memoryRoot = await realpathOr(resolve(opts.memoryRoot));
  const workspaceRoot = opts.workspaceRoot ? await realpathOr(resolve(opts.workspaceRoot)) : memoryRoot;
  let cwd = await realpathOr(resolve(opts.cwd));
  if (!isInside(workspaceRoot, cwd)) {
    warnings.push(`working directory ${cwd} is outside the workspace; loading memory for the workspace root only`);
    cwd = workspaceRoot;
  }
  const repoRoot = await findRepoRoot(workspaceRoot, cwd);
  const found: ContextFileRef[] = [];
  if (opts.globalFile) {
    const g = resolve(opts.globalFile);
    found.push({ abs: g, confine: dirname(g), label: `global:${basename(g)}` });
  }
  found.push(...(opts.extraFiles ?? []));
  for (const dir of dirsDown(repoRoot, cwd)) {
    const rel = relative(workspaceRoot, dir);
    for (const name of fileNames) {
      const relFile = rel ? `${rel.split(sep).join('/')}/${name}` : name;
      found.push({
        abs: join(memoryRoot, rel, name),
        confine: join(memoryRoot, relative(workspaceRoot, repoRoot)),
        label: relFile,
      });
    }
  }
  return assembleMemory(found, { memoryRoot, maxBytes, warnings });
}

/** Reads each found file (missing ones silently: most directories have none), expands, caps. */
export async function assembleMemory(
  found: readonly ContextFileRef[],
  o: { memoryRoot: string; maxBytes: number; warnings?: string[] },
): Promise<Memory> {
  const { memoryRoot, maxBytes, warnings = [] } = o;
  const sources: string[] = [];
  const blocks: string[] = [];
  const seen = new Set<string>();
  const leftOut: string[] = [];
  let used = 0;
  for (const f of found) {
    if (!(await exists(f.abs))) continue;
    const left = maxBytes - used;
    // Room for the block's header, footer and a cut note, so a file's own cut note survives.
    const room = left - 2 * f.label.length - 160;
    if (room <= 0) {
      leftOut.push(f.label);
      continue;
    }
    const limits: ReadLimits = { maxFileBytes: room, readBudget: { left: room * 2 } };
    const r = await tryReadTextFile(f.abs, f.confine, room);
    if (!r.ok) {
      warnings.push(`${f.label} ${r.problem}; not loaded`);
      continue;
    }
    if (seen.has(r.real)) continue; // the same file through a symlink: once is enough
    seen.add(r.real);
    if (r.note) warnings.push(`${f.label} ${r.note}`);
    const label = (abs: string) => labelOf(abs, f, memoryRoot);
    const expanded = await expandImports(r.text, r.real, { confine: await realpathOr(f.confine), limits, label });
    warnings.push(...expanded.warnings);
    let body = expanded.text.replace(/\n+$/, '');
    const block = (b: string) => `--- Context from: ${f.label} ---\n${b}\n--- End of context from: ${f.label} ---`;
    if (Buffer.byteLength(block(body)) > left) {
      body = cutToBytes(body, left - Buffer.byteLength(block('')) - 120);
      body += `\n[... cut: the memory size limit (${maxBytes} bytes) was reached inside this file]`;
      warnings.push(`${f.label}: cut at the memory size limit of ${maxBytes} bytes`);
      used = maxBytes;
    } else {
      // A file cut at the read limit used up what was left: later files are listed as left out.
      used = r.cut ? maxBytes : used + Buffer.byteLength(block(body)) + 2;
    }
    blocks.push(block(body));
    sources.push(f.label);
  }
  if (leftOut.length > 0) {
    const note = `[memory size limit of ${maxBytes} bytes reached; not loaded: ${leftOut.join(', ')}]`;
    blocks.push(note);
    warnings.push(note.slice(1, -1));
  }
  return { text: blocks.join('\n\n'), sources, warnings };
}

function labelOf(abs: string, f: ContextFileRef, memoryRoot: string): string {
  if (f.label.startsWith('global:')) return `global:${relative(dirname(f.abs), abs).split(sep).join('/')}`;
  return relative(memoryRoot, abs).split(sep).join('/');
}

/** Cuts to at most `bytes` UTF-8 bytes, at a line end when there is one, never inside a character. */
function cutToBytes(text: string, bytes: number): string {
  const buf = Buffer.from(text);
  if (buf.length <= bytes) return text;
  let s = new TextDecoder().decode(buf.subarray(0, Math.max(0, bytes)), { stream: true });
  const nl = s.lastIndexOf('\n');
  if (nl > 0) s = s.slice(0, nl);
  return s;
}

/** The nearest ancestor of cwd (inclusive) with `.git`, never above the workspace root. */
async function findRepoRoot(workspaceRoot: string, cwd: string): Promise<string> {
  for (let dir = cwd; isInside(workspaceRoot, dir); dir = dirname(dir)) {
    if (await exists(join(dir, '.git'))) return dir;
    if (dir === workspaceRoot) break;
  }
  return workspaceRoot;
}

/** root, root/a, root/a/b … cwd. */
function dirsDown(root: string, cwd: string): string[] {
  const rel = relative(root, cwd);
  const dirs = [root];
  if (!rel) return dirs;
  let cur = root;
  for (const seg of rel.split(sep)) dirs.push((cur = join(cur, seg)));
  return dirs;
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch (e) {
    // A dangling or looping symlink still "exists" as a name; let the reader report it.
    return (e as NodeJS.ErrnoException).code === 'ELOOP';
  }
}

async function realpathOr(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    return p;
  }
}
