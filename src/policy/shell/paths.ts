import { posix } from 'node:path';

/** Where a shell call runs: the workspace root (absolute, when the engine knows it) and the call's directory in it. */
export interface ShellPlace {
  workspace?: string;
  /** The call's `dir_path`, relative to the workspace root; '.' when absent. */
  dir: string;
}

/** Files a redirection may write that are not files: writing there changes nothing on disk. */
const SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/fd/1', '/dev/fd/2']);

export const isSink = (path: string): boolean => SINKS.has(path);

/** Folders no shell redirection may write into, in any spelling or case: git internals, workflows, policy and settings. */
const PROTECTED = new Set(['.git', '.github', '.gemini']);

/**
 * Why a redirection may not write `path` (its static value; undefined when it expands at run time),
 * or undefined when it may. Purely lexical: symlinks are the sandbox's business.
 */
export function whyWriteRefused(
  path: string | undefined,
  place: ShellPlace,
  changesDirectory: boolean,
): string | undefined {
  if (path === undefined)
    return 'its target is only known at run time (a variable, a substitution or a pattern), so it could be any file';
  if (isSink(path)) return undefined;
  const rel = relativeInWorkspace(path, place, changesDirectory);
  if (rel === 'unknown-cwd')
    return 'the command changes directory first (cd, pushd, env -C, find -execdir), so a relative target could be anywhere';
  if (rel === undefined) return 'it is outside the workspace';
  const hit = rel.split('/').find((seg) => PROTECTED.has(seg.toLowerCase()));
  return hit ? `it is inside ${hit}/, which only people change` : undefined;
}

/**
 * `path` relative to the workspace root, normalized; undefined when it leaves the workspace (or is
 * absolute and the workspace is unknown, or starts with `~`).
 */
function relativeInWorkspace(
  path: string,
  place: ShellPlace,
  changesDirectory: boolean,
): string | undefined | 'unknown-cwd' {
  if (path.startsWith('~')) return undefined;
  let rel: string;
  if (path.startsWith('/')) {
    // Stryker disable next-line ConditionalExpression: without the check the root is "undefined/", which no absolute path equals or starts with: outside all the same
    if (place.workspace === undefined) return undefined;
    const root = posix.normalize(`${place.workspace}/`);
    const abs = posix.normalize(path);
    if (`${abs}/` === root) {
      // Stryker disable next-line StringLiteral: '' names the root as well as '.': neither leaves the workspace nor holds a protected segment
      return '.';
    }
    if (!abs.startsWith(root)) return undefined;
    rel = abs.slice(root.length);
  } else {
    if (changesDirectory) return 'unknown-cwd';
    rel = posix.normalize(posix.join(place.dir, path));
  }
  if (rel === '..' || rel.startsWith('../')) return undefined;
  return rel;
}

/** True when a path argument of a read-only command reaches outside the workspace (Gemini CLI's check, without the file system). */
export function escapesWorkspace(arg: string, place: ShellPlace): boolean {
  const rel = relativeInWorkspace(arg, place, false);
  return rel === undefined;
}
