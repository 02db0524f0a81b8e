/**
 * Folder trust, as Gemini CLI's `security.folderTrust`: the project's `.gemini/` (settings.json
 * hooks and MCP servers, loop and agent settings, `agents/`, `policies/`) is used only in a folder
 * the person running the CLI trusts. The decision lives outside the project, in Gemini CLI's
 * `~/.gemini/trustedFolders.json` (or `GEMINI_CLI_TRUSTED_FOLDERS_PATH`): `TRUST_FOLDER` trusts a
 * folder and what is below it, `TRUST_PARENT` the folder's parent, `DO_NOT_TRUST` distrusts it; the
 * most specific entry wins. A folder no entry names is trusted unless the user's settings.json sets
 * `security.folderTrust.enabled` (Gemini CLI's default: off).
 *
 * A work tree restored from a session (`session import --restore-worktree`) was written by a model
 * elsewhere, so the restore records the folder as `DO_NOT_TRUST`: its `.gemini/` is never trusted
 * because it arrived, whatever the folder was before, until the person trusts it again.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { AgentError, messageOf } from '../common/errors.js';
import { stripJsonComments } from '../context/settings-file.js';

type Env = Readonly<Record<string, string | undefined>>;
type TrustLevel = 'TRUST_FOLDER' | 'TRUST_PARENT' | 'DO_NOT_TRUST';
const LEVELS: ReadonlySet<string> = new Set(['TRUST_FOLDER', 'TRUST_PARENT', 'DO_NOT_TRUST']);

export interface FolderTrust {
  trusted: boolean;
  /** Why not, and how to trust it: for a warning when the project has a `.gemini/`. */
  warning?: string;
}

export const trustedFoldersPath = (env: Env): string =>
  env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || join(homedir(), '.gemini', 'trustedFolders.json');

function readJson(path: string): Record<string, unknown> | undefined {
  if (!existsSync(path)) return undefined;
  const raw = JSON.parse(stripJsonComments(readFileSync(path, 'utf8'))) as unknown;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('expected an object');
  return raw as Record<string, unknown>;
}

const inside = (folder: string, root: string) =>
  root === folder || root.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/** The trust entry that decides for `root`: the one whose folder is the deepest around it. */
function decidingEntry(
  entries: Record<string, unknown>,
  root: string,
): { folder: string; level: TrustLevel } | undefined {
  let best: { folder: string; level: TrustLevel } | undefined;
  for (const [path, level] of Object.entries(entries)) {
    if (typeof level !== 'string' || !LEVELS.has(level)) continue;
    const folder = level === 'TRUST_PARENT' ? dirname(path) : path;
    if (inside(folder, root) && (!best || folder.length > best.folder.length))
      best = { folder, level: level as TrustLevel };
  }
  return best;
}

function folderTrustEnabled(): boolean {
  try {
    const settings = readJson(join(homedir(), '.gemini', 'settings.json')) as
      { security?: { folderTrust?: { enabled?: unknown } } } | undefined;
    return settings?.security?.folderTrust?.enabled === true;
  } catch {
    return false; // the settings file's own errors are reported where it is read for hooks and servers
  }
}

/** Whether the project at `root` (a real path) is trusted; a trust file that cannot be read trusts nothing. */
export function readFolderTrust(root: string, env: Env): FolderTrust {
  const file = trustedFoldersPath(env);
  const how = `To trust it, review its .gemini/ and set "${root}": "TRUST_FOLDER" in ${file}.`;
  let entries: Record<string, unknown>;
  try {
    entries = readJson(file) ?? {};
  } catch (e) {
    return {
      trusted: false,
      warning: `${file} cannot be read (${messageOf(e)}): no folder is trusted. Fix the file, then: ${how}`,
    };
  }
  const entry = decidingEntry(entries, root);
  if (entry?.level === 'DO_NOT_TRUST')
    return {
      trusted: false,
      warning: `this folder is not trusted (${entry.folder} is DO_NOT_TRUST in ${file}). ${how}`,
    };
  if (entry) return { trusted: true };
  if (folderTrustEnabled())
    return {
      trusted: false,
      warning: `this folder is not trusted (security.folderTrust is enabled and ${file} does not name it). ${how}`,
    };
  return { trusted: true };
}

/** The warning an untrusted project with a `.gemini/` gets: what is not used, and how to trust it. */
export function untrustedNote(root: string, trust: FolderTrust): string | undefined {
  if (trust.trusted || !existsSync(join(root, '.gemini'))) return undefined;
  return `${trust.warning} Until then its .gemini/ settings (hooks, MCP servers, agent and loop settings), agents and policies are not used.`;
}

/** Records `root` as DO_NOT_TRUST: its work tree was just restored from a session made elsewhere. */
export function distrustFolder(root: string, env: Env): void {
  const file = trustedFoldersPath(env);
  let entries: Record<string, unknown>;
  try {
    entries = readJson(file) ?? {};
  } catch (e) {
    throw new AgentError(
      'config',
      `${file} cannot be read (${messageOf(e)}); the restored work tree's folder could not be marked untrusted`,
      { site: { file } },
    );
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ ...entries, [root]: 'DO_NOT_TRUST' }, null, 2)}\n`);
}
