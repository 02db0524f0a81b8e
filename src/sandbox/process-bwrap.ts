/**
 * A process inside bubblewrap. bwrap reports on a status descriptor (`--json-status-fd 3`): first
 * `{"child-pid": N}`, the host pid of the sandbox's PID 1, which with `--new-session` leads the
 * session and process group the command runs in; last `{"exit-code": N}`. Files bound with
 * `--ro-bind-data 4 PATH` (the sanitized .git/config) are read from descriptor 4, so no copy of
 * them is ever written to disk.
 *
 * Killing: SIGTERM goes to the command's process group (-N), a chance to clean up. SIGKILL goes to
 * N itself: when a PID namespace's first process dies the kernel kills every other process in it,
 * including any that left the group with setsid. The same happens when the command exits: bwrap's
 * PID 1 exits with it, so nothing the call started survives it.
 */
import { childProcess } from '../common/child-process.js';
import { readFile, readlink } from 'node:fs/promises';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { signalGroup } from './process-direct.js';
import type { ConfinedProcess, ExitStatus } from './types.js';

export const STATUS_FD = 3;
export const DATA_FD = 4;

export interface BwrapLaunch {
  bwrap: string;
  /** Built by buildBwrapArgs with STATUS_FD (and DATA_FD when `data` is given). */
  args: readonly string[];
  /** The environment of bwrap itself, which the command inherits. */
  env: Readonly<Record<string, string>>;
  stdin?: 'ignore' | 'pipe';
  /** Bytes bwrap reads from DATA_FD (one --ro-bind-data). */
  data?: string;
}

export interface BwrapProcess extends ConfinedProcess {
  /** Namespace ids and the sandbox's PID 1, once bwrap has set the sandbox up. */
  readonly started: Promise<BwrapInfo | undefined>;
}

interface BwrapInfo {
  childPid: number;
  namespaces: Record<string, number>;
}

export function spawnBwrap(l: BwrapLaunch): BwrapProcess {
  const child = childProcess().spawn(l.bwrap, [...l.args], {
    env: { ...l.env },
    detached: true,
    // Stryker disable next-line ConditionalExpression: a data pipe nobody writes to is closed unread, as 'ignore' is
    stdio: [l.stdin ?? 'ignore', 'pipe', 'pipe', 'pipe', l.data === undefined ? 'ignore' : 'pipe'],
  });
  const status = child.stdio[STATUS_FD] as Readable;
  if (l.data !== undefined) {
    const data = child.stdio[DATA_FD] as Writable;
    // bwrap may close the descriptor unread (it failed before mounting): its exit status says so, and an
    // unhandled EPIPE here would end this whole process.
    data.on('error', () => undefined);
    data.end(l.data);
  }

  let info: BwrapInfo | undefined;
  let reportedExit: number | undefined;
  let startError: string | undefined;
  // Once bwrap is gone, so is every process of the sandbox; its pids may already name others.
  let ended = false;
  let onStarted: (i: BwrapInfo | undefined) => void = () => undefined;
  const started = new Promise<BwrapInfo | undefined>((r) => (onStarted = r));
  readJsonLines(status, (doc) => {
    if (typeof doc['child-pid'] === 'number') {
      const namespaces = Object.fromEntries(
        Object.entries(doc).filter(([k, v]) => k.endsWith('-namespace') && typeof v === 'number'),
      ) as Record<string, number>;
      info = { childPid: doc['child-pid'], namespaces };
      onStarted(info);
    }
    if (typeof doc['exit-code'] === 'number') reportedExit = doc['exit-code'];
  });

  const finalStatus = (code: number | null, signal: NodeJS.Signals | null): ExitStatus => {
    if (startError) return { code: null, signal: null, startError };
    // bwrap never set the sandbox up: its own error is on stderr, the caller shows it.
    if (!info) return { code, signal, startError: 'bubblewrap could not set up the sandbox' };
    return fromExitCode(reportedExit ?? code, signal);
  };
  // The status descriptor is read asynchronously: an answer waits until all of it is in.
  const statusRead = new Promise<void>((r) => {
    status.once('close', r);
    // Stryker disable next-line StringLiteral,ArrowFunction,CallExpression: a socket emits 'close' after 'error' too (autoDestroy), and readJsonLines already handles the error
    status.once('error', () => r());
  });
  const exitEvent = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      ended = true;
      resolve({ code, signal });
    });
    // Emitted only when the spawn failed: kill() and terminate() are not ChildProcess methods here.
    child.once('error', (e) => {
      // Stryker disable next-line BooleanLiteral: a process that never started has no pid, so terminate() and kill() signal nothing either way
      ended = true;
      startError = `failed to start ${l.bwrap}: ${e.message}`;
      // Stryker disable next-line CallExpression: libuv closes the pipe's other end when the spawn fails, so the status descriptor ends anyway; this only does not wait for it
      status.destroy();
      // Stryker disable next-line ObjectLiteral: with startError set, finalStatus ignores the code and signal
      resolve({ code: null, signal: null });
    });
  });
  const exited = Promise.all([exitEvent, statusRead]).then(async ([e]) => {
    onStarted(info);
    await waitForNamespaceEnd(info);
    return finalStatus(e.code, e.signal);
  });
  const closed = new Promise<ExitStatus>((resolve) => {
    // After a failed spawn Node emits 'close' too (exit code -errno), and finalStatus reports the startError.
    child.once('close', (code, signal) => void exited.then(() => resolve(finalStatus(code, signal))));
  });

  const outer = child.pid;
  return {
    sandboxed: true,
    pid: outer,
    stdin: child.stdin,
    stdout: child.stdout!,
    stderr: child.stderr!,
    exited,
    closed,
    started,
    terminate() {
      if (ended) return;
      // Stryker disable next-line StringLiteral: process.kill reads an empty signal name as SIGTERM
      if (info) signalGroup(info.childPid, 'SIGTERM');
      else {
        // Not set up yet: nothing to clean up.
        // Stryker disable next-line ConditionalExpression: outer is undefined only when the spawn failed, and signalGroup swallows process.kill's error for a NaN group
        if (outer !== undefined) signalGroup(outer, 'SIGKILL');
      }
    },
    kill() {
      if (ended) return;
      if (info) signalPid(info.childPid, 'SIGKILL');
      // Stryker disable next-line ConditionalExpression: outer is undefined only when the spawn failed, and signalGroup swallows process.kill's error for a NaN group
      if (outer !== undefined) signalGroup(outer, 'SIGKILL');
    },
    hasStragglers: () => false,
  };
}

