/**
 * An unconfined process (sandbox `off`, or `auto` where bubblewrap does not work): the command in
 * its own process group (`detached: true` makes it a group leader), so a timeout, an abort or the
 * end of the call can signal everything it started that stayed in the group. A process that leaves
 * the group (`setsid`) escapes this; only the sandbox's PID namespace catches it.
 */
import { childProcess } from '../common/child-process.js';
import type { ConfinedProcess, ExitStatus, SpawnRequest } from './types.js';

export function spawnDirect(req: SpawnRequest): ConfinedProcess {
  const child = childProcess().spawn(req.argv[0], req.argv.slice(1), {
    cwd: req.cwd,
    env: { ...req.env },
    detached: true,
    stdio: [req.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  let startError: string | undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (e) => {
      startError = `failed to start ${req.argv[0]}: ${e.message}`;
      resolve({ code: null, signal: null, startError });
    });
  });
  const closed = new Promise<ExitStatus>((resolve) => {
    child.once('close', (code, signal) =>
      resolve(startError ? { code: null, signal: null, startError } : { code, signal }),
    );
    child.once('error', () => setImmediate(() => resolve({ code: null, signal: null, startError })));
  });
  const pid = child.pid;
  return {
    sandboxed: false,
    pid,
    stdin: child.stdin,
    stdout: child.stdout!,
    stderr: child.stderr!,
    exited,
    closed,
    terminate() {
      if (pid !== undefined) signalGroup(pid, 'SIGTERM');
    },
    kill() {
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
    },
    hasStragglers: () => pid !== undefined && groupAlive(pid),
  };
}

export function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
