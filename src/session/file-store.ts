/**
 * Sessions of the CLI and of editors (ACP) on the developer's machine: one JSON file per session in
 * a folder of its own per project (see projectSessionsDir). The same contract as the git-ref store:
 * every write is a compare-and-swap on the version the caller read, so two processes that hold one
 * session cannot silently overwrite each other.
 *
 * A version is the hash of the file's bytes. A write goes to a temporary file beside the target, is
 * flushed, and renamed over it: a reader (or a crash) sees the old file or the new one, never half
 * of one. The read-compare-rename runs under a lock file created exclusively, so the compare and
 * the swap are one step for every process on the machine.
 *
 * The CLI saves after every settled batch, so a save is on each turn's path. Its small steps (lock,
 * read, write, rename, unlock) are synchronous calls: as promises each was a round trip through
 * libuv's thread pool, which cost more than the work itself. Only the flush and the rename, whose
 * time the disk decides, stay asynchronous, so the run goes on while they wait.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsync, mkdirSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { basename, join } from 'node:path';
import { AgentError, messageOf } from '../common/errors.js';
import { encodeLocalSession, parseLocalSession, type LocalSessionDoc } from './codec.js';
import type { CasResult, SessionStore, StoredSession } from './store.js';

export interface FileStoreOptions {
  /** The folder that holds one project's sessions (projectSessionsDir). Created on the first write. */
  dir: string;
  /** A lock older than this is left over from a process that died holding it. Default 30 s. */
  staleLockMs?: number;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const FILE = /^([A-Za-z0-9][A-Za-z0-9._-]{0,127})\.json$/;

function assertId(id: string): void {
  if (!ID.test(id) || id.includes('..') || id.endsWith('.')) {
    throw new AgentError(
      'input',
      `session id ${JSON.stringify(id)} cannot name a session file (letters, digits, ".", "_" and "-" only)`,
    );
  }
}

/** The folder for one workspace's sessions: readable name, unique by the workspace's real path. */
export function projectSessionsDir(stateDir: string, root: string): string {
  const name =
    basename(root)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .slice(0, 40) || 'root';
  const key = createHash('sha256').update(root).digest('hex').slice(0, 12);
  return join(stateDir, 'projects', `${name}-${key}`, 'sessions');
}

const versionOf = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex').slice(0, 20);

const isCode = (e: unknown, code: string): boolean => (e as NodeJS.ErrnoException | undefined)?.code === code;

/**
 * The file store also takes a document already encoded (encodeLocalSession): a caller whose state
 * moves on while a save waits its turn encodes it at once, which copies it in one pass instead of
 * cloning it first and serialising the clone later.
 */
export interface LocalSessionStore extends SessionStore<LocalSessionDoc> {
  createEncoded(id: string, text: string): Promise<CasResult>;
  updateEncoded(id: string, expected: string, text: string): Promise<CasResult>;
}

export function createFileStore(o: FileStoreOptions): LocalSessionStore {
  const folder: Folder = { dir: o.dir, staleMs: o.staleLockMs ?? 30_000, ready: false };
  const { dir } = folder;
  const fileOf = (id: string) => fileIn(folder, id);
  const readCurrent = (id: string) => readCurrentIn(folder, id);
  const readCurrentSync = (id: string) => readCurrentSyncIn(folder, id);
  const writeAtomically = (id: string, text: string) => writeAtomicallyIn(folder, id, text);
  const withLock = <T>(id: string, fn: () => Promise<T>) => withLockIn(folder, id, fn);

  const conflict = (message: string): CasResult => ({ ok: false, reason: 'conflict', message });
  const encode = (id: string, doc: LocalSessionDoc): string => {
    if (doc.id !== id) throw new AgentError('internal', `session ${id}: cannot store a document of session ${doc.id}`);
    return encodeLocalSession(doc);
  };
  const createEncoded = (id: string, text: string): Promise<CasResult> =>
    withLock(id, async () => {
      if (readCurrentSync(id)) return conflict(`session ${id} already exists`);
      return { ok: true, version: await writeAtomically(id, text) };
    });
  const updateEncoded = (id: string, expected: string, text: string): Promise<CasResult> =>
    withLock(id, async () => {
      const current = readCurrentSync(id);
      if (!current) return conflict(`session ${id} was deleted since it was read`);
      if (current.version !== expected)
        return conflict(`session ${id} changed since it was read (by another agent-action process?)`);
      return { ok: true, version: await writeAtomically(id, text) };
    });

  return {
    createEncoded,
    updateEncoded,
    async read(id): Promise<StoredSession<LocalSessionDoc> | undefined> {
      const current = await readCurrent(id);
      if (!current) return undefined;
      const parsed = parseLocalSession(current.bytes.toString('utf8'));
      if (parsed.ok && parsed.doc.id !== id) {
        return {
          id,
          version: current.version,
          parsed: {
            ok: false,
            error: {
              code: 'invalid',
              message: `session document: the file is named ${id} but holds session ${parsed.doc.id}`,
            },
          },
        };
      }
      return { id, version: current.version, parsed };
    },

    create: async (doc) => createEncoded(doc.id, encode(doc.id, doc)),
    update: async (id, expected, doc) => updateEncoded(id, expected, encode(id, doc)),

    delete: (id, expected) =>
      withLock(id, async () => {
        const current = readCurrentSync(id);
        if (!current) return conflict(`session ${id} does not exist`);
        if (current.version !== expected) return conflict(`session ${id} changed since it was read`);
        unlinkSync(fileOf(id));
        return { ok: true, version: expected };
      }),

    async list() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (e) {
        if (isCode(e, 'ENOENT')) return [];
        throw new AgentError('general', `could not list sessions in ${dir}: ${messageOf(e)}`, { cause: e });
      }
      const out: Array<{ id: string; version: string }> = [];
      for (const name of names.sort()) {
        const id = FILE.exec(name)?.[1];
        const current = id ? await readCurrent(id) : undefined;
        if (id && current) out.push({ id, version: current.version });
      }
      return out;
    },
  };
}

