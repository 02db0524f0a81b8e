import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFile,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Dirent,
  type Stats,
} from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { messageOf } from '../common/errors.js';
import { ToolFailure } from './define-tool.js';
import { isInside } from '../common/paths.js';
import { whyNotInWorkspace } from './workspace.js';
import { hasHiddenFiles, hiddenMessage, isHiddenFile, isHiddenObject, isHiddenPath } from './hidden-files.js';

/**
 * How every file tool opens what it reads, lists and writes: it checks the object it opened, not
 * the path it planned to open. The tools run in the action's own process, outside the sandbox,
 * while the model's commands run beside them (a batch runs up to ten calls at once), so a path that
 * was checked when its call was prepared (workspace.ts) can lead out of the workspace, or into
 * `.git/`, by the time it is opened: a folder on the way renamed and replaced by a symlink. So:
 *
 * 1. The open uses O_NOFOLLOW: the last component is never a symlink (one swapped in since the
 *    check is refused, and nothing outside is even opened through it), O_NONBLOCK (a FIFO does not
 *    hold the open) and O_NOCTTY.
 * 2. The kernel says where the descriptor really is (readlink of /proc/self/fd/N: every folder on
 *    the way as it was at the moment of the open), and that is checked against the workspace and
 *    `.git/` before a byte is read or an entry listed.
 * 3. Reads, listings and stats then go through the descriptor, or through /proc/self/fd/N, which
 *    names the opened object itself whatever has happened to its path since.
 *
 * A symlink inside the workspace is still followed where a tool follows links (`follow`): its real
 * path is resolved, checked, and opened as above, so a swap between the two steps is caught by 2.
 *
 * Without /proc (macOS, where no sandbox runs the model's commands beside the tools), step 2 takes
 * the real path of the name opened and accepts it only when that path holds the very object opened
 * (same device and inode), and step 3 goes through that real path.
 */

export interface OpenedFile {
  fd: number;
  /** Where the kernel says the descriptor is: inside the workspace, outside `.git/`. */
  real: string;
  stats: Stats;
}

export interface OpenedDir {
  fd: number;
  real: string;
  /** A path naming this directory object itself (/proc/self/fd/N): what it holds is listed, opened and created through it. */
  path: string;
}

export interface OpenOptions {
  /** How the model knows the path (workspace-relative), for messages. */
  shown: string;
  /** A last component that is a symlink is followed when its real path is inside (default: refused). */
  follow?: boolean;
}

const FILE_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;
/** Keeps an open from following a last component that is (or was swapped into) a symlink. */
const NO_FOLLOW = constants.O_NOFOLLOW;

let procFd: boolean | undefined;
const hasProcFd = (): boolean => (procFd ??= existsSync('/proc/self/fd'));

/** Opens a file (or anything that is not a directory; check `stats`) confined to the workspace. Throws ToolFailure. */
export function openFileIn(root: string, abs: string, o: OpenOptions): OpenedFile {
  const fd = openChecked(root, abs, { ...o, flags: FILE_FLAGS });
  try {
    const stats = fstatSync(fd.fd);
    // A hard link to the credentials file has another name but its device and inode: nothing of it is read.
    if (isHiddenObject(root, stats)) throw new ToolFailure('outside_workspace', hiddenMessage(o.shown));
    return { fd: fd.fd, real: fd.real, stats };
  } catch (e) {
    closeSync(fd.fd);
    throw e;
  }
}

/** Opens a directory confined to the workspace. Throws ToolFailure. */
export function openDirIn(root: string, abs: string, o: OpenOptions): OpenedDir {
  const { fd, real } = openChecked(root, abs, { ...o, flags: DIR_FLAGS });
  return { fd, real, path: hasProcFd() ? `/proc/self/fd/${fd}` : real };
}

/** try*: the directory opened, or undefined when it cannot be (gone, not a directory, outside). */
export function tryOpenDirIn(root: string, abs: string): OpenedDir | undefined {
  try {
    return openDirIn(root, abs, { shown: abs });
  } catch {
    return undefined;
  }
}

