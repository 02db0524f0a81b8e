import { stat } from 'node:fs/promises';
import { isAgentError, messageOf } from '../../common/errors.js';
import { defaultSandbox } from '../../sandbox/sandbox.js';
import type { ConfinedProcess } from '../../sandbox/types.js';
import { defineTool, ToolFailure, type ToolEnv, type ToolOutput } from '../define-tool.js';
import { formatBytes, type ProcessBounds } from '../../sandbox/bounds.js';
import { runToCompletion, type ProcessResult } from '../process-group.js';
import { commandEnvOf } from '../../sandbox/command-env.js';
import { oneLine } from '../../common/text.js';
import { failedOutput, guardRun, HUMAN_LINE } from '../tool-output.js';
import { resolveInWorkspace } from '../workspace.js';
import { redactSecrets } from '../../common/redact.js';

/** Output kept per command (head and tail); the model rarely needs more, and context is finite. */
export const MAX_SHELL_OUTPUT_BYTES = 32 * 1024;
/** No command may ask for more than this, whatever the run's default. */
const MAX_SHELL_TIMEOUT_MS = 60 * 60 * 1000;

const params = {
  type: 'object',
  required: ['command'],
  properties: {
    command: { type: 'string', minLength: 1, description: 'The bash command.' },
    description: { type: 'string', description: 'What and why, in one sentence.' },
    dir_path: { type: 'string' },
    timeout_ms: {
      type: 'integer',
      minimum: 1000,
      maximum: MAX_SHELL_TIMEOUT_MS,
      description: 'Kill it after this many ms.',
    },
  },
  additionalProperties: false,
} as const;

export const runShellCommandTool = defineTool({
  name: 'run_shell_command',
  kind: 'execute',
  description: `Runs \`bash -c <command>\` in the workspace, sandboxed where possible (only the workspace writable, but not .git/, .gemini/, .github/; empty $HOME; no network unless allowed); returns its output (over ${MAX_SHELL_OUTPUT_BYTES / 1024} KB: start and end), exit code and signal. Prefer the file tools to read and search.`,
  params,
  async prepare(args, env) {
    const dir = await resolveInWorkspace(env.root, args.dir_path ?? '.', 'read');
    if (!dir.exists || !(await stat(dir.abs)).isDirectory())
      throw new ToolFailure('not_found', `directory not found: ${args.dir_path}`);
    const timeoutMs = Math.min(args.timeout_ms ?? env.shellTimeoutMs, MAX_SHELL_TIMEOUT_MS);
    return {
      title: `run \`${oneLine(redactSecrets(args.command, env.secrets), 120)}\`${dir.rel === '.' ? '' : ` in ${dir.rel}`}`,
      paths: [dir.rel],
      policyArgs: { command: args.command, ...(args.dir_path !== undefined ? { dir_path: dir.rel } : {}) },
      preview: redactSecrets(args.command, env.secrets),
      run: ({ signal, onProgress }) =>
        guardRun(
          signal,
          async () => {
            const ran = await runShellToEnd(env, args.command, { cwd: dir.abs, timeoutMs, signal, onProgress });
            if ('error' in ran) return ran.error;
            return shellOutput(ran.result, { command: args.command, dirRel: dir.rel, timeoutMs, secrets: env.secrets });
          },
          // runToCompletion stops the command on an abort (SIGTERM, then SIGKILL after the grace period)
          // and returns once every process of it is gone: a cancelled call means a stopped command.
          { endsOnAbort: true },
        ),
    };
  },
});

/**
 * `bash -c command` through the run's sandbox, to its end: the one runner of run_shell_command and
 * of a custom command's `!{...}` (commands/expand-command.ts). The output is not yet redacted.
 */
export async function runShellToEnd(
  env: ToolEnv,
  command: string,
  o: { cwd: string; timeoutMs: number; signal: AbortSignal; onProgress?: (line: string) => void },
): Promise<{ result: ProcessResult } | { error: ToolOutput }> {
  const started = await startShell(env, command, o.cwd);
  if ('error' in started) return started;
  const { onProgress } = o;
  const result = await runToCompletion(started.proc, {
    timeoutMs: o.timeoutMs,
    signal: o.signal,
    maxOutputBytes: MAX_SHELL_OUTPUT_BYTES,
    graceMs: env.shellGraceMs,
    startTimer: env.shellTimer,
    onOutput: onProgress ? (c) => onProgress(redactSecrets(c, env.secrets)) : undefined,
  });
  return { result };
}

/**
 * `bash -c command` through the run's sandbox. A sandbox that is required and unavailable refuses
 * every command: the model gets why, once per call, and learns to use the file tools instead.
 */