const flush = promisify(fsync);

/** The store's folder: created on the first write, once per store (not once per save). */
interface Folder {
  dir: string;
  staleMs: number;
  /** Made by this store; removed under us, the lock's open says so. */
  ready: boolean;
}

const fileIn = (f: Folder, id: string) => (assertId(id), join(f.dir, `${id}.json`));

function ensureDir(f: Folder): void {
  mkdirSync(f.dir, { recursive: true, mode: 0o700 });
  f.ready = true;
}

function unreadable(f: Folder, id: string, e: unknown): undefined {
  if (isCode(e, 'ENOENT')) return undefined;
  throw new AgentError('general', `could not read session file ${fileIn(f, id)}: ${messageOf(e)}`, { cause: e });
}

/** Outside the lock (read, list): asynchronous. */
async function readCurrentIn(f: Folder, id: string): Promise<{ bytes: Buffer; version: string } | undefined> {
  try {
    const bytes = await readFile(fileIn(f, id));
    return { bytes, version: versionOf(bytes) };
  } catch (e) {
    return unreadable(f, id, e);
  }
}

/** Under the lock, on a save's path: one synchronous read. */
function readCurrentSyncIn(f: Folder, id: string): { bytes: Buffer; version: string } | undefined {
  try {
    const bytes = readFileSync(fileIn(f, id));
    return { bytes, version: versionOf(bytes) };
  } catch (e) {
    return unreadable(f, id, e);
  }
}

/** Temporary file, flushed, renamed over the target: all or nothing. */
async function writeAtomicallyIn(f: Folder, id: string, text: string): Promise<string> {
  const bytes = Buffer.from(text, 'utf8');
  const target = fileIn(f, id);
  const tmp = join(f.dir, `.${id}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    try {
      writeAll(fd, bytes);
      await flush(fd);
    } finally {
      closeSync(fd);
    }
    await rename(tmp, target);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  return versionOf(bytes);
}

/** Run `fn` holding the session's lock file; a lock whose owner is gone or that is too old is broken. */
async function withLockIn<T>(f: Folder, id: string, fn: () => Promise<T>): Promise<T> {
  if (!f.ready) ensureDir(f);
  const lock = `${fileIn(f, id)}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      try {
        writeAll(fd, Buffer.from(String(process.pid)));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (e) {
      // The folder was removed since this store created it (sessions deleted by hand): again.
      if (isCode(e, 'ENOENT') && attempt === 0) {
        ensureDir(f);
        continue;
      }
      if (!isCode(e, 'EEXIST'))
        throw new AgentError('general', `could not lock session file ${fileIn(f, id)}: ${messageOf(e)}`, { cause: e });
      if (await isStale(lock, f.staleMs)) await rm(lock, { force: true });
      else if (attempt >= 200)
        throw new AgentError(
          'general',
          `session ${id} is locked by another process (${lock}); try again, or remove the lock file if no agent-action is running`,
        );
      else await new Promise((r) => setTimeout(r, 10 + Math.min(attempt, 10) * 5));
    }
  }
  try {
    return await fn();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // Already gone (broken as stale by another process): nothing to release.
    }
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}

async function isStale(lock: string, staleMs: number): Promise<boolean> {
  try {
    const [info, text] = await Promise.all([stat(lock), readFile(lock, 'utf8')]);
    const pid = Number(text);
    if (Number.isInteger(pid) && pid > 0 && !isAlive(pid)) return true;
    return Date.now() - info.mtimeMs > staleMs;
  } catch (e) {
    // Gone between the failed create and this check: the next attempt takes it.
    return isCode(e, 'ENOENT');
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return isCode(e, 'EPERM');
  }
}