/**
 * bwrap's PID 1 reports a command killed by signal N as exit code 128+N, as shells do; give it
 * back as the signal, so a timeout reads the same inside and outside the sandbox.
 */
export function fromExitCode(code: number | null, signal: NodeJS.Signals | null): ExitStatus {
  // Signal numbers are 1 to 64: a code of 128 or less, or a null one (0 - 128), names none.
  const name = Object.entries(constants.signals).find(([, n]) => n === Number(code) - 128)?.[0];
  return name ? { code: null, signal: name as NodeJS.Signals } : { code, signal };
}

/**
 * bwrap exits as soon as its PID 1 reports the command's exit status, while PID 1 is still
 * tearing the namespace down (the kernel kills the rest as it exits, and --die-with-parent kills it
 * if it lingers). Wait for that to finish, so "the call ended" means every process of it is gone.
 * The kernel empties the namespace before PID 1 becomes a zombie, so it is done when PID 1 is a
 * zombie (its new parent, the host's init, reaps it when it gets to it), gone, or its pid names a
 * process of another namespace. Bounded: 2 s.
 */
export async function waitForNamespaceEnd(
  info: BwrapInfo | undefined,
  probe: NamespaceProbe = procProbe,
): Promise<void> {
  const ns = info?.namespaces['pid-namespace'];
  if (!info || ns === undefined) return;
  for (let i = 0; i < 400; i++) {
    const [link, stat] = await Promise.all([probe.readNsLink(info.childPid), probe.readStat(info.childPid)]);
    if (link !== `pid:[${ns}]` || processState(stat) !== 'alive') return;
    await probe.pause();
  }
}

/** What waitForNamespaceEnd reads and how it waits; injected so its loop is testable without a clock. */
export interface NamespaceProbe {
  /** The target of /proc/PID/ns/pid (`pid:[N]`), '' when there is none. */
  readNsLink: (pid: number) => Promise<string>;
  /** /proc/PID/stat, '' when there is none. */
  readStat: (pid: number) => Promise<string>;
  /** One poll interval: 5 ms, so 400 polls bound the wait at 2 s. */
  pause: () => Promise<void>;
}

export const procProbe: NamespaceProbe = {
  readNsLink: (pid) => readlink(`/proc/${pid}/ns/pid`).catch(() => ''),
  readStat: (pid) => readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''),
  pause: () => new Promise((r) => setTimeout(r, 5)),
};

/** Pure: a /proc/<pid>/stat line's state: `Z` (zombie) and `X` (dead) are over, anything else is alive. */
export function processState(stat: string): 'alive' | 'over' {
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === '' || state === 'Z' || state === 'X' ? 'over' : 'alive';
}

function signalPid(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // ESRCH: already gone.
  }
}

/** bwrap writes one JSON object per line on the status descriptor. */
export function readJsonLines(stream: Readable, onDoc: (doc: Record<string, unknown>) => void): void {
  let buffered = '';
  // Stryker disable next-line StringLiteral: setEncoding('') is utf8 too (Node's default encoding)
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      // Stryker disable next-line MethodExpression: JSON.parse skips surrounding whitespace and a blank line fails to parse, caught below
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      // Stryker disable next-line ConditionalExpression: an empty line fails JSON.parse, which is caught below; this only saves the throw
      if (!line) continue;
      try {
        onDoc(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not ours to judge: a line bwrap may add in a later version.
      }
    }
  });
  stream.on('error', () => undefined);
}
