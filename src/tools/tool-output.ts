import { messageOf } from '../common/errors.js';
import { oneLine } from '../common/text.js';
import { ToolFailure, type ToolEnv, type ToolErrorCode, type ToolOutput } from './define-tool.js';

/** A successful result; the model never gets an empty string (some models stall on one). */
export function okOutput(forModel: string, forHuman: string): ToolOutput {
  return { forModel: forModel === '' ? '(no output)' : forModel, forHuman: oneLine(forHuman, HUMAN_LINE) };
}

export function failedOutput(code: ToolErrorCode, message: string, forModel?: string): ToolOutput {
  return {
    forModel: forModel ?? message,
    forHuman: oneLine(`${code}: ${message}`, HUMAN_LINE),
    error: { code, message },
  };
}

/** The single abort check every tool uses between steps. */
export function assertNotAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new ToolFailure('cancelled', 'cancelled before it finished');
}

/**
 * Settles like `work`, or rejects with ToolFailure('cancelled') the moment `signal` aborts (the
 * run's deadline, or a cancel), whether or not `work` ever settles: a call awaiting something that
 * hangs (a server that never answers) cannot hold the run past its limit. What `work` still does
 * afterwards is abandoned; its late failure is swallowed, never unhandled. Only for work that
 * starts no process: a call that started one ends once it is gone (guardRun's `endsOnAbort`).
 */
export function raceAbort<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  const cancelled = () =>
    new ToolFailure('cancelled', 'cancelled before it finished (the run was stopped or reached its time limit)');
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(cancelled());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Runs a tool body and turns what it throws into a result the model sees: a ToolFailure keeps its
 * code, an abort becomes `cancelled`, anything else becomes `failed` with its message.
 *
 * The one abort rule: a call's run returns, and the scheduler settles the call, only once nothing
 * it started is left. A body that starts processes (a command, git, grep) says so with
 * `endsOnAbort`: it stops them on the signal (SIGTERM, then SIGKILL after a grace period, for the
 * shell) and is awaited, so its call ends once they are gone. A body that starts none is raced
 * against the signal: what it still awaits (a hung read, a server that never answers) holds no
 * process, and the call is `cancelled` at once.
 */
export async function guardRun(
  signal: AbortSignal,
  body: () => Promise<ToolOutput>,
  o: { endsOnAbort?: boolean } = {},
): Promise<ToolOutput> {
  try {
    assertNotAborted(signal);
    return await (o.endsOnAbort ? body() : raceAbort(signal, body()));
  } catch (e) {
    if (e instanceof ToolFailure) return failedOutput(e.code, e.message);
    if (signal.aborted) return failedOutput('cancelled', 'cancelled before it finished');
    return failedOutput('failed', messageOf(e));
  }
}

/**
 * Appends the just-in-time memory (GEMINI.md of a directory just touched) to a model output. It
 * starts no process, so it is raced against the signal (a tool awaiting it may not be).
 */
export async function withMemory(
  env: ToolEnv,
  text: string,
  at: { dir: string; signal: AbortSignal },
): Promise<string> {
  if (!env.memoryFor) return text;
  const memory = await raceAbort(at.signal, env.memoryFor(at.dir));
  return memory ? `${text}\n\n${memory}` : text;
}

/** How long a call's one-line summary for people may be. */
export const HUMAN_LINE = 160;

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
