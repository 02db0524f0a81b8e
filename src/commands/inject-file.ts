/**
 * What `@{path}` puts in a command's prompt: a file's text, or every file under a folder with
 * Gemini CLI's headers. Each file is opened the way the file tools open one (tools/confined-fs.ts):
 * the check is on the opened descriptor, so neither `../x`, an absolute path outside, nor a symlink
 * that leads out of the workspace (or into `.git/`) is read. Binary files are left out with a note.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { closeOpened, openFileIn, readOpenedSync } from '../tools/confined-fs.js';
import { ToolFailure } from '../tools/define-tool.js';
import { isHiddenFile } from '../tools/hidden-files.js';
import { relativeTo, resolveInWorkspace } from '../tools/workspace.js';

/** Per injection: a prompt is not the place for a whole tree. */
const MAX_INJECTED_BYTES = 1024 * 1024;
const MAX_FOLDER_FILES = 200;

/** Throws (ToolFailure) when the path is outside the workspace, missing, or not readable. */
export async function readInjectedPath(root: string, given: string): Promise<string> {
  if (given === '') throw new ToolFailure('invalid_args', 'the path is empty');
  const resolved = await resolveInWorkspace(root, given, 'read');
  if (!resolved.exists) throw new ToolFailure('not_found', `${given} does not exist in the workspace`);
  const file = openFileIn(root, resolved.abs, { shown: given, follow: true });
  try {
    if (!file.stats.isDirectory()) return textOf(readOpenedSync(file), given);
  } finally {
    closeOpened(file);
  }
  return readFolder(root, resolved.abs, given);
}

/** Gemini CLI's folder form: a start line, `--- rel ---` before each file, an end line. */
async function readFolder(root: string, dir: string, given: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name))
    .filter((abs) => !relativeTo(dir, abs).split('/').includes('.git'))
    .filter((abs) => !isHiddenFile(root, abs)) // a credentials file is not even named (tools/hidden-files.ts)
    .sort();
  let out = `--- Start of content for directory: ${given} ---\n`;
  let bytes = 0;
  for (const abs of files.slice(0, MAX_FOLDER_FILES)) {
    const rel = relativeTo(dir, abs);
    let text: string;
    try {
      const f = openFileIn(root, abs, { shown: rel, follow: true });
      try {
        text = f.stats.isFile() ? textOf(readOpenedSync(f), rel) : '';
      } finally {
        closeOpened(f);
      }
    } catch {
      out += `--- Skipped ${rel}: outside the workspace or unreadable ---\n\n`;
      continue;
    }
    bytes += text.length;
    if (bytes > MAX_INJECTED_BYTES) {
      out += `--- Stopped at ${rel}: more than ${MAX_INJECTED_BYTES / 1024} KB ---\n`;
      break;
    }
    out += `--- ${rel} ---\n${text}\n`;
  }
  if (files.length > MAX_FOLDER_FILES) out += `--- ${files.length - MAX_FOLDER_FILES} more files left out ---\n`;
  return `${out}--- End of content for directory: ${given} ---`;
}

function textOf(bytes: Buffer, shown: string): string {
  if (bytes.subarray(0, 8192).includes(0)) return `[${shown}: binary file, not included]`;
  if (bytes.length > MAX_INJECTED_BYTES)
    return `${bytes.subarray(0, MAX_INJECTED_BYTES).toString('utf8')}\n[${shown}: cut at ${MAX_INJECTED_BYTES / 1024} KB]`;
  return bytes.toString('utf8');
}
