import { lstatSync, realpathSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { isInside } from '../common/paths.js';
import { ToolFailure } from './define-tool.js';
import { hiddenMessage, isHiddenPath } from './hidden-files.js';

/**
 * The one gate every file tool goes through. A path is accepted only when its real location (all
 * symlinks resolved, for a new file: the real path of its deepest existing ancestor) lies inside
 * the workspace root, and never inside a `.git` directory: git internals hold hooks (code that runs
 * later) and, after actions/checkout, the job's token in `.git/config`.
 */
export interface ResolvedPath {
  /** Real absolute path (for a file that does not exist yet: real parent + the missing tail). */
  abs: string;
  /** Relative to the workspace root, with `/` separators; `.` for the root itself. */
  rel: string;
  /** Whether something exists at the path now. */
  exists: boolean;
}

export type Access = 'read' | 'write';

/** Workspace-relative form of an absolute path inside root, always with `/`. */
export function relativeTo(root: string, abs: string): string {
  const rel = relative(root, abs);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/**
 * True when any segment of a workspace-relative path names git's own directory, in any letter case:
 * on a case-insensitive file system (macOS, Windows) `.GIT/config` is git's config. On Linux it is a
 * different, legal name; refusing it there too costs nothing and keeps one rule for every runner.
 */
function touchesGitDir(rel: string): boolean {
  return rel.split('/').some((s) => s.toLowerCase() === '.git');
}

/**
 * Why a real path (of something already opened, see confined-fs.ts) is not for the file tools: outside
 * the root, or in git's own directory. undefined: it is theirs.
 */
export function whyNotInWorkspace(root: string, real: string): string | undefined {
  if (!isInside(root, real)) return `it is ${real}, outside the workspace (${root})`;
  if (touchesGitDir(relativeTo(root, real))) return 'it is inside .git/, which file tools do not open';
  if (isHiddenPath(root, real)) return 'it is a credentials file, which file tools do not open';
  return undefined;
}

/**
 * Resolve what the model gave (relative to root, or absolute) to a confined real path.
 * Throws ToolFailure('outside_workspace') with a message that says why and what is allowed.
 */
export async function resolveInWorkspace(root: string, given: string, access: Access): Promise<ResolvedPath> {
  if (given.includes('\0')) throw new ToolFailure('invalid_args', 'path contains a NUL byte');
  const lexical = resolve(root, given.trim()); // an empty path is the root itself
  if (!isInside(root, lexical)) {
    throw new ToolFailure(
      'outside_workspace',
      `${given} is outside the workspace (${root}); use a path relative to the workspace root`,
    );
  }
  const { real, exists } = realpathOfDeepest(lexical);
  if (!isInside(root, real)) {
    throw new ToolFailure(
      'outside_workspace',
      `${given} resolves through a symlink to ${real}, which is outside the workspace; file tools stay inside ${root}`,
    );
  }
  const rel = relativeTo(root, real);
  // Checked on both the lexical and the real form: a symlink named `notes` pointing into .git is as bad as `.git/`.
  if (touchesGitDir(rel) || touchesGitDir(relativeTo(root, lexical))) {
    const what =
      access === 'write' ? 'writes into .git/ are refused' : 'git internals (.git/) are not readable by file tools';
    throw new ToolFailure(
      'outside_workspace',
      `${given}: ${what}; use run_shell_command with git to inspect the repository`,
    );
  }
  // A symlink to the credentials file resolves to it: refused by its real path.
  if (isHiddenPath(root, real)) throw new ToolFailure('outside_workspace', hiddenMessage(given));
  return { abs: real, rel, exists };
}

/** realpath of the path if it exists, else realpath of the deepest existing ancestor plus the rest. */
function realpathOfDeepest(abs: string): { real: string; exists: boolean } {
  const tail: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      const real = realpathSync.native(cur);
      if (tail.length === 0) return { real, exists: true };
      // A dangling symlink in the middle would make realpath fail; that case lands in the catch below.
      return { real: join(real, ...tail.reverse()), exists: false };
    } catch (e) {
      if (isDanglingSymlink(cur)) {
        // Writing through a dangling link would create its target wherever it points: refuse outright.
        throw new ToolFailure(
          'outside_workspace',
          `${abs} is or passes through a dangling symlink; refusing to follow it`,
        );
      }
      const parent = resolve(cur, '..');
      // Stryker disable next-line ConditionalExpression: equivalent in practice; realpath('/') always succeeds, so the walk ends above before reaching this guard against an endless loop
      if (parent === cur) throw e;
      tail.push(basename(cur));
      cur = parent;
    }
  }
}

function isDanglingSymlink(p: string): boolean {
  let link = false;
  try {
    link = lstatSync(p).isSymbolicLink();
  } catch {
    // no such path, or a folder it may not look into: no link to refuse
  }
  return link;
}