async function startShell(
  env: ToolEnv,
  command: string,
  cwd: string,
): Promise<{ proc: ConfinedProcess } | { error: ToolOutput }> {
  const sandbox = env.sandbox ?? defaultSandbox();
  try {
    const proc = await sandbox.spawn({
      argv: ['bash', '-c', command],
      workspace: env.root,
      cwd,
      env: {
        ...commandEnvOf(env.baseEnv, env.secrets),
        ...env.passEnv,
        PAGER: 'cat',
        GIT_PAGER: 'cat',
        GIT_TERMINAL_PROMPT: '0',
        AGENT_ACTION: '1',
      },
    });
    return { proc };
  } catch (e) {
    if (!isAgentError(e) || e.kind !== 'config') throw e;
    const message = `run_shell_command is unavailable: ${messageOf(e)}`;
    return {
      error: failedOutput(
        'denied',
        message,
        `${message}\nNo shell command can run in this session; use read_file, glob, grep_search and the edit tools instead.`,
      ),
    };
  }
}

/** Pure: the result as the model and a person see it. A non-zero exit is information, not a tool error. */
function shellOutput(
  r: ProcessResult,
  o: { command: string; dirRel: string; timeoutMs: number; secrets: readonly string[] },
) {
  const { dirRel, timeoutMs, secrets } = o;
  // The command is redacted too: whatever we return reaches logs, stream-json and comments.
  const command = redactSecrets(o.command, secrets);
  const output = redactSecrets(r.output, secrets).trimEnd();
  const lines = [`Command: ${command}`, `Directory: ${dirRel}`, `Output: ${output === '' ? '(empty)' : output}`];
  if (r.omittedBytes > 0)
    lines.push(
      `Note: output exceeded ${MAX_SHELL_OUTPUT_BYTES / 1024} KB; ${r.omittedBytes} bytes in the middle were omitted. Redirect to a file and read parts of it if you need them.`,
    );
  lines.push(`Exit Code: ${r.exitCode ?? '(none)'}`);
  if (r.signal) lines.push(`Signal: ${r.signal}`);
  const text = lines.join('\n');
  const short = oneLine(command, 60);
  if (r.startError)
    return failedOutput(
      'failed',
      `\`${short}\` did not start: ${r.startError}`,
      `${text}\nDid not start: ${r.startError}.`,
    );
  if (r.exceeded === 'processes') {
    const n = r.bounds?.processes;
    return failedOutput(
      'failed',
      `\`${short}\` was stopped at the sandbox's bound of ${n} processes and threads`,
      `${text}\nStopped: the command and what it started reached the sandbox's bound of ${n} processes and threads together (a fork bomb, or too much at once), so all of it was killed. Run fewer processes at once.`,
    );
  }
  if (r.aborted)
    return failedOutput(
      'cancelled',
      `\`${short}\` was cancelled; its process group was killed`,
      `${text}\nCancelled: the command was stopped before it finished.`,
    );
  if (r.timedOut) {
    return failedOutput(
      'timeout',
      `\`${short}\` timed out after ${Math.round(timeoutMs / 1000)} s; its process group was killed`,
      `${text}\nTimed out after ${timeoutMs} ms: the command and every process it started were killed. Use a shorter command, a timeout_ms, or run long steps in smaller parts.`,
    );
  }
  const note = r.bounds && boundNote(r, r.bounds);
  return {
    forModel: note ? `${text}\n${note}` : text,
    forHuman: oneLine(`\`${short}\` exited ${r.exitCode ?? r.signal}`, HUMAN_LINE),
  };
}

/** Signs in a command's output that a process ran into a bound. */
const FILE_SIZE_SIGNS = /File size limit exceeded/;
const MEMORY_SIGNS =
  /out of memory|cannot allocate memory|MemoryError|memory exhausted|bad_alloc|Allocation failed|failed to reserve (virtual )?memory|could not allocate memory/i;

/** Pure: a note on the bound a failed command likely hit (a file too big, an allocation refused), or undefined. */
function boundNote(r: ProcessResult, b: ProcessBounds): string | undefined {
  // bash's own words for a child SIGXFSZ ended: a sign whatever the command's last exit code.
  if (b.fileSizeBytes !== undefined && (r.signal === 'SIGXFSZ' || FILE_SIZE_SIGNS.test(r.output)))
    return `Note: the sandbox lets a process write files up to ${formatBytes(b.fileSizeBytes)}; a write past that ends it (SIGXFSZ).`;
  if (b.memoryBytes !== undefined && r.exitCode !== 0 && MEMORY_SIGNS.test(r.output))
    return `Note: the sandbox gives each process ${formatBytes(b.memoryBytes)} of address space; an allocation past that fails. Use less memory at once (smaller inputs, fewer workers).`;
  return undefined;
}
