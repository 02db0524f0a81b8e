import type { ProcessBounds } from '../sandbox/bounds.js';
import type { ConfinedProcess } from '../sandbox/types.js';

/**
 * One started process (sandboxed or not, see sandbox/), run to its end: output captured head and
 * tail, and on timeout, abort, or when the command exits leaving background children behind,
 * everything it started goes: SIGTERM to its process group first, SIGKILL to all of it after a
 * grace period. Killing only bash would leave `npm test`'s workers running and holding the output
 * pipe open. In the sandbox the PID namespace also takes what left the group (`setsid`).
 */
/** Calls `fire` after `ms` unless the returned cancel runs first. */
export type StartTimer = (ms: number, fire: () => void) => () => void;

export const startRealTimer: StartTimer = (ms, fire) => {
  const t = setTimeout(fire, ms);
  return () => clearTimeout(t);
};

export interface RunOptions {
  timeoutMs: number;
  /** The timeout and grace timers (real ones by default; tests fire them on an event instead). */
  startTimer?: StartTimer;
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
  sandboxed: boolean;
  /** The process, or the sandbox around it, never started: why. */
  startError?: string;
  /** The sandbox stopped the call at a bound (its processes and threads). */
  exceeded?: 'processes';
  /** What bounded the call (sandboxed only). */
  bounds?: ProcessBounds;
}

export async function runToCompletion(proc: ConfinedProcess, o: RunOptions): Promise<ProcessResult> {
  const capture = createHeadTailCapture(o.maxOutputBytes);
  let timedOut = false;
  let aborted = false;
  let cancelKill: (() => void) | undefined;
  const graceMs = o.graceMs ?? 2000;
  const startTimer = o.startTimer ?? startRealTimer;

  const stop = () => {
    if (cancelKill) return;
    proc.terminate();
    cancelKill = startTimer(graceMs, () => proc.kill());
  };
  const onAbort = () => {
    aborted = true;
    stop();
  };
  const cancelTimeout = startTimer(o.timeoutMs, () => {
    timedOut = true;
    stop();
  });
  if (o.signal.aborted) onAbort();
  else o.signal.addEventListener('abort', onAbort, { once: true });

  const onData = (chunk: Buffer) => {
    capture.push(chunk);
    o.onOutput?.(chunk.toString('utf8'));
  };
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);

  // The command is done, but anything it started in the background still holds the pipes: end it.
  void proc.exited.then(() => {
    if (proc.hasStragglers()) stop();
  });
  const status = await proc.closed;
  cancelTimeout();
  cancelKill?.();
  // Stragglers that ignored SIGTERM: the grace timer was cleared, so make sure here.
  proc.kill();
  o.signal.removeEventListener('abort', onAbort);
  const { text, omitted } = capture.result();
  return {
    exitCode: status.code,
    signal: status.signal,
    output: text,
    omittedBytes: omitted,
    timedOut,
    aborted,
    pid: proc.pid,
    sandboxed: proc.sandboxed,
    ...(status.startError ? { startError: status.startError } : {}),
    ...(status.exceeded && { exceeded: status.exceeded }),
    ...(proc.bounds && { bounds: proc.bounds }),
  };
}

/** Keeps the first third and the last two thirds of the budget: errors usually sit at the end. */
function createHeadTailCapture(maxBytes: number) {
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
