import { readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { isInside } from '../common/paths.js';

/**
 * Files in the workspace that no file tool may read, search, list or change in a run: the Google
 * Cloud credentials file google-github-actions/auth writes into the workspace (`gha-creds-*.json`, a
 * service account's private key or how to mint the job's OIDC token) and names in
 * GOOGLE_APPLICATION_CREDENTIALS. The sandbox hides it from commands (sandbox/runner-paths.ts); the
 * file tools run in the action's own process, so they refuse it here. A read, or a search (one regex
 * at a time is a match/no-match oracle over the key), or an edit (its diff, its "string not found")
 * would each give the key away.
 *
 * Kept per workspace root, set once by the face before any tool runs (compose/prepare-agent.ts), and
 * consulted where every file tool opens, lists and writes (confined-fs.ts, workspace.ts,
 * file-list.ts): one choke point rather than an argument each of a dozen call sites must remember.
 * A path is compared by its real path (a symlink to the file is refused at its target), an opened
 * object by device and inode (a hard link to it is the same file under another name).
 */
const hiddenByRoot = new Map<string, readonly string[]>();

/** What google-github-actions/auth names its file: `gha-creds-<random>.json` at the workspace root. */
const LEFT_CREDENTIALS = /^gha-creds-[^/]*\.json$/;

/** Variables naming a Google Cloud credentials file (as in sandbox/runner-paths.ts). */
const CREDENTIAL_VARIABLES = [
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GOOGLE_GHA_CREDS_PATH',
  'CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE',
] as const;

/**
 * Pure: the credentials files to hide in a workspace: those the variables name, and the root-level
 * `gha-creds-*.json` among `names` (workspace-relative paths: the work tree's leftovers, or what the
 * root holds). Nothing else: a repository's own `*.json` stays readable.
 */
export function credentialFilesOf(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): string[] {
  const named = CREDENTIAL_VARIABLES.map((v) => env[v]).filter((p): p is string => !!p && isAbsolute(p));
  const left = names.filter((n) => LEFT_CREDENTIALS.test(n)).map((n) => join(root, n));
  return [...new Set([...named, ...left])];
}

/** The names at the workspace root, for credentialFilesOf where no work-tree record says what earlier steps left. */
export function rootNamesOf(root: string): string[] {
  try {
    return readdirSync(root);
  } catch {
    return [];
  }
}

/** Sets the files no file tool may touch under root (their real paths; those outside root are left to the sandbox). */
export function hideFromFileTools(root: string, paths: readonly string[]): void {
  const inside = [...new Set(paths.map(realOrSelf))].filter((p) => p !== root && isInside(root, p));
  if (inside.length > 0) hiddenByRoot.set(root, inside);
  else hiddenByRoot.delete(root);
}

function realOrSelf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

/** Whether anything is hidden under root (the listings skip their extra stats otherwise). */
export const hasHiddenFiles = (root: string): boolean => hiddenByRoot.has(root);

/** The real paths hidden under root. */
export const hiddenPathsIn = (root: string): readonly string[] => hiddenByRoot.get(root) ?? [];

/** Whether a real path is one of root's hidden files. */
export function isHiddenPath(root: string, real: string): boolean {
  return hiddenByRoot.get(root)?.includes(real) ?? false;
}

/** Whether an object (its stats) is one of root's hidden files, under whatever name it was reached. */
export function isHiddenObject(root: string, s: { dev: number; ino: number }): boolean {
  for (const p of hiddenByRoot.get(root) ?? []) {
    const h = statSync(p, { throwIfNoEntry: false });
    if (h && h.dev === s.dev && h.ino === s.ino) return true;
  }
  return false;
}

/** Whether the file at abs (a link followed) is hidden, by path or by identity; a name that cannot be stat'ed is not. */
export function isHiddenFile(root: string, abs: string): boolean {
  if (!hasHiddenFiles(root)) return false;
  if (isHiddenPath(root, abs)) return true;
  try {
    const s = statSync(abs, { throwIfNoEntry: false });
    return s !== undefined && isHiddenObject(root, s);
  } catch {
    return false;
  }
}

/** Why a file tool refuses a hidden file, for the model. */
export const hiddenMessage = (shown: string): string =>
  `${shown} is a Google Cloud credentials file (GOOGLE_APPLICATION_CREDENTIALS, or one google-github-actions/auth left); file tools do not read, search, list or change it`;