export function closeOpened(o: { fd: number }): void {
  closeSync(o.fd);
}

/** The entries of an opened directory, read through the descriptor; the run's credentials files (hidden-files.ts) are not among them. */
export async function listOpenedDir(root: string, dir: OpenedDir): Promise<Dirent[]> {
  const entries = await readdir(dir.path, { withFileTypes: true });
  // Without /proc the listing went through the path: it counts only if the path still holds the directory opened.
  if (!hasProcFd() && openedPathOf(dir.fd, dir.real) !== dir.real)
    throw new ToolFailure('outside_workspace', `${dir.real} changed while it was being listed`);
  if (!hasHiddenFiles(root)) return entries;
  return entries.filter((e) => e.isDirectory() || !isHiddenFile(root, join(dir.path, e.name)));
}

/** The whole content of an opened file, synchronously (small files: no thread-pool round trip). */
export function readOpenedSync(f: OpenedFile): Buffer {
  return readFileSync(f.fd);
}

/** The whole content of an opened file, off the main thread (large files). */
export function readOpened(f: OpenedFile): Promise<Buffer> {
  return new Promise((resolve, reject) => readFile(f.fd, (e, bytes) => (e ? reject(e) : resolve(bytes))));
}

/**
 * Writes `bytes` as the file at abs: a temporary file created (never opened through a link) in the
 * opened, checked parent directory, then renamed over the name there, so a reader (or a crash) never
 * sees half a file and nothing lands anywhere but that directory. Missing parents are created one at
 * a time, each opened and checked before the next is made in it.
 */
export function writeFileIn(root: string, abs: string, o: { bytes: Buffer; shown: string; mode?: number }): void {
  const dir = openDirCreating(root, dirname(abs), o.shown);
  try {
    const name = basename(abs);
    // Neither the credentials file nor a hard link to it is replaced (the new name's old content is never the model's to decide).
    if (isHiddenPath(root, join(dir.real, name)) || isHiddenFile(root, join(dir.path, name)))
      throw new ToolFailure('outside_workspace', hiddenMessage(o.shown));
    const tmp = join(dir.path, `.${name}.agent-action-${process.pid}-${Date.now()}.tmp`);
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, o.mode ?? 0o666);
    try {
      try {
        writeFileSync(fd, o.bytes);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, join(dir.path, name));
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
  } finally {
    closeOpened(dir);
  }
}

/** The deepest existing directory of absDir opened, and the missing ones below it made and opened in turn. */
function openDirCreating(root: string, absDir: string, shown: string): OpenedDir {
  const missing: string[] = [];
  let at = absDir;
  let dir: OpenedDir | undefined;
  while (!dir) {
    try {
      dir = openDirIn(root, at, { shown });
    } catch (e) {
      if (!(e instanceof ToolFailure && e.code === 'not_found') || at === root || !isInside(root, dirname(at))) throw e;
      missing.push(basename(at));
      at = dirname(at);
    }
  }
  for (const name of missing.reverse()) {
    const next = join(dir.path, name);
    try {
      mkdirSync(next);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        closeOpened(dir);
        throw new ToolFailure('failed', `${shown}: cannot create the folder ${name}: ${messageOf(e)}`);
      }
    }
    const parent = dir;
    try {
      dir = openDirIn(root, next, { shown });
    } finally {
      closeOpened(parent);
    }
  }
  return dir;
}

