/**
 * One command hook, run as Gemini CLI runs it (`bash -c <command>`, `$GEMINI_PROJECT_DIR` and the
 * like written into the command shell-quoted, the event's JSON on stdin) but inside the sandbox:
 * the environment every command gets plus GEMINI_PROJECT_DIR, GEMINI_CWD, GEMINI_SESSION_ID and
 * CLAUDE_PROJECT_DIR, the trusted `.gemini/` in place of the work tree's, a timeout (SIGTERM, then
 * SIGKILL to everything it started), and stdout and stderr read up to a cap.
 *
 * What the exit means follows the hooks reference: 0, stdout is the JSON answer (text that is not
 * JSON becomes a `systemMessage`, as Gemini CLI does); 2, a block whose reason is stderr (stdout
 * when stderr is empty); anything else, a warning, and the run goes on as if the hook had not run.
 */
import { isAgentError, messageOf } from '../common/errors.js';
import type { Sandbox } from '../sandbox/types.js';
import { startRealTimer, type StartTimer } from '../tools/process-group.js';
import type { HookCommand, HookEvent } from './config.js';

/** stdout beyond this is not read (a hook's answer is a small JSON object). */
const MAX_HOOK_STDOUT_BYTES = 1024 * 1024;
const MAX_HOOK_STDERR_BYTES = 64 * 1024;

/** A hook's answer, the fields Gemini CLI reads (hooks reference, "Common output fields"). */
export interface HookOutput {
  continue?: boolean;
  stopReason?: string;
  suppressOutput?: boolean;
  systemMessage?: string;
  decision?: string;
  reason?: string;
  hookSpecificOutput?: Record<string, unknown>;
}

export type HookOutcome = 'ok' | 'blocked' | 'warning' | 'timeout';

export interface HookRun {
  event: HookEvent;
  name: string;
  outcome: HookOutcome;
  exitCode: number | null;
  durationMs: number;
  /** ok: its answer (absent when it printed nothing); blocked: `{ decision: 'deny', reason }`. */
  output?: HookOutput;
  /** blocked: the reason; warning/timeout: what went wrong; ok: a systemMessage, if any. */
  message?: string;
}

export interface HookRunDeps {
  sandbox: Sandbox;
  /** Real path of the workspace: the hook's cwd and GEMINI_PROJECT_DIR. */
  workspace: string;
  /** The environment every command gets (sandbox/command-env.ts): the allow-list and what trusted configuration passes. */
  env: Readonly<Record<string, string>>;
  sessionId: string;
  configDir?: string;
  graceMs?: number;
  now?: () => number;
  /** The timeout and grace timers (real ones by default; tests fire them on an event instead). */
  startTimer?: StartTimer;
}

