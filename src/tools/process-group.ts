import { spawn } from 'node:child_process';

/**
 * One command, run by bash in its own process group (`detached: true` makes the child a group
 * leader), so that on timeout, abort, or when bash exits leaving background children behind, the
 * whole group goes: SIGTERM first, SIGKILL after a grace period. Killing only bash would leave
 * `npm test`'s workers running and holding the output pipe open.
 */
export interface ProcessRequest {
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Output beyond this keeps its head and tail; the middle is dropped and counted. */
  maxOutputBytes: number;
  /** Between SIGTERM and SIGKILL. */
  graceMs?: number;
  onOutput?: (chunk: string) => void;
}

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr interleaved as they arrived. */
  output: string;
  omittedBytes: number;
  timedOut: boolean;
  aborted: boolean;
  pid: number | undefined;
}

export function runInProcessGroup(req: ProcessRequest): Promise<ProcessResult> {
  return new Promise((resolveP) => {
    const child = spawn('bash', ['-c', req.command], {
      cwd: req.cwd,
      env: req.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const capture = createHeadTailCapture(req.maxOutputBytes);
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const graceMs = req.graceMs ?? 2000;

    const killGroup = () => {
      if (killTimer || child.pid === undefined) return;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), graceMs);
    };
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, req.timeoutMs);
    if (req.signal.aborted) onAbort();
    else req.signal.addEventListener('abort', onAbort, { once: true });

    const onData = (chunk: Buffer) => {
      capture.push(chunk);
      req.onOutput?.(chunk.toString('utf8'));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    // bash is done, but anything it started in the background still holds the pipes: end the group.
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      if (child.pid !== undefined && groupAlive(child.pid)) killGroup();
    });
    const finish = (result: { code: number | null; signal: NodeJS.Signals | null }, extra = '') => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      // Stragglers that ignored SIGTERM: the grace timer was cleared, so make sure here.
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      req.signal.removeEventListener('abort', onAbort);
      const { text, omitted } = capture.result();
      resolveP({ exitCode: result.code, signal: result.signal, output: text + extra, omittedBytes: omitted, timedOut, aborted, pid: child.pid });
    };
    child.on('close', (code, signal) => finish(exit ?? { code, signal }));
    child.on('error', (e) => finish({ code: null, signal: null }, `failed to start bash: ${e.message}`));
  });
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
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

/** Keeps the first third and the last two thirds of the budget: errors usually sit at the end. */
export function createHeadTailCapture(maxBytes: number) {
  const headMax = Math.floor(maxBytes / 3);
  const tailMax = maxBytes - headMax;
  const head: Buffer[] = [];
  let headLen = 0;
  let tail: Buffer[] = [];
  let tailLen = 0;
  let total = 0;
  return {
    push(chunk: Buffer) {
      total += chunk.length;
      if (headLen < headMax) {
        const take = chunk.subarray(0, headMax - headLen);
        head.push(take);
        headLen += take.length;
        chunk = chunk.subarray(take.length);
      }
      if (chunk.length === 0) return;
      tail.push(chunk);
      tailLen += chunk.length;
      while (tailLen - tail[0].length >= tailMax) {
        tailLen -= tail[0].length;
        tail = tail.slice(1);
      }
    },
    result(): { text: string; omitted: number } {
      let t = Buffer.concat(tail);
      if (t.length > tailMax) t = t.subarray(t.length - tailMax);
      const omitted = total - headLen - t.length;
      const h = Buffer.concat(head).toString('utf8');
      if (omitted <= 0) return { text: h + t.toString('utf8'), omitted: 0 };
      return { text: `${h}\n… [${omitted} bytes of output omitted] …\n${t.toString('utf8')}`, omitted };
    },
  };
}