function openChecked(root: string, abs: string, o: OpenOptions & { flags: number }): { fd: number; real: string } {
  const flags = o.flags | NO_FOLLOW;
  let target = abs;
  let fd: number;
  try {
    fd = openSync(target, flags);
  } catch (e) {
    if (!(o.follow && isLinkError(e, target))) throw openFailure(e, target, o.shown);
    target = realTargetOf(root, abs, o.shown);
    fd = openOrFail(target, flags, o.shown);
  }
  try {
    return { fd, real: assertOpenedInside(root, fd, { shown: o.shown, openedAs: target }) };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/**
 * The open-time check: where the kernel says the descriptor is, refused unless inside the workspace
 * and outside `.git/`. Throws ToolFailure('outside_workspace'); returns the real path.
 */
function assertOpenedInside(root: string, fd: number, o: { shown: string; openedAs: string }): string {
  const opened = openedPathOf(fd, o.openedAs);
  const why = opened === undefined ? 'it changed while it was being opened' : whyNotInWorkspace(root, opened);
  if (why !== undefined || opened === undefined) {
    throw new ToolFailure(
      'outside_workspace',
      `${o.shown} was refused when opened: ${why}. Something on its path changed after the call was checked (a folder replaced by a symlink?); file tools stay inside the workspace`,
    );
  }
  return opened;
}

function openedPathOf(fd: number, openedAs: string): string | undefined {
  if (hasProcFd()) return readlinkSync(`/proc/self/fd/${fd}`);
  try {
    const real = realpathSync.native(openedAs);
    const now = statSync(real);
    const held = fstatSync(fd);
    return now.dev === held.dev && now.ino === held.ino ? real : undefined;
  } catch {
    return undefined;
  }
}

/** The real path of a symlink that is to be followed, refused before anything is opened when it leads out. */
function realTargetOf(root: string, abs: string, shown: string): string {
  let real: string;
  try {
    real = realpathSync.native(abs);
  } catch (e) {
    throw openFailure(e, abs, shown);
  }
  const why = whyNotInWorkspace(root, real);
  if (why !== undefined)
    throw new ToolFailure('outside_workspace', `${shown} is a symlink that was not followed: ${why}`);
  return real;
}

function openOrFail(path: string, flags: number, shown: string): number {
  try {
    return openSync(path, flags);
  } catch (e) {
    throw openFailure(e, path, shown);
  }
}

/** O_NOFOLLOW met a symlink: ELOOP, or ENOTDIR for a directory open (a link is not a directory). */
function isLinkError(e: unknown, path: string): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return true;
  if (code !== 'ENOTDIR') return false;
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function openFailure(e: unknown, path: string, shown: string): ToolFailure {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new ToolFailure('not_found', `${shown} no longer exists`);
  const changed = new ToolFailure(
    'outside_workspace',
    `${shown} is now a symlink (it changed after the call was checked); file tools do not follow a link they have not checked, call again`,
  );
  if (code === 'ELOOP') return changed;
  if (code === 'ENOTDIR') {
    // A directory opened with O_NOFOLLOW meets a link as "not a directory", and a link can be gone again by now.
    const now = lstatSync(path, { throwIfNoEntry: false });
    return !now || now.isSymbolicLink() || now.isDirectory()
      ? changed
      : new ToolFailure('invalid_args', `${shown} is not a directory`);
  }
  return new ToolFailure('failed', `${shown} cannot be opened: ${messageOf(e)}`);
}

/**
 * Lines of an opened file, read forward in growing chunks: `line(n)` is the bytes of line n (1-based,
 * without its `\n`), for n never below the last one asked; undefined past the end or going back.
 */
export function createLineReader(fd: number): { line(n: number): Buffer | undefined } {
  let buf: Buffer = Buffer.alloc(0);
  let at = 1; // the number of the line buf starts with
  let offset = 0;
  let eof = false;
  return {
    line(n) {
      if (n < at) return undefined;
      for (;;) {
        let nl: number;
        while (at < n && (nl = buf.indexOf(10)) !== -1) {
          buf = buf.subarray(nl + 1);
          at++;
        }
        if (at === n) {
          const end = buf.indexOf(10);
          if (end !== -1) return buf.subarray(0, end);
          if (eof) return buf;
        }
        if (eof) return undefined;
        // Doubling with what is held: a very long line costs linear time, not quadratic.
        const chunk = Buffer.allocUnsafe(Math.max(64 * 1024, buf.length));
        const got = readSync(fd, chunk, 0, chunk.length, offset);
        offset += got;
        if (got === 0) eof = true;
        else buf = buf.length > 0 ? Buffer.concat([buf, chunk.subarray(0, got)]) : chunk.subarray(0, got);
      }
    },
  };
}