export async function runHook(
  hook: HookCommand,
  d: HookRunDeps,
  o: { event: HookEvent; input: Record<string, unknown>; signal?: AbortSignal | undefined },
): Promise<HookRun> {
  const { event, input, signal } = o;
  const now = d.now ?? Date.now;
  const startTimer = d.startTimer ?? startRealTimer;
  const t0 = now();
  const done = (r: Omit<HookRun, 'event' | 'name' | 'durationMs'>): HookRun => ({
    event,
    name: hook.name,
    durationMs: now() - t0,
    ...r,
  });
  let proc;
  try {
    proc = await d.sandbox.spawn({
      argv: ['bash', '-c', expandCommand(hook.command, d.workspace, d.sessionId)],
      workspace: d.workspace,
      cwd: d.workspace,
      env: {
        ...d.env,
        GEMINI_PROJECT_DIR: d.workspace,
        GEMINI_CWD: d.workspace,
        GEMINI_SESSION_ID: d.sessionId,
        CLAUDE_PROJECT_DIR: d.workspace,
        ...hook.env,
      },
      stdin: 'pipe',
      ...(d.configDir !== undefined && { configDir: d.configDir }),
    });
  } catch (e) {
    return done({
      outcome: 'warning',
      exitCode: null,
      message: `did not start: ${isAgentError(e) ? e.message : messageOf(e)}`,
    });
  }
  const stdout = capture(proc.stdout, MAX_HOOK_STDOUT_BYTES);
  const stderr = capture(proc.stderr, MAX_HOOK_STDERR_BYTES);
  proc.stdin?.on('error', () => undefined); // a hook that does not read its input closes the pipe: fine
  proc.stdin?.end(JSON.stringify(input));

  let timedOut = false;
  let cancelKiller: (() => void) | undefined;
  const stop = () => {
    if (cancelKiller) return;
    proc.terminate();
    cancelKiller = startTimer(d.graceMs ?? 2000, () => proc.kill());
  };
  const cancelTimeout = startTimer(hook.timeoutMs, () => {
    timedOut = true;
    stop();
  });
  const onAbort = () => stop();
  signal?.addEventListener('abort', onAbort, { once: true });
  const status = await proc.exited;
  // Its output is read to the end, unless something it left behind (outside the sandbox) holds the pipes.
  await Promise.race([proc.closed, new Promise((r) => setTimeout(r, 500).unref())]);
  cancelTimeout();
  cancelKiller?.();
  signal?.removeEventListener('abort', onAbort);
  proc.kill(); // nothing it started outlives it

  const out = stdout.text().trim();
  const err = stderr.text().trim();
  if (timedOut)
    return done({
      outcome: 'timeout',
      exitCode: null,
      message: `timed out after ${hook.timeoutMs} ms and was stopped`,
    });
  if (signal?.aborted) return done({ outcome: 'warning', exitCode: null, message: 'stopped: the run was cancelled' });
  if (status.startError)
    return done({
      outcome: 'warning',
      exitCode: null,
      message: `did not start: ${status.startError}${err ? `: ${err}` : ''}`,
    });
  const code = status.code;
  if (code === 2) {
    const reason = err || out || `${hook.name} exited with code 2`;
    return done({ outcome: 'blocked', exitCode: 2, output: { decision: 'deny', reason }, message: reason });
  }
  if (code !== 0) {
    const why = status.signal ? `was killed by ${status.signal}` : `exited with code ${code}`;
    return done({ outcome: 'warning', exitCode: code, message: `${why}${err ? `: ${firstLines(err)}` : ''}` });
  }
  if (!out) return done({ outcome: 'ok', exitCode: 0 });
  const parsed = parseHookOutput(out);
  if (!parsed)
    return done({
      outcome: 'ok',
      exitCode: 0,
      output: { decision: 'allow', systemMessage: out },
      message: `printed text that is not JSON (taken as a message): ${firstLines(out)}`,
    });
  return done({
    outcome: 'ok',
    exitCode: 0,
    output: parsed,
    ...(typeof parsed.systemMessage === 'string' && { message: parsed.systemMessage }),
  });
}

/** Pure: stdout as a hook answer; JSON that is a string holding JSON is read again (as Gemini CLI does). */
function parseHookOutput(text: string): HookOutput | undefined {
  try {
    let v: unknown = JSON.parse(text);
    if (typeof v === 'string') v = JSON.parse(v);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as HookOutput) : undefined;
  } catch {
    return undefined;
  }
}

/** Pure: Gemini CLI's expandCommand: the project folder and session id written in, quoted for bash. */
function expandCommand(command: string, workspace: string, sessionId: string): string {
  const q = shellQuote;
  return command
    .replace(/\$GEMINI_PROJECT_DIR/g, () => q(workspace))
    .replace(/\$GEMINI_CWD/g, () => q(workspace))
    .replace(/\$GEMINI_SESSION_ID/g, () => q(sessionId))
    .replace(/\$CLAUDE_PROJECT_DIR/g, () => q(workspace));
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const firstLines = (s: string) => s.split('\n').slice(0, 3).join(' / ').slice(0, 300);

function capture(stream: NodeJS.ReadableStream, max: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (c: Buffer) => {
    if (size >= max) return;
    const room = max - size;
    chunks.push(c.length > room ? c.subarray(0, room) : c);
    size += Math.min(c.length, room);
  });
  stream.on('error', () => undefined);
  return { text: () => Buffer.concat(chunks).toString('utf8') };
}
